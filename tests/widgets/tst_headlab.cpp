// SPDX-License-Identifier: GPL-3.0-or-later
// The Model tab's head lab in the window (real widgets, offscreen) over the
// tiny reference checkpoint: the score chooser prints core's scores in the
// grid and ranks the heads in modelScoreTable as attn::rankHeads does (the
// numbers core's, from a pass run here); a score the sentence does not
// define is an empty cell with its reason, not 0; a Ctrl+click on a tile
// ablates that head (crossed out) and modelAblationTable shows core's
// attn::compareNextTokens of the intact and ablated passes; "highest by
// score" ablates the k first of the ranking; "None" restores the model;
// the logit difference of " film" and " book" is the logits' own.

#include "guitest.h"
#include "spacemarkink.h"
#include "tokenitemdelegate.h"
#include "head_scores.h"
#include "headlabpanel.h"
#include "heatmapview.h"
#include "lens_rollout.h"
#include "lenspanel.h"
#include "modelcomparison.h"
#include "modelreadings.h"
#include "probebox.h"
#include "colormap.h"
#include "demomodel.h"
#include "documentcontroller.h"
#include "labdocument.h"
#include "mainwindow.h"
#include "modelcontroller.h"
#include "modelgridview.h"
#include "modelpanel.h"
#include "modelsession.h"
#include "nexttokenview.h"
#include "rotarypanel.h"
#include "score_range.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QComboBox>
#include <QDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <cmath>

using namespace attnlab;

namespace {

// Opens `folder` in the Model tab and waits until it is read.
bool openModel(ModelController& models, const QString& folder)
{
    QSignalSpy opened(models.session(), &ModelSession::modelOpened);
    models.openModel(folder);
    return opened.wait(10000);
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

attn::DecoderResult runHere(const ModelSession& session, attn::HeadOutputHook hook = {})
{
    std::vector<int> ids;
    for (const ModelToken& t : session.resultTokens())
        ids.push_back(t.id);
    attn::DecoderRunOptions options;
    options.divisors = session.divisors();
    options.keepHidden = true;
    options.headOutput = std::move(hook);
    attn::Expected<attn::DecoderResult> r = session.model()->decoder->run(ids, options);
    if (!r)
        qFatal("%s", r.error().message.c_str());
    return std::move(r.value());
}

void choose(QComboBox* box, int data)
{
    box->setCurrentIndex(box->findData(data));
}

}  // namespace

class TestHeadLab : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void scoresAndAblation();
    void scoreRangesQkNormAndRope();
    void lensAndRollout_data();
    void lensAndRollout();
    void probe();
    void ablationSavedAndUndone();
    void modelSavedWithLab();

private:
    QTemporaryDir settingsDir_;
};

void TestHeadLab::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestHeadLab::scoresAndAblation()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* session = models->session();
    QVERIFY(openModel(*models, QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2")));
    ModelPanel* panel = models->panel();
    QTRY_VERIFY(panel->isVisible());
    QVERIFY(typeSentence(*window, QStringLiteral("The cat sat on the mat. The cat sat on the mat.")));

    auto* box = guitest::find<QComboBox>(*panel, QStringLiteral("modelScoreBox"));
    auto* table = guitest::find<QTableWidget>(*panel, QStringLiteral("modelScoreTable"));
    auto* note = guitest::find<QLabel>(*panel, QStringLiteral("modelScoreNote"));
    QVERIFY(box && table && note);
    ModelGridView* grid = panel->grid();
    QVERIFY(!grid->renderer().hasRanking());
    // The head lab's "Scores" page, after the selected head's "Last token";
    // then "Ablation", "Lens", "RoPE" and "Generate".
    QCOMPARE(panel->headLab()->count(), 6);
    QCOMPARE(panel->headLab()->tabText(3).remove(QLatin1Char('&')), QStringLiteral("Lens"));
    QCOMPARE(panel->headLab()->tabText(1).remove(QLatin1Char('&')), QStringLiteral("Scores"));
    panel->headLab()->setCurrentIndex(1);

    // Induction: core's scores of a pass run here, ranked, in the table and the grid.
    const attn::DecoderResult intact = runHere(*session);
    const attn::Expected<attn::HeadScoreTable> core = attn::headScores(*session->model()->decoder, intact);
    QVERIFY(core.ok());
    for (attn::HeadScoreKind kind : attn::kAllHeadScoreKinds) {
        choose(box, int(kind));
        QVERIFY(grid->renderer().hasRanking());
        QVERIFY(grid->renderer().rankingCaption().endsWith(QStringLiteral(" score")));
        const std::vector<attn::HeadIndex> order = attn::rankHeads(*core, kind);
        QCOMPARE(table->rowCount(), 8);
        for (int row = 0; row < 8; ++row) {
            const attn::HeadIndex& h = order[std::size_t(row)];
            const double expected = *core->at(h.layer, h.head)[kind];
            QCOMPARE(table->item(row, 0)->text(), QStringLiteral("L%1 H%2").arg(h.layer + 1).arg(h.head + 1));
            QCOMPARE(table->item(row, 1)->data(Qt::UserRole).toDouble(), expected);
            QCOMPARE(table->item(row, 1)->text(), QString::number(expected, 'f', 4));
            QCOMPARE(grid->renderer().ranking()(h.layer, h.head), expected);
        }
        QVERIFY(note->isHidden());
    }
    // A click on a row selects that head.
    choose(box, int(attn::HeadScoreKind::Induction));
    const attn::HeadIndex best = attn::rankHeads(*core, attn::HeadScoreKind::Induction).front();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualItemRect(table->item(0, 0)).center());
    QCOMPARE(session->selectedLayer(), best.layer);
    QCOMPARE(session->selectedHead(), best.head);

    // Ctrl+click on layer 2 head 3: ablated (zero), crossed out, and the
    // next tokens side by side are core's comparison.
    auto* comparison = guitest::find<QTableWidget>(*panel, QStringLiteral("modelAblationTable"));
    QVERIFY(comparison && !comparison->isVisible());
    QSignalSpy changed(session, &ModelSession::resultChanged);
    QTest::mouseClick(grid, Qt::LeftButton, Qt::ControlModifier, grid->tileRect(1, 2).center());
    QVERIFY(session->isAblated(1, 2));
    QVERIFY(grid->renderer().crossedTiles() == std::vector<int>{1 * 4 + 2});
    QCOMPARE(panel->headLab()->currentIndex(), 2);  // the Ablation page comes forward
    QVERIFY(QTest::qWaitFor([&] { return !changed.isEmpty() && !session->isComputing(); }, 10000));
    QVERIFY(comparison->isVisible());
    QVERIFY(panel->nextTokenView()->isHidden());  // the table in the bars' place
    // At 1024 x 700 every column is in view, the numbers whole (the token
    // column takes the rest, elided).
    QCOMPARE(comparison->horizontalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
    QVERIFY(comparison->columnViewportPosition(3) + comparison->columnWidth(3)
            <= comparison->viewport()->width());
    for (int column = 1; column < 4; ++column)
        for (int row = 0; row < comparison->rowCount(); ++row)
            QVERIFY2(comparison->fontMetrics().horizontalAdvance(comparison->item(row, column)->text())
                         < comparison->columnWidth(column),
                     qPrintable(comparison->item(row, column)->text()));
    const attn::DecoderResult ablated =
        runHere(*session, attn::ablationHook({{1, 2}}, attn::HeadAblation::Zero));
    const std::vector<attn::NextTokenChange> expected =
        attn::compareNextTokens(intact.lastLogits, ablated.lastLogits, ModelSession::kNextTokens, 1.0);
    QCOMPARE(comparison->rowCount(), int(expected.size()));
    for (int row = 0; row < comparison->rowCount(); ++row) {
        const attn::NextTokenChange& e = expected[std::size_t(row)];
        QCOMPARE(comparison->item(row, 0)->data(Qt::UserRole).toInt(), e.id);
        QCOMPARE(comparison->item(row, 0)->text(), session->vocabularyToken(e.id).display);
        QCOMPARE(comparison->item(row, 1)->data(Qt::UserRole).toDouble(), e.intactProbability);
        QCOMPARE(comparison->item(row, 2)->data(Qt::UserRole).toDouble(), e.ablatedProbability);
        QCOMPARE(comparison->item(row, 3)->data(Qt::UserRole).toDouble(), e.change());
    }
    // The logit difference " film" - " book", intact and ablated, from the logits here.
    auto* difference = guitest::find<QLabel>(*panel, QStringLiteral("modelLogitDifference"));
    const std::vector<int> film = session->model()->tokenizer->encodeIds(QStringLiteral(" film"));
    const std::vector<int> book = session->model()->tokenizer->encodeIds(QStringLiteral(" book"));
    QCOMPARE(int(film.size()), 1);
    QCOMPARE(int(book.size()), 1);
    QCOMPARE(difference->property("intact").toDouble(),
             intact.lastLogits(film.front()) - intact.lastLogits(book.front()));
    QCOMPARE(difference->property("ablated").toDouble(),
             ablated.lastLogits(film.front()) - ablated.lastLogits(book.front()));
    // Two tokens typed as one field: refused with its reason, no number.
    guitest::find<QLineEdit>(*panel, QStringLiteral("modelLogitTokenB"))
        ->setText(QStringLiteral(" book shop"));
    QVERIFY(difference->text().contains(QStringLiteral("2 tokens")));
    QVERIFY(!difference->property("intact").isValid());
    guitest::find<QLineEdit>(*panel, QStringLiteral("modelLogitTokenB"))->setText(QStringLiteral(" book"));
    QVERIFY(guitest::find<QLabel>(*panel, QStringLiteral("modelAblationLabel"))
                ->text()
                .contains(QStringLiteral("L2 H3")));

    // The 2 highest by the previous-token score, mean-ablated.
    choose(box, int(attn::HeadScoreKind::PreviousToken));
    auto* mode = guitest::find<QComboBox>(*panel, QStringLiteral("modelAblationModeBox"));
    choose(mode, int(attn::HeadAblation::Mean));
    guitest::find<QSpinBox>(*panel, QStringLiteral("modelAblateTopSpin"))->setValue(2);
    changed.clear();
    guitest::find<QPushButton>(*panel, QStringLiteral("modelAblateTopButton"))->click();
    const std::vector<attn::HeadIndex> order = attn::rankHeads(*core, attn::HeadScoreKind::PreviousToken);
    QCOMPARE(int(session->ablatedHeads().size()), 2);
    QCOMPARE(session->ablation(), attn::HeadAblation::Mean);
    for (const attn::HeadIndex& h : {order[0], order[1]})
        QVERIFY(session->isAblated(h.layer, h.head));
    QVERIFY(QTest::qWaitFor([&] { return !changed.isEmpty() && !session->isComputing(); }, 10000));
    const attn::DecoderResult mean =
        runHere(*session, attn::ablationHook({order[0], order[1]}, attn::HeadAblation::Mean));
    const std::vector<attn::NextTokenChange> meanExpected =
        attn::compareNextTokens(intact.lastLogits, mean.lastLogits, ModelSession::kNextTokens, 1.0);
    QCOMPARE(comparison->item(0, 2)->data(Qt::UserRole).toDouble(), meanExpected.front().ablatedProbability);

    // None: the intact model, the table hidden.
    changed.clear();
    guitest::find<QPushButton>(*panel, QStringLiteral("modelAblationClearButton"))->click();
    QVERIFY(session->ablatedHeads().empty());
    QVERIFY(grid->renderer().crossedTiles().empty());
    QVERIFY(QTest::qWaitFor([&] { return !changed.isEmpty() && !session->isComputing(); }, 10000));
    QVERIFY(!comparison->isVisible());
    QVERIFY(panel->nextTokenView()->isVisible());

    // A sentence with no repeated token: the duplicate-token score is empty
    // for every head, shown as an empty cell and its reason, never 0.
    panel->headLab()->setCurrentIndex(1);
    choose(box, int(attn::HeadScoreKind::DuplicateToken));
    QVERIFY(typeSentence(*window, QStringLiteral("A quick brown fox")));
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(table->item(0, 1)->text(), QString());
    QVERIFY(!note->isHidden());
    QVERIFY(note->text().contains(QStringLiteral("empty")));
    QVERIFY(std::isnan(grid->renderer().ranking()(0, 0)));
    QVERIFY(grid->renderer().markedTiles().empty());
}

void TestHeadLab::scoreRangesQkNormAndRope()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* session = models->session();
    QVERIFY(openModel(*models, QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-qwen3")));
    ModelPanel* panel = models->panel();
    QTRY_VERIFY(panel->isVisible());
    QVERIFY(typeSentence(*window, QStringLiteral("Jane is going to the cinema to watch a new")));
    auto* box = guitest::find<QComboBox>(*panel, QStringLiteral("modelScoreBox"));
    auto* table = guitest::find<QTableWidget>(*panel, QStringLiteral("modelScoreTable"));
    auto* qkNorm = guitest::find<QCheckBox>(*panel, QStringLiteral("modelQkNormWhatIf"));
    QVERIFY(box && table && qkNorm);
    panel->headLab()->setCurrentIndex(1);

    // Each readout: the grid prints the core's table of a pass run here.
    const attn::DecoderResult intact = runHere(*session);
    const attn::Expected<attn::ScoreRangeTable> core =
        attn::scoreRangeTable(*session->model()->decoder, intact);
    QVERIFY(core.ok());
    for (const attn::ScoreRangeKind kind : attn::kAllScoreRangeKinds) {
        choose(box, HeadLabPanel::kScoreRangeChoice + int(kind));
        QVERIFY(panel->grid()->renderer().hasRanking());
        QCOMPARE(panel->grid()->renderer().ranking(), core->matrix(kind));
        QCOMPARE(table->rowCount(), 8);
        // The list's first head has the largest value.
        const int tile = table->item(0, 0)->data(Qt::UserRole).toInt();
        QCOMPARE(table->item(0, 1)->data(Qt::UserRole).toDouble(), core->matrix(kind).maxCoeff());
        QCOMPARE(core->matrix(kind)(tile / 4, tile % 4), core->matrix(kind).maxCoeff());
    }
    choose(box, HeadLabPanel::kScoreRangeChoice + int(attn::ScoreRangeKind::ScoreVariance));
    const attn::Matrix normed = panel->grid()->renderer().ranking();

    // "no QK-norm": shown for Qwen3; the readouts are the bare pass's.
    QVERIFY(qkNorm->isVisible());
    QSignalSpy changed(session, &ModelSession::resultChanged);
    qkNorm->click();
    QVERIFY(changed.wait(10000));
    QTRY_VERIFY(!session->isComputing());
    QVERIFY(session->result()->qkNormSkipped);
    QVERIFY(panel->grid()->renderer().ranking() != normed);
    QCOMPARE(panel->grid()->renderer().ranking(),
             session->scoreRangeMatrix(attn::ScoreRangeKind::ScoreVariance));

    // RoPE: the page draws the selected head before and after the rotation.
    auto* rope = guitest::find<RotaryPanel>(*panel, QStringLiteral("modelRotaryPanel"));
    QVERIFY(rope);
    panel->headLab()->setCurrentWidget(rope);
    session->selectHead(1, 3);
    QTRY_VERIFY(rope->view()->renderer().head().has_value());
    const attn::RotaryHead& shown = *rope->view()->renderer().head();
    QCOMPARE(shown.layer, 1);
    QCOMPARE(shown.head, 3);
    QCOMPARE(shown.scoresAfter, session->head(1, 3)->scores);
    QVERIFY(shown.scoresBefore != shown.scoresAfter);
    auto* larger = guitest::find<QPushButton>(*rope, QStringLiteral("modelRotaryOpenButton"));
    QVERIFY(larger && larger->isEnabled());
    larger->click();
    QVERIFY(rope->window() && rope->window()->isVisible());
    rope->window()->close();

    // GPT-2: learned positions, no QK-norm box.
    QVERIFY(openModel(*models, QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2")));
    QVERIFY(typeSentence(*window, QStringLiteral("Jane is going")));
    QVERIFY(!qkNorm->isVisible());
    QTRY_VERIFY(rope->view()->renderer().message().contains(QStringLiteral("learned positions")));
    QVERIFY(!rope->view()->renderer().head());
}

// The Lens page's table and map against core's lens and rollout of a pass run here.
void compareLens(const LensPanel& lens, const ModelSession& session, const attn::DecoderResult& expected)
{
    const attn::DecoderModel& model = *session.model()->decoder;
    const attn::Expected<attn::LogitLens> core = attn::logitLens(model, expected, 5, session.temperature());
    QVERIFY(core.ok());
    const QTableWidget* table = lens.lensTable();
    QCOMPARE(table->rowCount(), core->layers);
    QCOMPARE(table->columnCount(), core->positions);
    for (int l = 0; l < core->layers; ++l)
        for (int i = 0; i < core->positions; ++i) {
            const QTableWidgetItem* item = table->item(l, i);
            QVERIFY(item);
            const attn::TopToken& best = core->at(l, i).front();
            QCOMPARE(item->data(Qt::UserRole).toInt(), best.id);
            QVERIFY2(std::abs(item->data(Qt::UserRole + 1).toDouble() - best.probability) <= 1e-12,
                     qPrintable(QStringLiteral("layer %1 position %2: %3 against %4")
                                    .arg(l)
                                    .arg(i)
                                    .arg(item->data(Qt::UserRole + 1).toDouble(), 0, 'g', 17)
                                    .arg(best.probability, 0, 'g', 17)));
            QCOMPARE(item->background().color(), colormap::sequential(best.probability, 0.0, 1.0));
            // The top 5 in the tooltip, one line each after the heading.
            QCOMPARE(item->toolTip().count(QStringLiteral("<br>")), 5);
            QVERIFY(item->toolTip().contains(QStringLiteral("id %1").arg(core->at(l, i).back().id)));
        }
    const attn::Expected<attn::Matrix> rollout = attn::attentionRollout(model, expected);
    QVERIFY(rollout.ok());
    const attn::Matrix shown = lens.rolloutView()->values();
    QCOMPARE(shown.rows(), rollout->rows());
    QVERIFY((shown - *rollout).cwiseAbs().maxCoeff() <= 1e-12);
}

bool settleReadings(const ModelPanel& panel)
{
    return QTest::qWaitFor([&] { return !panel.readings()->isComputing(); }, 20000)
           && panel.readings()->hasReadings();
}

void TestHeadLab::lensAndRollout_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QSize>("size");
    QTest::newRow("gpt2 1024x700") << QStringLiteral("gpt2/tiny-gpt2") << QSize(1024, 700);
    QTest::newRow("llama 1280x720") << QStringLiteral("llama/tiny-llama") << QSize(1280, 720);
}

void TestHeadLab::lensAndRollout()
{
    QFETCH(QString, folder);
    QFETCH(QSize, size);
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(size);
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* session = models->session();
    QVERIFY(openModel(*models, QStringLiteral(ATTNLAB_TEST_DATA_DIR "/") + folder));
    ModelPanel* panel = models->panel();
    QTRY_VERIFY(panel->isVisible());
    QVERIFY(typeSentence(*window, QStringLiteral("The cat sat on the mat. The cat sat")));
    // The last token's table draws a key's "␣" as the bracket (TokenItemDelegate).
    {
        auto* lastRow = guitest::find<QTableWidget>(*panel, QStringLiteral("modelLastRowTable"));
        QTRY_VERIFY(lastRow->isVisible() && lastRow->rowCount() > 1);
        const QImage shot = lastRow->viewport()->grab().toImage();
        QTableWidgetItem* cat = lastRow->item(1, 0);
        QCOMPARE(cat->text(), QStringLiteral("␣cat"));
        const QRect cell = lastRow->visualItemRect(cat);
        VERIFY_BRACKET(shot, cell.adjusted(0, 1, -1, -2), lastRow->font());
        // Two lines, as the lens's cells: the token over its probability.
        QTableWidget two(1, 1);
        two.setItemDelegate(new TokenItemDelegate(&two));
        two.verticalHeader()->setDefaultSectionSize(3 * two.fontMetrics().lineSpacing());
        two.horizontalHeader()->setDefaultSectionSize(12 * two.fontMetrics().averageCharWidth());
        two.resize(300, 200);
        auto* item = new QTableWidgetItem(QStringLiteral("␣cat\n96.3 %"));
        item->setTextAlignment(Qt::AlignCenter);
        two.setItem(0, 0, item);
        const QImage twoShot = two.viewport()->grab().toImage();
        const QRect both = two.visualItemRect(item).adjusted(0, 1, -1, -2);
        const int middle = both.center().y();
        const QRect upper(both.left(), both.top(), both.width(), middle - both.top());
        VERIFY_BRACKET(twoShot, upper, two.font());
        QVERIFY(spacemarkink::inkOf(twoShot, QRect(both.left(), middle, both.width(), both.bottom() - middle))
                    .height()
                > 3);
    }
    // Not shown: nothing read.
    QVERIFY(!panel->readings()->hasReadings() && !panel->readings()->isComputing());
    LensPanel* lens = panel->lensPanel();
    panel->headLab()->setCurrentWidget(lens);
    QVERIFY(lens->isVisible());
    // Every page's name whole in the tab bar.
    for (int i = 0; i < panel->headLab()->count(); ++i) {
        const QTabBar* bar = panel->headLab()->tabBar();
        QVERIFY2(bar->tabRect(i).width() >= bar->fontMetrics().horizontalAdvance(bar->tabText(i)),
                 qPrintable(bar->tabText(i)));
    }
    QVERIFY(settleReadings(*panel));
    QCOMPARE(lens->reading(), LensPanel::Reading::LogitLens);
    QVERIFY(lens->lensTable()->isVisible());
    QVERIFY(lens->caption()->text().contains(QStringLiteral("as trained")));
    compareLens(*lens, *session, runHere(*session));
    lens->setReading(LensPanel::Reading::Rollout);
    QVERIFY(lens->rolloutView()->isVisible());
    QCOMPARE(lens->rolloutView()->rowCount(), session->result()->tokens());

    // The what-if (no scaling) and an ablation (Ctrl+click L2 H1): the ablated pass under it.
    QSignalSpy changed(panel->readings(), &ModelReadings::changed);
    QVERIFY(session->setScale(attn::ScaleMode::None, 1.0, ScaleScope::AllLayers));
    QTest::mouseClick(panel->grid(), Qt::LeftButton, Qt::ControlModifier,
                      panel->grid()->tileRect(1, 0).center());
    QVERIFY(session->isAblated(1, 0));
    panel->headLab()->setCurrentWidget(lens);
    QVERIFY(QTest::qWaitFor(
        [&] {
            return !session->isComputing() && panel->readings()->ablatedHeads().size() == 1
                   && !panel->readings()->isComputing();
        },
        20000));
    QVERIFY(lens->caption()->text().contains(QStringLiteral("without L2 H1 (zero)")));
    QVERIFY(lens->caption()->text().contains(QStringLiteral("a divisor other than")));
    compareLens(*lens, *session, runHere(*session, attn::ablationHook({{1, 0}}, attn::HeadAblation::Zero)));

    // The A/B difference, intact vs ablated: the comparison's B - A on a
    // diverging map. L2 H1 is in the last layer, so no weight changes: 0.
    lens->setReading(LensPanel::Reading::Difference);
    QVERIFY(lens->differenceView()->isVisible());
    QVERIFY(panel->comparison()->isWanted());
    QVERIFY(!panel->readings()->isWanted());
    const int n = session->result()->tokens();
    QTRY_COMPARE(lens->differenceView()->rowCount(), n);
    QCOMPARE(lens->differenceView()->colorMap(), HeatmapView::ColorMap::Diverging);
    QVERIFY(lens->differenceView()->values() == attn::Matrix::Zero(n, n));
    QVERIFY(lens->caption()->text().contains(QStringLiteral("without L2 H1 (zero) − intact")));
    // The chooser follows the comparison when it is set elsewhere.
    panel->comparison()->setKind(ComparisonKind::ScaledVsUnscaled);
    auto* kindBox = guitest::find<QComboBox>(*panel, QStringLiteral("modelCompareKind"));
    QTRY_COMPARE(kindBox->currentData().toInt(), int(ComparisonKind::ScaledVsUnscaled));
    QTRY_VERIFY(lens->caption()->text().contains(QStringLiteral("unscaled")));
}

void TestHeadLab::probe()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* session = models->session();
    QVERIFY(openModel(*models, QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2")));
    ModelPanel* panel = models->panel();
    QTRY_VERIFY(panel->isVisible());
    const QString sentence = QStringLiteral("Jane is going to the cinema");
    QVERIFY(typeSentence(*window, sentence));
    panel->headLab()->setCurrentIndex(1);
    ProbeBox* box = panel->headLab()->probe();
    QVERIFY(box->isVisible());
    QCOMPARE(box->span()->value(), attn::kDefaultRepeatSpan);
    QVERIFY(box->loss()->isHidden());
    box->seed()->setValue(4);
    box->span()->setValue(9);
    QSignalSpy changed(session, &ModelSession::resultChanged);
    box->check()->click();
    QVERIFY(QTest::qWaitFor([&] { return !changed.isEmpty() && !session->isComputing(); }, 10000));
    QVERIFY(session->resultProbe() && *session->resultProbe() == (RepeatProbe{9, 4}));
    QCOMPARE(session->result()->tokens(), 18);
    // The losses beside the scores are core's of a pass run here.
    const attn::DecoderResult here = runHere(*session);
    const attn::Expected<std::vector<double>> losses =
        attn::nextTokenLosses(*session->model()->decoder, here);
    QVERIFY(losses.ok());
    const attn::Expected<attn::RepeatLoss> loss = attn::repeatLoss(*losses, 9);
    QVERIFY(loss.ok());
    QVERIFY(box->loss()->isVisible());
    QCOMPARE(box->loss()->property("first").toDouble(), loss->first);
    QCOMPARE(box->loss()->property("second").toDouble(), loss->second);
    QVERIFY(box->loss()->text().contains(QString::number(loss->second, 'f', 3)));
    // The typed sentence is kept, in the field and the session.
    QCOMPARE(guitest::find<QLineEdit>(*window, QStringLiteral("sentenceEdit"))->text(), sentence);
    QCOMPARE(session->sentence(), sentence);
    // R too long for the model: refused in the message line, the probe as it was.
    QVERIFY(!session->setProbe(RepeatProbe{session->config().maxPositions, 0}).ok());
    QVERIFY(session->probe() && *session->probe() == (RepeatProbe{9, 4}));
    // Unchecked: the sentence again.
    changed.clear();
    box->check()->click();
    QVERIFY(QTest::qWaitFor([&] { return !changed.isEmpty() && !session->isComputing(); }, 10000));
    QVERIFY(!session->resultProbe());
    QVERIFY(box->loss()->isHidden());
    QCOMPARE(session->result()->tokenIds, session->model()->tokenizer->encodeIds(sentence));
}

void TestHeadLab::ablationSavedAndUndone()
{
    QTemporaryDir dir;
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* session = models->session();
    QVERIFY(openModel(*models, QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2")));
    ModelPanel* panel = models->panel();
    QTRY_VERIFY(panel->isVisible());
    QVERIFY(typeSentence(*window, QStringLiteral("The cat sat on the mat.")));
    QUndoStack* stack = window->documents()->undoStack();
    const int before = stack->count();
    // Two Ctrl+clicks and the mode: three steps.
    QTest::mouseClick(panel->grid(), Qt::LeftButton, Qt::ControlModifier,
                      panel->grid()->tileRect(1, 2).center());
    QTest::mouseClick(panel->grid(), Qt::LeftButton, Qt::ControlModifier,
                      panel->grid()->tileRect(0, 3).center());
    auto* mode = guitest::find<QComboBox>(*panel, QStringLiteral("modelAblationModeBox"));
    mode->setCurrentIndex(mode->findData(int(attn::HeadAblation::Mean)));
    emit mode->activated(mode->currentIndex());
    QCOMPARE(stack->count(), before + 3);
    QVERIFY(window->documents()->document()->isModified());
    QCOMPARE(session->ablation(), attn::HeadAblation::Mean);
    // Undo (as Ctrl+Z does): the mode, then L1 H4; the grid and the page follow.
    stack->undo();
    QCOMPARE(session->ablation(), attn::HeadAblation::Zero);
    QCOMPARE(mode->currentData().toInt(), int(attn::HeadAblation::Zero));
    stack->undo();
    QCOMPARE(int(session->ablatedHeads().size()), 1);
    QVERIFY(panel->grid()->renderer().crossedTiles() == std::vector<int>{1 * 4 + 2});
    stack->redo();
    stack->redo();
    QCOMPARE(int(session->ablatedHeads().size()), 2);
    QCOMPARE(session->ablation(), attn::HeadAblation::Mean);
    QVERIFY(QTest::qWaitFor([&] { return !session->isComputing(); }, 10000));

    // Saved with the lab; a new lab has none; opening the file brings it back.
    const QString file = dir.filePath(QStringLiteral("ablated.attnlab"));
    QVERIFY(window->documents()->document()->saveAs(file));
    QFile saved(file);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QVERIFY(saved.readAll().contains("\"model_ablation\""));
    window->documents()->document()->startUntitled();
    QVERIFY(session->setAblation({}, attn::HeadAblation::Zero));
    QVERIFY(session->ablatedHeads().empty());
    QVERIFY(window->documents()->document()->open(file));
    QCOMPARE(int(session->ablatedHeads().size()), 2);
    QCOMPARE(session->ablatedHeads()[0].layer, 0);
    QCOMPARE(session->ablatedHeads()[0].head, 3);
    QCOMPARE(session->ablation(), attn::HeadAblation::Mean);
    QVERIFY(!window->documents()->document()->isModified());
    QVERIFY(panel->grid()->renderer().crossedTiles() == (std::vector<int>{0 * 4 + 3, 1 * 4 + 2}));
}

void TestHeadLab::modelSavedWithLab()
{
    QTemporaryDir dir;
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* session = models->session();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    const QString gpt2 = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
    models->openModel(gpt2);
    QVERIFY(opened.wait(10000));
    ModelPanel* panel = models->panel();
    QTRY_VERIFY(panel->isVisible());
    QVERIFY(typeSentence(*window, QStringLiteral("The cat sat on the mat. The cat")));
    // What-ifs: L2 H1 divides by 2.5, the last 3 tokens seen, temperature
    // 0.7; L1 H2 ablated (a Ctrl+click); L2 H3 selected.
    session->selectHead(1, 0);
    QVERIFY(session->setScale(attn::ScaleMode::Custom, 2.5, ScaleScope::ThisHead));
    QVERIFY(session->setMaskWhatIf(attn::AttentionMask::sliding(3)));
    QVERIFY(session->setTemperature(0.7));
    QTest::mouseClick(panel->grid(), Qt::LeftButton, Qt::ControlModifier,
                      panel->grid()->tileRect(0, 1).center());
    session->selectHead(1, 2);
    QVERIFY(QTest::qWaitFor([&] { return !session->isComputing(); }, 10000));
    const QString file = dir.filePath(QStringLiteral("model.attnlab"));
    QVERIFY(window->documents()->document()->saveAs(file));

    // A new lab over the demo model, then the file: tiny-gpt2 is read
    // again and shows what was saved.
    window->documents()->document()->startUntitled();
    const attn::Expected<QString> demo = demoModelFolder();
    QVERIFY(demo.ok());
    models->openModel(demo.value());
    QVERIFY(opened.wait(10000));
    QVERIFY(QTest::qWaitFor([&] { return !session->isComputing(); }, 10000));
    QVERIFY(session->ablatedHeads().empty());
    QVERIFY(window->documents()->document()->open(file).ok());
    QVERIFY(opened.wait(10000));
    QVERIFY(QTest::qWaitFor([&] { return !session->isComputing() && session->result(); }, 10000));
    QCOMPARE(QFileInfo(session->modelFolder()).canonicalFilePath(), QFileInfo(gpt2).canonicalFilePath());
    QCOMPARE(session->selectedLayer(), 1);
    QCOMPARE(session->selectedHead(), 2);
    QCOMPARE(session->temperature(), 0.7);
    QVERIFY(session->maskWhatIf() == attn::AttentionMask::sliding(3));
    QCOMPARE(int(session->ablatedHeads().size()), 1);
    QVERIFY(!window->documents()->document()->isModified());
    QCOMPARE(window->documents()->undoStack()->count(), 0);
    QVERIFY(panel->grid()->renderer().crossedTiles() == std::vector<int>{0 * 4 + 1});
    // The controls show them.
    auto* temperature = guitest::find<QDoubleSpinBox>(*panel, QStringLiteral("modelTemperatureBox"));
    auto* maskKind = guitest::find<QComboBox>(*panel, QStringLiteral("modelMaskCombo"));
    auto* maskWindow = guitest::find<QSpinBox>(*panel, QStringLiteral("modelMaskWindowSpin"));
    QVERIFY(temperature && maskKind && maskWindow);
    QCOMPARE(temperature->value(), 0.7);
    QCOMPARE(maskKind->currentData().toInt(), int(attn::AttentionMask::Kind::Sliding));
    QCOMPARE(maskWindow->value(), 3);
    attn::DecoderRunOptions options;
    options.divisors = attn::HeadDivisors::standard(session->config());
    QVERIFY(options.divisors.set(attn::ScaleMode::Custom, 2.5, session->config().headDim, 1, 0));
    options.mask = attn::AttentionMask::sliding(3);
    std::vector<int> ids;
    for (const ModelToken& t : session->resultTokens())
        ids.push_back(t.id);
    const attn::Expected<attn::DecoderResult> intact = session->model()->decoder->run(ids, options);
    QVERIFY(intact.ok());
    QVERIFY(session->result()->lastLogits == intact->lastLogits);
    options.headOutput = attn::ablationHook({{0, 1}}, attn::HeadAblation::Zero);
    const attn::Expected<attn::DecoderResult> ablated = session->model()->decoder->run(ids, options);
    QVERIFY(ablated.ok());
    QVERIFY(session->ablatedLogits() == ablated->lastLogits);

    // The same lab naming a folder that is gone: one line on the Model
    // tab, the lab itself opened (its file), the model as it was.
    QFile saved(file);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QByteArray text = saved.readAll();
    const QString gone = dir.filePath(QStringLiteral("gone"));
    text.replace(QFileInfo(gpt2).absoluteFilePath().toUtf8(), gone.toUtf8());
    const QString moved = dir.filePath(QStringLiteral("moved.attnlab"));
    QFile out(moved);
    QVERIFY(out.open(QIODevice::WriteOnly) && out.write(text) == text.size());
    out.close();
    QVERIFY(window->documents()->document()->open(moved).ok());
    QCOMPARE(window->documents()->document()->filePath(), moved);
    auto* message = guitest::find<QLabel>(*panel, QStringLiteral("modelMessage"));
    QVERIFY(message && message->isVisible());
    QVERIFY2(message->text().contains(gone) && !message->text().contains(QLatin1Char('\n')),
             qPrintable(message->text()));
    QCOMPARE(QFileInfo(session->modelFolder()).canonicalFilePath(), QFileInfo(gpt2).canonicalFilePath());
    QVERIFY(!session->isLoading());
}

QTEST_MAIN(TestHeadLab)
#include "tst_headlab.moc"
