// SPDX-License-Identifier: GPL-3.0-or-later
// The GPT-2 model view in the window (real widgets, offscreen): the tiny
// reference checkpoint opened through the window's API, the lesson sentence
// typed into the sentence field, the Model tab's 2 x 4 grid, a click on a
// tile selecting that (layer, head) with its weights from the last token
// equal to reference.json's, the next-token list's first id the
// reference's top-1, the what-if "none" on the selected head, and a bad
// folder shown with its message while the window keeps working.
#include "modelfamilies.h"
#include "modelsession.h"
#include "guitest.h"
#include "mainwindow.h"
#include "modelcontroller.h"
#include "headlinesview.h"
#include "modelgridview.h"
#include "modelpanel.h"
#include "nexttokenview.h"
#include "pipelineview.h"
#include "testdata.h"

#include <QComboBox>
#include <QDockWidget>
#include <QTabBar>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QtTest>

#include <cmath>

using namespace attnlab;

namespace {

QString tinyFolder()
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
}

QJsonObject lessonCase()
{
    return testdata::readJson(QStringLiteral("gpt2/tiny-gpt2/reference.json"))["cases"]
        .toArray()[0]
        .toObject();
}

bool typeSentence(MainWindow& window, const QString& sentence)
{
    ModelSession* session = window.models()->session();
    QSignalSpy changed(session, &ModelSession::resultChanged);
    QLineEdit* edit = guitest::find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    if (!edit)
        return false;
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, sentence);
    return QTest::qWaitFor([&] { return !changed.isEmpty() && !session->isComputing(); }, 10000)
           && session->result() && session->sentence() == sentence;
}

}  // namespace

class TestWindowModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void openTypeAndClick();
    void whatIfNoneOnTheHead();
    void badFolderKeepsTheWindow();
    void fileMenuHasOpenModel();
    void followsASentenceSetElsewhere();
    void labDocksStepAsideOnTheModelTab();

private:
    QTemporaryDir settingsDir_;
};

void TestWindowModel::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestWindowModel::openTypeAndClick()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* session = models->session();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    models->openModel(tinyFolder());
    QVERIFY(guitest::find<QProgressBar>(*window, QStringLiteral("modelProgress"))->isVisible());
    QVERIFY(opened.wait(10000));
    QVERIFY(!guitest::find<QProgressBar>(*window, QStringLiteral("modelProgress"))->isVisible());

    // The Model tab comes forward once the model is open.
    ModelPanel* panel = models->panel();
    QTRY_VERIFY(panel->isVisible());
    QCOMPARE(guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"))->currentPage(), panel);
    QVERIFY(guitest::find<QLabel>(*panel, QStringLiteral("modelSummary"))
                ->text()
                .contains(QStringLiteral("GPT-2: a causal decoder model with 2 layers of 4 heads")));

    const QJsonObject c = lessonCase();
    QVERIFY(typeSentence(*window, c["sentence"].toString()));
    const QJsonArray ids = c["token_ids"].toArray();
    QCOMPARE(session->result()->tokens(), int(ids.size()));
    // The pieces with their ids, the leading space marked, each id subscripted.
    QTextDocument* pieces = guitest::find<QTextBrowser>(*panel, QStringLiteral("modelTokens"))->document();
    QVERIFY2(pieces->toPlainText().contains(QStringLiteral("␣cinema 22041")),
             qPrintable(pieces->toPlainText()));
    QTextCursor id = pieces->find(QStringLiteral("22041"));
    QVERIFY(!id.isNull());
    QCOMPARE(id.charFormat().verticalAlignment(), QTextCharFormat::AlignSubScript);
    QCOMPARE(pieces->find(QStringLiteral("␣cinema")).charFormat().verticalAlignment(),
             QTextCharFormat::AlignNormal);

    ModelGridView* grid = panel->grid();
    QCOMPARE(grid->layers(), 2);
    QCOMPARE(grid->heads(), 4);
    QCOMPARE(grid->result(), session->result());

    // A click on layer 1, head 2 (0-based): selected, and its weights from
    // the last token are the reference's.
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->tileRect(1, 2).center());
    QCOMPARE(session->selectedLayer(), 1);
    QCOMPARE(session->selectedHead(), 2);
    QCOMPARE(grid->selectedLayer(), 1);
    QCOMPARE(grid->selectedHead(), 2);
    const attn::Matrix expected =
        testdata::toMatrix(c["layers"].toArray()[1].toObject()["heads"].toArray()[2].toObject()["weights"]);
    QTableWidget* lastRow = guitest::find<QTableWidget>(*panel, QStringLiteral("modelLastRowTable"));
    const int n = int(ids.size());
    QCOMPARE(lastRow->rowCount(), n);
    for (int j = 0; j < n; ++j) {
        const double shown = lastRow->item(j, 1)->data(Qt::UserRole).toDouble();
        QVERIFY2(std::abs(shown - expected(n - 1, j)) <= 1e-5, qPrintable(QString::number(j)));
        QCOMPARE(lastRow->item(j, 1)->text(), QString::number(expected(n - 1, j), 'f', 4));
    }
    QCOMPARE(lastRow->item(5, 0)->text(), QStringLiteral("␣cinema"));
    // Every head of the grid's result is the reference's.
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) {
            const attn::Matrix ref = testdata::toMatrix(
                c["layers"].toArray()[l].toObject()["heads"].toArray()[h].toObject()["weights"]);
            QVERIFY(testdata::maxAbsDiff(
                        grid->result()->layers[std::size_t(l)].heads[std::size_t(h)].weightsMatrix(), ref)
                    <= 1e-5);
        }

    // The next-token list: ten bars, the first the reference's top-1.
    const NextTokenRenderer& next = panel->nextTokenView()->renderer();
    QCOMPARE(int(next.entries().size()), 10);
    const int top1 = c["last_logits_top5"].toArray()[0].toObject()["id"].toInt();
    QCOMPARE(next.entries()[0].id, top1);
    QCOMPARE(next.entries()[0].text, session->vocabularyToken(top1).display);
    QCOMPARE(next.temperature(), 1.0);
    double previous = 1.0;
    for (const NextTokenRenderer::Entry& e : next.entries()) {
        QVERIFY(e.probability <= previous && e.probability > 0.0);
        previous = e.probability;
    }

    // A click on "␣cinema" in the last token's row ranks every head by its
    // weight from "␣new" to "␣cinema", the reference's numbers.
    QTest::mouseClick(lastRow->viewport(), Qt::LeftButton, {},
                      lastRow->visualItemRect(lastRow->item(5, 1)).center());
    QCOMPARE(panel->rankedKey(), 5);
    const ModelGridRenderer& renderer = grid->renderer();
    QVERIFY(renderer.hasRanking());
    QVERIFY(renderer.rankingCaption().contains(QStringLiteral("“␣cinema”")));
    int best = 0;
    double bestWeight = -1.0;
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) {
            const double w = testdata::toMatrix(
                c["layers"].toArray()[l].toObject()["heads"].toArray()[h].toObject()["weights"])(n - 1, 5);
            QVERIFY(std::abs(renderer.ranking()(l, h) - w) <= 1e-5);
            if (w > bestWeight) {
                bestWeight = w;
                best = l * 4 + h;
            }
        }
    QCOMPARE(renderer.markedTiles().size(), std::size_t(3));
    QCOMPARE(renderer.markedTiles().front(), best);
    QTest::mouseClick(lastRow->viewport(), Qt::LeftButton, {},
                      lastRow->visualItemRect(lastRow->item(5, 1)).center());
    QCOMPARE(panel->rankedKey(), -1);
    QVERIFY(!renderer.hasRanking());

    // The head view shows the selected layer, its lines the session's weights.
    const HeadLinesRenderer& lines =
        guitest::find<HeadLinesView>(*window, QStringLiteral("modelHeadLines"))->renderer();
    QCOMPARE(lines.result(), session->result());
    QCOMPARE(lines.layer(), 1);
    QVERIFY(!lines.lines().empty());
    for (const HeadLinesRenderer::Line& line : lines.lines())
        QCOMPARE(line.weight, session->head(1, line.head)->weights(line.query, line.key));

    // The keyboard moves the selection too.
    grid->setFocus();
    QTest::keyClick(grid, Qt::Key_Up);
    QCOMPARE(session->selectedLayer(), 0);
    QCOMPARE(session->selectedHead(), 2);
    QCOMPARE(lines.layer(), 0);

    window->grab().save(QDir::temp().filePath(QStringLiteral("attnlab-windowmodel.png")));
}

void TestWindowModel::whatIfNoneOnTheHead()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelSession* session = window->models()->session();
    ModelPanel* panel = window->models()->panel();
    auto* scale = guitest::find<QComboBox>(*panel, QStringLiteral("modelScaleBox"));
    auto* divisor = guitest::find<QDoubleSpinBox>(*panel, QStringLiteral("modelDivisorBox"));
    auto* scope = guitest::find<QComboBox>(*panel, QStringLiteral("modelScopeBox"));
    auto* reset = guitest::find<QPushButton>(*panel, QStringLiteral("modelResetButton"));
    auto* lastRow = guitest::find<QTableWidget>(*panel, QStringLiteral("modelLastRowTable"));
    // The empty grid tells how to open a model until one is open, then why it has no maps.
    QVERIFY(panel->grid()->placeholder().contains(QStringLiteral("File > Open model")));
    QSignalSpy opened(session, &ModelSession::modelOpened);
    window->models()->openModel(tinyFolder());
    QVERIFY(opened.wait(10000));
    QVERIFY(!panel->grid()->placeholder().contains(QStringLiteral("File > Open model")));
    QVERIFY(panel->grid()->placeholder().contains(QStringLiteral("the line above")));
    const QJsonObject c = lessonCase();
    QVERIFY(typeSentence(*window, c["sentence"].toString()));
    const auto before = session->result();
    QTest::mouseClick(panel->grid(), Qt::LeftButton, {}, panel->grid()->tileRect(1, 3).center());

    QSignalSpy changed(session, &ModelSession::resultChanged);
    scope->setCurrentIndex(scope->findData(int(ScaleScope::ThisHead)));
    const int none = scale->findData(int(attn::ScaleMode::None));
    scale->setCurrentIndex(none);
    emit scale->activated(none);
    QVERIFY(changed.wait(10000));
    QCOMPARE(session->divisors().at(1, 3), 1.0);
    QCOMPARE(session->divisors().at(1, 2), 2.0);
    // The shown row is softmax(raw scores / 1) of the last query, done here.
    const attn::AttentionResult& old = before->layers[1].heads[3];
    const int n = old.tokens();
    double top = -INFINITY, sum = 0.0;
    for (int j = 0; j < n; ++j)
        top = std::max(top, old.scores(n - 1, j));
    for (int j = 0; j < n; ++j)
        sum += std::exp(old.scores(n - 1, j) - top);
    for (int j = 0; j < n; ++j)
        QVERIFY(std::abs(lastRow->item(j, 1)->data(Qt::UserRole).toDouble()
                         - std::exp(old.scores(n - 1, j) - top) / sum)
                <= 1e-12);
    QVERIFY(guitest::find<QLabel>(*panel, QStringLiteral("modelHeadCaption"))
                ->text()
                .contains(QStringLiteral("÷ 1\n")));

    // Temperature 2 halves the logits before the softmax; the order stays.
    const NextTokenRenderer& next = panel->nextTokenView()->renderer();
    const int first = next.entries()[0].id;
    const double p1 = next.entries()[0].probability;
    guitest::find<QDoubleSpinBox>(*panel, QStringLiteral("modelTemperatureBox"))->setValue(2.0);
    QCOMPARE(session->temperature(), 2.0);
    QCOMPARE(next.temperature(), 2.0);
    QCOMPARE(next.entries()[0].id, first);
    QCOMPARE(next.entries()[0].probability, session->nextTokens()[0].probability);
    QVERIFY(next.entries()[0].probability < p1);  // flatter at T = 2

    QTest::mouseClick(reset, Qt::LeftButton);
    QVERIFY(changed.wait(10000));
    QCOMPARE(session->divisors().at(1, 3), 2.0);

    // A custom divisor equal to sqrt(head_dim) (2 on this model, 8 on GPT-2
    // small) stays the custom choice: its box stays editable.
    const int custom = scale->findData(int(attn::ScaleMode::Custom));
    divisor->setValue(2.0);
    scale->setCurrentIndex(custom);
    emit scale->activated(custom);
    QVERIFY(changed.wait(10000));
    QCOMPARE(session->divisors().at(1, 3), 2.0);
    QCOMPARE(scale->currentIndex(), custom);
    QVERIFY(divisor->isEnabled());
    // Choosing another scope applies the divisor shown on it at once.
    divisor->setValue(3.0);
    emit divisor->editingFinished();
    QVERIFY(changed.wait(10000));
    QCOMPARE(session->divisors().at(1, 3), 3.0);
    QCOMPARE(session->divisors().at(0, 0), 2.0);
    const int every = scope->findData(int(ScaleScope::AllLayers));
    scope->setCurrentIndex(every);
    emit scope->activated(every);
    QVERIFY(changed.wait(10000));
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h)
            QCOMPARE(session->divisors().at(l, h), 3.0);
    QTest::mouseClick(reset, Qt::LeftButton);
    QVERIFY(changed.wait(10000));
    QCOMPARE(session->divisors().at(0, 0), 2.0);
    QCOMPARE(scale->currentData().toInt(), int(attn::ScaleMode::SqrtDk));
}

void TestWindowModel::badFolderKeepsTheWindow()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelSession* session = window->models()->session();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    QSignalSpy failed(session, &ModelSession::loadFailed);
    window->models()->openModel(tinyFolder());
    QVERIFY(opened.wait(10000));
    QVERIFY(typeSentence(*window, QStringLiteral("Jane is going")));

    QTemporaryDir bad;
    QFile config(bad.filePath(QStringLiteral("config.json")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(R"({"model_type": "bert"})");
    config.close();
    const auto direct = readModelFolder(bad.path());
    QVERIFY(!direct.ok());
    const QString message = QString::fromStdString(direct.error().message);

    window->models()->openModel(bad.path());
    QVERIFY(failed.wait(10000));
    ModelPanel* panel = window->models()->panel();
    QCOMPARE(guitest::find<QLabel>(*panel, QStringLiteral("modelMessage"))->text(), message);
    QVERIFY(guitest::find<QLabel>(*panel, QStringLiteral("modelMessage"))->isVisible());
    QVERIFY2(window->statusBar()->currentMessage().contains(message),
             qPrintable(window->statusBar()->currentMessage()));
    QVERIFY(!guitest::find<QProgressBar>(*window, QStringLiteral("modelProgress"))->isVisible());
    QCOMPARE(session->modelFolder(), tinyFolder());
    QCOMPARE(panel->grid()->tileCount(), 8);

    // The window keeps working: the next sentence runs on the kept model.
    QVERIFY(typeSentence(*window, QStringLiteral("Jane is going to the cinema")));
    QCOMPARE(session->result()->tokens(), 6);
    QCOMPARE(guitest::find<QTableWidget>(*panel, QStringLiteral("modelLastRowTable"))->rowCount(), 6);
    QVERIFY(window->session()->problem().isEmpty());
}

// A sentence set without typing (the command line, a lab, a preset, undo
// set the field without its textChanged): the model runs over it too.
void TestWindowModel::followsASentenceSetElsewhere()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelSession* session = window->models()->session();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    window->models()->openModel(tinyFolder());
    QVERIFY(opened.wait(10000));
    const QJsonObject c = lessonCase();
    attn::ModelConfig config = window->session()->inputs().config;
    config.sentence = c["sentence"].toString().toStdString();
    window->session()->setParameters(config, window->session()->inputs().options,
                                     window->session()->inputs().heads);
    QCOMPARE(session->sentence(), c["sentence"].toString());
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && !session->isComputing(), 10000);
    const QJsonArray ids = c["token_ids"].toArray();
    QCOMPARE(session->result()->tokens(), int(ids.size()));
    for (int i = 0; i < ids.size(); ++i)
        QCOMPARE(session->result()->tokenIds[std::size_t(i)], ids[i].toInt());
}

void TestWindowModel::fileMenuHasOpenModel()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    auto* action = window->findChild<QAction*>(QStringLiteral("openModelAction"));
    QVERIFY(action);
    QCOMPARE(action->text(), QStringLiteral("Open mo&del…"));
    QMenu* file = window->menuBar()->actions().first()->menu();
    QVERIFY(file->actions().contains(action));
}

// The lab's docks describe the lab's head: on the Model tab they are put
// away (the tab gains their height), back on a lab tab they return as they
// were, the Matrices dock still tabbed behind Focused query; the saved
// window state keeps them whichever tab is current.
static bool frontTab(const QMainWindow& window, const QDockWidget* dock)
{
    for (const QTabBar* bar : window.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabData(i).value<quintptr>() == quintptr(dock))
                return i == bar->currentIndex();
    return false;
}

void TestWindowModel::labDocksStepAsideOnTheModelTab()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1280, 720));
    QVERIFY(window);
    auto* pipeline = guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"));
    auto* focus = guitest::find<QDockWidget>(*window, QStringLiteral("focusDock"));
    auto* statistics = guitest::find<QDockWidget>(*window, QStringLiteral("statisticsDock"));
    auto* matrices = guitest::find<QDockWidget>(*window, QStringLiteral("matricesDock"));
    QVERIFY(pipeline && focus && statistics && matrices);
    QVERIFY(focus->isVisible() && statistics->isVisible());
    QVERIFY(matrices->toggleViewAction()->isChecked());
    QVERIFY(frontTab(*window, focus) && !frontTab(*window, matrices));
    const int labHeight = pipeline->height();

    ModelPanel* panel = window->models()->panel();
    QTabWidget* tabs = pipeline->tabs();
    const int labTab = tabs->currentIndex();
    pipeline->showPage(panel);
    QTRY_VERIFY(panel->isVisible());
    QTRY_VERIFY(!focus->isVisible() && !statistics->isVisible());
    QVERIFY(!matrices->toggleViewAction()->isChecked());
    QTRY_VERIFY(pipeline->height() > labHeight + 100);

    // Saved from the Model tab: the lab's docks are in the saved state.
    window->saveSettings();
    QVERIFY(!focus->isVisible());

    tabs->setCurrentIndex(labTab);
    QTRY_VERIFY(focus->isVisible() && statistics->isVisible());
    QVERIFY(matrices->toggleViewAction()->isChecked());
    QVERIFY(frontTab(*window, focus) && !frontTab(*window, matrices));
    QTRY_COMPARE(pipeline->height(), labHeight);

    // A dock the user closed on the lab stays closed; one shown on the Model
    // tab from the View menu stays until the tab is entered again.
    statistics->toggleViewAction()->trigger();
    QVERIFY(!statistics->isVisible());
    pipeline->showPage(panel);
    QTRY_VERIFY(!focus->isVisible());
    focus->toggleViewAction()->trigger();
    QTRY_VERIFY(focus->isVisible());
    tabs->setCurrentIndex(labTab);
    QTRY_VERIFY(focus->isVisible());
    QVERIFY(!statistics->isVisible());

    const std::unique_ptr<MainWindow> again = guitest::shownWindow<MainWindow>(QSize(1280, 720));
    QVERIFY(again);
    again->restoreSettings();
    QTRY_VERIFY(guitest::find<QDockWidget>(*again, QStringLiteral("focusDock"))->isVisible());
    QVERIFY(guitest::find<QDockWidget>(*again, QStringLiteral("statisticsDock"))->isVisible());
}

QTEST_MAIN(TestWindowModel)
#include "tst_windowmodel.moc"
