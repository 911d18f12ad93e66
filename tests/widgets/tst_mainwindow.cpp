// SPDX-License-Identifier: GPL-3.0-or-later
// The main window driven through its real widgets: typing, sliders, combo
// boxes, table edits, clicks and keys, checked against the engine called
// directly with the same inputs.

#include "mainwindow.h"

#include "attention.h"
#include "documentcontroller.h"
#include "focuspanel.h"
#include "heatmapview.h"
#include "labdocument.h"
#include "matrixtablemodel.h"
#include "model.h"
#include "pipelineview.h"
#include "presentation.h"
#include "scaling_lab.h"
#include "tokenstrip.h"
#include "guitest.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QCheckBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLocale>
#include <QLineEdit>
#include <QSet>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include <cmath>
#include <limits>
#include <numeric>

using guitest::find;

using namespace attnlab;

namespace {

double maxAbsDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numeric_limits<double>::infinity();
    double worst = 0.0;
    for (Eigen::Index i = 0; i < a.size(); ++i) {
        const double x = a.data()[i], y = b.data()[i];
        if (std::isinf(x) && std::isinf(y) && (x < 0) == (y < 0))
            continue;
        worst = std::max(worst, std::abs(x - y));
    }
    return worst;
}

struct Expected {
    attn::Model model;
    attn::AttentionResult result;
    QStringList tokens;
};

Expected engine(const attn::ModelConfig& config, const attn::AttentionOptions& options = {})
{
    Expected e;
    attn::Expected<attn::Model> model = attn::buildModel(config);
    if (!model)
        qFatal("buildModel: %s", model.error().message.c_str());
    e.model = model.value();
    attn::Expected<attn::AttentionResult> r =
        attn::computeAttention(e.model.X, e.model.Wq, e.model.Wk, e.model.Wv, options);
    if (!r)
        qFatal("computeAttention: %s", r.error().message.c_str());
    e.result = r.value();
    for (const std::string& t : e.model.tokenization.tokens)
        e.tokens.append(QString::fromStdString(t));
    return e;
}

QVector<double> rowOf(const attn::Matrix& m, int row)
{
    QVector<double> values;
    for (int j = 0; j < m.cols(); ++j)
        values.append(m(row, j));
    return values;
}

int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            colours.insert(image.pixel(x, y));
    return colours.size();
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void opensOnTheArticleExample();
    void typingASentenceUpdatesEveryMap();
    void typingANewWordKeepsOtherTokensIdsAndColours();
    void refusedCellMessageStaysUntilAValidEdit();
    void dKSliderUpdatesTheMaps();
    void scaleModeNoneLeavesScoresUnscaled();
    void sharedAndIndependentColourRanges();
    void tableEditUpdatesTheMaps();
    void badTableTextIsRefused();
    void emptySentenceShowsProblemAndKeepsMaps();
    void renumberingIsExplained();
    void washedOutScaledMapIsSaid();
    void clickingARowFocusesThatQuery();
    void arrowKeysMoveTheFocus();
    void focusPanelSummarisesManyKeys();
    void hiddenMatrixTablesCatchUpWhenShown();
    void clickingATokenFocusesIt();
    void hoverTextGivesEveryStage();
    void renderedMapsAreNotBlank();
    void settingsRememberLastParameters();
    void commandLineParametersWin();
    void resetToArticleExample();

private:
    void compareMaps(MainWindow& window, const Expected& want);

    QTemporaryDir settingsDir_;
};

void TestMainWindow::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestMainWindow::init()
{
    QSettings().clear();
}

void TestMainWindow::compareMaps(MainWindow& window, const Expected& want)
{
    auto* raw = find<HeatmapView>(window, QStringLiteral("rawScoresMap"));
    auto* scaled = find<HeatmapView>(window, QStringLiteral("scaledScoresMap"));
    auto* weights = find<HeatmapView>(window, QStringLiteral("weightsMap"));
    QCOMPARE(maxAbsDiff(raw->values(), want.result.scores), 0.0);
    QCOMPARE(maxAbsDiff(scaled->values(), want.result.scaledMatrix()), 0.0);
    QCOMPARE(maxAbsDiff(weights->values(), want.result.weightsMatrix()), 0.0);
    // Repeated words are labelled with their positions ("the#1").
    for (HeatmapView* map : {raw, scaled, weights}) {
        QCOMPARE(map->rowLabels(), positionedLabels(want.tokens));
        QCOMPARE(map->columnLabels(), positionedLabels(want.tokens));
    }
    QCOMPARE(maxAbsDiff(find<HeatmapView>(window, QStringLiteral("queryMap"))->values(), want.result.Q), 0.0);
    QCOMPARE(maxAbsDiff(find<HeatmapView>(window, QStringLiteral("keyMap"))->values(), want.result.K), 0.0);
    QCOMPARE(maxAbsDiff(find<HeatmapView>(window, QStringLiteral("valueMap"))->values(), want.result.V), 0.0);
    QCOMPARE(
        maxAbsDiff(find<HeatmapView>(window, QStringLiteral("contextMap"))->values(), want.result.context),
        0.0);
    QCOMPARE(find<HeatmapView>(window, QStringLiteral("contextMap"))->rowLabels(),
             positionedLabels(want.tokens));
}

void TestMainWindow::opensOnTheArticleExample()
{
    MainWindow window;
    window.restoreSettings();
    compareMaps(window, engine({}));
    QCOMPARE(find<QLineEdit>(window, QStringLiteral("sentenceEdit"))->text(),
             QString::fromLatin1(attn::kArticleSentence));
    QCOMPARE(find<QSpinBox>(window, QStringLiteral("seedSpin"))->value(), 123);
    QCOMPARE(find<QSpinBox>(window, QStringLiteral("dModelSpin"))->value(), 16);
    QCOMPARE(attn::dkFromSliderPosition(find<QSlider>(window, QStringLiteral("dKSlider"))->value()), 24);
    QCOMPARE(find<QSpinBox>(window, QStringLiteral("dVSpin"))->value(), 28);
    QCOMPARE(window.focusQuery(), 1);  // the article's query_2, "is"
    QVERIFY(find<QLabel>(window, QStringLiteral("focusTitle"))->text().contains("\"is\""));
    QCOMPARE(find<TokenStrip>(window, QStringLiteral("tokenStrip"))->ids(), QList<int>({0, 4, 5, 2, 1, 3}));
    QVERIFY(find<QLabel>(window, QStringLiteral("scaleOperationLabel"))->text().contains("√24"));
}

void TestMainWindow::typingASentenceUpdatesEveryMap()
{
    MainWindow window;
    auto* edit = find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("the cat saw the dog"));
    QCOMPARE(edit->text(), QStringLiteral("the cat saw the dog"));

    attn::ModelConfig config;
    config.sentence = "the cat saw the dog";
    const Expected want = engine(config);
    QCOMPARE(want.tokens, QStringList({"the", "cat", "saw", "the", "dog"}));
    compareMaps(window, want);

    auto* strip = find<TokenStrip>(window, QStringLiteral("tokenStrip"));
    QCOMPARE(strip->tokens(), want.tokens);
    QCOMPARE(strip->ids()[0], strip->ids()[3]);  // "the" twice, one id
    QCOMPARE(strip->chipColor(0), strip->chipColor(3));
    QVERIFY(strip->chipColor(0) != strip->chipColor(1));
}

void TestMainWindow::dKSliderUpdatesTheMaps()
{
    MainWindow window;
    auto* slider = find<QSlider>(window, QStringLiteral("dKSlider"));
    auto* spin = find<QSpinBox>(window, QStringLiteral("dKSpin"));
    slider->setFocus();
    // The slider is logarithmic: a page is an octave, an arrow the previous
    // d_k of the lab's grid (..., 10, 11, 12, ...).
    QTest::keyClick(slider, Qt::Key_PageDown);
    QCOMPARE(spin->value(), 12);
    QTest::keyClick(slider, Qt::Key_Left);
    QCOMPARE(spin->value(), 11);
    QCOMPARE(window.session()->inputs().config.dK, 11);

    attn::ModelConfig config;
    config.dK = 11;
    const Expected want = engine(config);
    compareMaps(window, want);
    QCOMPARE(find<HeatmapView>(window, QStringLiteral("queryMap"))->values().cols(), 11);
    QVERIFY(find<QLabel>(window, QStringLiteral("scaleOperationLabel"))->text().contains("√11"));
    QVERIFY(find<HeatmapView>(window, QStringLiteral("scaledScoresMap"))->title().contains("√11"));
}

void TestMainWindow::scaleModeNoneLeavesScoresUnscaled()
{
    MainWindow window;
    auto* combo = find<QComboBox>(window, QStringLiteral("scaleCombo"));
    combo->setCurrentIndex(combo->findData(int(attn::ScaleMode::None)));
    auto* raw = find<HeatmapView>(window, QStringLiteral("rawScoresMap"));
    auto* scaled = find<HeatmapView>(window, QStringLiteral("scaledScoresMap"));
    QCOMPARE(maxAbsDiff(scaled->values(), raw->values()), 0.0);
    attn::AttentionOptions options;
    options.scale = attn::ScaleMode::None;
    compareMaps(window, engine({}, options));
    QVERIFY(!find<QDoubleSpinBox>(window, QStringLiteral("divisorSpin"))->isEnabled());

    combo->setCurrentIndex(combo->findData(int(attn::ScaleMode::Custom)));
    auto* divisor = find<QDoubleSpinBox>(window, QStringLiteral("divisorSpin"));
    QVERIFY(divisor->isEnabled());
    divisor->setValue(3.0);
    options.scale = attn::ScaleMode::Custom;
    options.customDivisor = 3.0;
    compareMaps(window, engine({}, options));

    auto* causal = find<QCheckBox>(window, QStringLiteral("causalCheck"));
    QTest::mouseClick(causal, Qt::LeftButton, {},
                      causal->rect().center() - QPoint(causal->width() / 2 - 8, 0));
    QVERIFY(causal->isChecked());
    options.causal = true;
    compareMaps(window, engine({}, options));
}

void TestMainWindow::sharedAndIndependentColourRanges()
{
    MainWindow window;
    auto* raw = find<HeatmapView>(window, QStringLiteral("rawScoresMap"));
    auto* scaled = find<HeatmapView>(window, QStringLiteral("scaledScoresMap"));
    auto* weights = find<HeatmapView>(window, QStringLiteral("weightsMap"));
    const attn::AttentionResult r = engine({}).result;
    const double rawMax = r.scores.cwiseAbs().maxCoeff();
    QCOMPARE(raw->rangeHigh(), rawMax);
    QCOMPARE(scaled->rangeHigh(), rawMax);  // shared: the scaled map looks paler
    QCOMPARE(weights->rangeLow(), 0.0);
    QCOMPARE(weights->rangeHigh(), 1.0);

    find<QCheckBox>(window, QStringLiteral("independentRangesCheck"))->setChecked(true);
    QCOMPARE(raw->rangeHigh(), rawMax);
    QCOMPARE(scaled->rangeHigh(), r.scaledMatrix().cwiseAbs().maxCoeff());
    QVERIFY(find<QAction>(window, QStringLiteral("independentRangesAction"))->isChecked());
}

void TestMainWindow::tableEditUpdatesTheMaps()
{
    MainWindow window;
    auto* model = find<MatrixTableModel>(window, QStringLiteral("matrixModelX"));
    QCOMPARE(model->rowCount(), 6);
    QCOMPARE(model->columnCount(), 16);
    QCOMPARE(model->headerData(1, Qt::Vertical).toString(), QStringLiteral("2 is"));
    QVERIFY(model->setData(model->index(1, 3), QStringLiteral("1.25")));
    QCOMPARE(model->data(model->index(1, 3), Qt::EditRole).toString(), QStringLiteral("1.25"));

    Expected want = engine({});
    want.model.X(1, 3) = 1.25;
    want.result =
        attn::computeAttention(want.model.X, want.model.Wq, want.model.Wk, want.model.Wv, {}).value();
    compareMaps(window, want);
    QVERIFY(find<QLabel>(window, QStringLiteral("matrixOriginLabel"))->text().contains("by hand"));

    auto* wq = find<MatrixTableModel>(window, QStringLiteral("matrixModelWq"));
    QCOMPARE(wq->rowCount(), 16);
    QCOMPARE(wq->columnCount(), 24);
    QVERIFY(wq->setData(wq->index(0, 23), QStringLiteral("-2")));
    want.model.Wq(0, 23) = -2.0;
    want.result =
        attn::computeAttention(want.model.X, want.model.Wq, want.model.Wk, want.model.Wv, {}).value();
    compareMaps(window, want);

    // Regenerate drops the edits.
    find<QAction>(window, QStringLiteral("regenerateAction"))->trigger();
    compareMaps(window, engine({}));
}

void TestMainWindow::badTableTextIsRefused()
{
    MainWindow window;
    auto* model = find<MatrixTableModel>(window, QStringLiteral("matrixModelWk"));
    const QString old = model->data(model->index(2, 5), Qt::EditRole).toString();
    QVERIFY(!model->setData(model->index(2, 5), QStringLiteral("abc")));
    QCOMPARE(model->data(model->index(2, 5), Qt::EditRole).toString(), old);
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains(QStringLiteral("W_k(3, 6)")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("abc")), qPrintable(message));
    QVERIFY(!model->setData(model->index(2, 5), QStringLiteral("nan")));
    QVERIFY(!model->setData(model->index(2, 5), std::numeric_limits<double>::infinity()));
    QCOMPARE(model->data(model->index(2, 5), Qt::EditRole).toString(), old);
    compareMaps(window, engine({}));
    QVERIFY(!window.statusBar()->currentMessage().isEmpty());

    // A valid edit after it takes the stale refusal out of the status bar.
    QVERIFY(model->setData(model->index(2, 5), QStringLiteral("0.5")));
    QCOMPARE(window.statusBar()->currentMessage(), QString());
    // Another window's message is left alone by edits.
    window.statusBar()->showMessage(QStringLiteral("Saved."));
    QVERIFY(model->setData(model->index(2, 5), QStringLiteral("0.25")));
    QCOMPARE(window.statusBar()->currentMessage(), QStringLiteral("Saved."));
}

void TestMainWindow::emptySentenceShowsProblemAndKeepsMaps()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* edit = find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QVERIFY(edit->text().isEmpty());
    auto* problem = find<QLabel>(window, QStringLiteral("problemLabel"));
    QVERIFY(problem->isVisible());
    QVERIFY(!problem->text().isEmpty());
    compareMaps(window, engine({}));  // the last good result stays
    QTest::keyClicks(edit, QStringLiteral("back again"));
    QVERIFY(!problem->isVisible());
    attn::ModelConfig config;
    config.sentence = "back again";
    compareMaps(window, engine(config));
}

// The article's initialisation numbers the vocabulary in sorted order: a
// new word that sorts first moves every other word's id, and the window says
// why beside the tokens; a word that sorts last moves none, and no note.
void TestMainWindow::renumberingIsExplained()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::Article);
    auto* edit = find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    auto* note = find<QLabel>(window, QStringLiteral("renumberNoteLabel"));
    QVERIFY(!note->isVisible());
    edit->end(false);
    // A word sorting after every other ("zz"): nobody moves, no note.
    const QList<int> article = window.session()->published()->ids();
    QTest::keyClicks(edit, QStringLiteral(" zz"));
    QCOMPARE(window.session()->published()->ids().mid(0, 6), article);
    QVERIFY(!note->isVisible());

    // "Aa" sorts before "Life" and the rest: every word's id goes up by one.
    const QList<int> before = window.session()->published()->ids();
    QTest::keyClicks(edit, QStringLiteral(" Aa"));
    const QList<int> after = window.session()->published()->ids();
    const attn::Tokenization t =
        attn::tokenize("Life is short, eat dessert first zz Aa", attn::TokenizerMode::Article).value();
    QCOMPARE(after, QList<int>(t.ids.begin(), t.ids.end()));
    for (int i = 0; i < before.size(); ++i)
        QCOMPARE(after[i], before[i] + 1);
    // Said on screen, naming the word as typed out and a word that moved.
    QVERIFY(note->isVisible());
    QVERIFY2(note->text().contains(QStringLiteral("“Aa”")), qPrintable(note->text()));
    QVERIFY2(note->text().contains(QStringLiteral("so 7 word")), qPrintable(note->text()));
    QVERIFY2(note->text().contains(QStringLiteral("“Life” %1 → %2").arg(before[0]).arg(before[0] + 1)),
             qPrintable(note->text()));

    // The word taken out again: the ids are back, the note goes.
    QTest::keyClick(edit, Qt::Key_Backspace);
    QVERIFY(note->isVisible());  // "A" still sorts first
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClick(edit, Qt::Key_Backspace);
    QCOMPARE(window.session()->published()->ids(), before);
    QVERIFY(!note->isVisible());

    // The other initialisations keep each word's id: no note either.
    window.session()->setInit(attn::InitMode::UnitVariance);
    edit->home(false);
    QTest::keyClicks(edit, QStringLiteral("Ab "));
    QVERIFY(!note->isVisible());
}

// At d_k 512 with the shared colour range the scaled scores reach a twenty-
// second of it (1/sqrt(512)): the map says so, and its link switches to
// independent ranges; at the article's d_k 24 (a fifth) nothing is said.
void TestMainWindow::washedOutScaledMapIsSaid()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* note = find<QLabel>(window, QStringLiteral("scaledRangeNoteLabel"));
    auto* independent = find<QCheckBox>(window, QStringLiteral("independentRangesCheck"));
    QVERIFY(!independent->isChecked());
    QVERIFY(note->isHidden());
    find<QSpinBox>(window, QStringLiteral("dKSpin"))->setValue(512);
    QTRY_COMPARE(window.session()->published()->dK(), 512);
    QVERIFY(!note->isHidden());
    const attn::AttentionResult& r = *window.session()->published()->shown();
    const double share = (r.maxAbsKeptScore / r.divisor) / r.maxAbsScore;
    QVERIFY(share < 0.1);
    QVERIFY2(note->text().contains(
                 QStringLiteral("%1% of the colour range").arg(QLocale().toString(100.0 * share, 'f', 0))),
             qPrintable(note->text()));
    QVERIFY(QMetaObject::invokeMethod(note, "linkActivated", Q_ARG(QString, QStringLiteral("independent"))));
    QVERIFY(independent->isChecked());
    QVERIFY(note->isHidden());
    independent->setChecked(false);
    QVERIFY(!note->isHidden());
    find<QSpinBox>(window, QStringLiteral("dKSpin"))->setValue(24);
    QTRY_COMPARE(window.session()->published()->dK(), 24);
    QVERIFY(note->isHidden());
}

void TestMainWindow::clickingARowFocusesThatQuery()
{
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* weights = find<HeatmapView>(window, QStringLiteral("weightsMap"));
    const QRect cell = weights->cellRect(3, 2);
    QVERIFY(!cell.isEmpty());
    QTest::mouseClick(weights, Qt::LeftButton, {}, cell.center());
    QCOMPARE(window.focusQuery(), 3);
    FocusPanel* focus = find<FocusPanel>(window, QStringLiteral("focusPanel"));
    QCOMPARE(focus->query(), 3);
    const attn::AttentionResult r = engine({}).result;
    QCOMPARE(focus->scoreBarValues(), rowOf(r.scores, 3));
    QCOMPARE(focus->weightBarValues(), rowOf(r.weightsMatrix(), 3));
    QVERIFY(find<QLabel>(window, QStringLiteral("focusTitle"))->text().contains("\"eat\""));
    QCOMPARE(weights->focusRow(), 3);
    QCOMPARE(find<TokenStrip>(window, QStringLiteral("tokenStrip"))->focusIndex(), 3);
    QCOMPARE(maxAbsDiff(find<HeatmapView>(window, QStringLiteral("focusContextVector"))->values(),
                        r.context.row(3)),
             0.0);
    // The table walks through every stage and shows the sum of the weights.
    const QAbstractItemModel* table = find<QTableView>(*focus, QStringLiteral("focusTable"))->model();
    auto text = [table](int row, int col) { return table->index(row, col).data().toString(); };
    QCOMPARE(table->rowCount(), 7);
    QCOMPARE(text(4, 0), QStringLiteral("5 dessert"));
    QCOMPARE(text(4, 1), formatForDisplay(r.scores(3, 4)));
    QCOMPARE(text(4, 2), formatForDisplay(r.scaled(3, 4)));
    QCOMPARE(text(4, 3), formatForDisplay(r.weights(3, 4)));
    QCOMPARE(text(6, 3), formatForDisplay(r.weightsMatrix().row(3).sum()));
    QCOMPARE(text(6, 3), QStringLiteral("1.0000"));
    // Every key's row is written out in the mix when there are few keys.
    QVERIFY(find<QLabel>(window, QStringLiteral("focusMixingLabel"))
                ->text()
                .contains(QStringLiteral("%1·v(first)").arg(QString::number(r.weights(3, 5), 'f', 3))));
}

void TestMainWindow::focusPanelSummarisesManyKeys()
{
    // Past 8 keys the mix names the 8 largest weights, largest first, and
    // what the other keys add up to; the table still lists every key.
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* edit = find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("one two three four five six seven eight nine ten eleven twelve"));
    const attn::AttentionResult& r = *window.session()->published()->shown();
    QCOMPARE(r.tokens(), 12);
    const int q = window.focusQuery();
    std::vector<int> order(12);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return r.weights(q, a) > r.weights(q, b); });
    const QStringList tokens = window.session()->published()->tokens();
    const QString mix = find<QLabel>(window, QStringLiteral("focusMixingLabel"))->text();
    QVERIFY2(mix.startsWith(QStringLiteral("z_%1 = %2·v(%3) + ")
                                .arg(q + 1)
                                .arg(QString::number(r.weights(q, order[0]), 'f', 3), tokens[order[0]])),
             qPrintable(mix));
    double rest = 0.0;
    for (int k = 8; k < 12; ++k)
        rest += r.weights(q, order[std::size_t(k)]);
    QVERIFY2(mix.endsWith(
                 QStringLiteral("(4 more keys with %1 of the weight)").arg(QString::number(rest, 'f', 3))),
             qPrintable(mix));
    const QAbstractItemModel* table = find<QTableView>(window, QStringLiteral("focusTable"))->model();
    QCOMPARE(table->rowCount(), 13);
    QCOMPARE(table->index(11, 0).data().toString(), QStringLiteral("12 twelve"));
    QCOMPARE(table->index(11, 3).data().toString(), formatForDisplay(r.weights(q, 11)));

    // With a causal mask query 3 mixes only the three keys it sees, in order.
    find<QCheckBox>(window, QStringLiteral("causalCheck"))->setChecked(true);
    window.setFocusQuery(2);
    const attn::AttentionResult& c = *window.session()->published()->shown();
    QVERIFY(c.causal);
    QCOMPARE(find<QLabel>(window, QStringLiteral("focusMixingLabel"))->text(),
             QStringLiteral("z_3 = %1·v(one) + %2·v(two) + %3·v(three)")
                 .arg(QString::number(c.weights(2, 0), 'f', 3), QString::number(c.weights(2, 1), 'f', 3),
                      QString::number(c.weights(2, 2), 'f', 3)));
}

void TestMainWindow::hiddenMatrixTablesCatchUpWhenShown()
{
    // Tables off screen are not rebuilt on every d_k step; shown, they hold
    // the current matrices.
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    MatrixTableModel* wq = find<MatrixTableModel>(window, QStringLiteral("matrixModelWq"));
    auto* dock = find<QDockWidget>(window, QStringLiteral("matricesDock"));
    QTRY_VERIFY(!wq->isLive());  // tabbed behind the focused query
    find<QSlider>(window, QStringLiteral("dKSlider"))->setValue(attn::sliderPositionFromDk(8));
    QCOMPARE(window.session()->published()->dK(), 8);
    QCOMPARE(wq->columnCount(), 24);  // as last announced to the view

    dock->raise();
    auto* view = find<QTableView>(window, QStringLiteral("matrixTableWq"));
    find<QTabWidget>(window, QStringLiteral("matrixTabs"))->setCurrentWidget(view);
    QTRY_VERIFY(view->isVisible());
    QTRY_VERIFY(wq->isLive());
    QCOMPARE(wq->columnCount(), 8);
    QCOMPARE(view->model()->columnCount(), 8);
    QCOMPARE(wq->index(2, 7).data(Qt::EditRole).toString(),
             QString::number(window.session()->inputs().matrix(MatrixId::Wq)(2, 7), 'g', 17));
}

void TestMainWindow::arrowKeysMoveTheFocus()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* weights = find<HeatmapView>(window, QStringLiteral("weightsMap"));
    QCOMPARE(window.focusQuery(), 1);
    QTest::keyClick(weights, Qt::Key_Down);
    QCOMPARE(window.focusQuery(), 2);
    QTest::keyClick(weights, Qt::Key_Down);
    QTest::keyClick(weights, Qt::Key_Down);
    QCOMPARE(window.focusQuery(), 4);
    QCOMPARE(find<FocusPanel>(window, QStringLiteral("focusPanel"))->scoreBarValues(),
             rowOf(engine({}).result.scores, 4));
    for (int i = 0; i < 10; ++i)
        QTest::keyClick(weights, Qt::Key_Up);
    QCOMPARE(window.focusQuery(), 0);  // stops at the first query
    QTest::keyClick(find<TokenStrip>(window, QStringLiteral("tokenStrip")), Qt::Key_Down);
    QCOMPARE(window.focusQuery(), 1);
    // A shorter sentence clamps the focus to the tokens that remain; the
    // chosen query comes back once the sentence is long enough again.
    window.setFocusQuery(4);
    auto* edit = find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("two words"));
    QCOMPARE(window.focusQuery(), 1);
    QCOMPARE(find<FocusPanel>(window, QStringLiteral("focusPanel"))->scoreBarValues().size(), 2);
    QTest::keyClicks(edit, QStringLiteral(" and three more"));
    QCOMPARE(window.focusQuery(), 4);
    QVERIFY(find<QLabel>(window, QStringLiteral("focusTitle"))->text().contains("\"more\""));
}

void TestMainWindow::clickingATokenFocusesIt()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* strip = find<TokenStrip>(window, QStringLiteral("tokenStrip"));
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->chipRect(5).center());
    QCOMPARE(window.focusQuery(), 5);
    QVERIFY(find<QLabel>(window, QStringLiteral("focusTitle"))->text().contains("\"first\""));
}

void TestMainWindow::hoverTextGivesEveryStage()
{
    MainWindow window;
    Session* session = window.session();
    const attn::AttentionResult r = engine({}).result;
    const QString tip = scoreCellToolTip(*session, 1, 4);
    const QString expected = QStringLiteral("q(is) · k(dessert) = %1 ÷ √24 = %2 → softmax %3")
                                 .arg(formatForDisplay(r.scores(1, 4)), formatForDisplay(r.scaled(1, 4)),
                                      formatForDisplay(r.weights(1, 4)));
    QVERIFY2(tip.contains(expected), qPrintable(tip + " / " + expected));
    QCOMPARE(formatForDisplay(r.weights(1, 4)), QStringLiteral("0.4917"));  // the article's value

    session->setCausal(true);
    const QString masked = scoreCellToolTip(*session, 1, 4);
    QVERIFY2(masked.contains(QStringLiteral("masked")), qPrintable(masked));
    QVERIFY(!scoreCellToolTip(*session, 4, 1).contains(QStringLiteral("masked")));
}

void TestMainWindow::renderedMapsAreNotBlank()
{
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(50);
    const QImage shot = window.grab().toImage();
    QVERIFY(!shot.isNull());
    const qreal dpr = shot.devicePixelRatio();
    for (const QString& name :
         {QStringLiteral("rawScoresMap"), QStringLiteral("scaledScoresMap"), QStringLiteral("weightsMap")}) {
        auto* map = find<HeatmapView>(window, name);
        QVERIFY2(map->isVisible(), qPrintable(name));
        QVERIFY2(map->cellsArea().width() >= 120, qPrintable(name));
        QVERIFY2(map->cellTextVisible(), qPrintable(name + " has no room for its numbers"));
        const QRect area(map->mapTo(&window, map->cellsArea().topLeft()), map->cellsArea().size());
        const QRect pixels(area.topLeft() * dpr, area.size() * dpr);
        const int colours = distinctColours(shot.copy(pixels));
        QVERIFY2(colours >= 20, qPrintable(QStringLiteral("%1: %2 colours").arg(name).arg(colours)));
    }
    auto* plot = find<QCustomPlot>(window, QStringLiteral("focusPlot"));
    QVERIFY(plot->isVisible());
    const QRect plotArea(plot->mapTo(&window, QPoint(0, 0)) * dpr, plot->size() * dpr);
    QVERIFY(distinctColours(shot.copy(plotArea)) >= 6);
}

void TestMainWindow::settingsRememberLastParameters()
{
    {
        MainWindow window;
        window.restoreSettings();
        window.session()->setSentence(QStringLiteral("a b a"));
        window.session()->setDK(10);
        window.session()->setSeed(99);
        window.session()->setCausal(true);
        window.session()->setInit(attn::InitMode::UnitVariance);
        find<PipelineView>(window, QStringLiteral("pipelineView"))->setIndependentRanges(true);
        window.close();  // saves
    }
    MainWindow window;
    window.restoreSettings();
    const attn::ModelConfig& c = window.session()->inputs().config;
    QCOMPARE(c.sentence, std::string("a b a"));
    QCOMPARE(c.dK, 10);
    QCOMPARE(c.seed, std::uint64_t(99));
    QCOMPARE(c.init, attn::InitMode::UnitVariance);
    QVERIFY(window.session()->inputs().options.causal);
    QVERIFY(find<PipelineView>(window, QStringLiteral("pipelineView"))->independentRanges());
    QCOMPARE(find<QLineEdit>(window, QStringLiteral("sentenceEdit"))->text(), QStringLiteral("a b a"));
    QCOMPARE(find<QSpinBox>(window, QStringLiteral("dKSpin"))->value(), 10);
    QVERIFY(find<QCheckBox>(window, QStringLiteral("causalCheck"))->isChecked());
    attn::AttentionOptions options;
    options.causal = true;
    compareMaps(window, engine(c, options));
}

void TestMainWindow::commandLineParametersWin()
{
    {
        MainWindow saved;
        saved.session()->setDK(10);
        saved.saveSettings();
    }
    WindowStart start;
    start.haveConfig = true;
    start.config.sentence = "from the command line";
    start.config.dK = 3;
    start.options.scale = attn::ScaleMode::None;
    MainWindow window;
    window.restoreSettings(start);
    compareMaps(window, engine(start.config, start.options));
}

void TestMainWindow::resetToArticleExample()
{
    MainWindow window;
    window.session()->setSentence(QStringLiteral("something else"));
    window.session()->setDModel(3);
    window.session()->setCausal(true);
    window.documents()->document()->setUnsavedPrompt(
        [](const QString&) { return LabDocument::UnsavedAnswer::Discard; });
    find<QAction>(window, QStringLiteral("resetAction"))->trigger();
    compareMaps(window, engine({}));
    QCOMPARE(window.focusQuery(), 1);
    QCOMPARE(find<QSpinBox>(window, QStringLiteral("dModelSpin"))->value(), 16);
    QVERIFY(!find<QCheckBox>(window, QStringLiteral("causalCheck"))->isChecked());
}

// Unit-variance initialisation: typing a new word at the end keeps every
// other token's id, chip colour and embedding (no renumbering).
void TestMainWindow::typingANewWordKeepsOtherTokensIdsAndColours()
{
    MainWindow window;
    window.session()->setInit(attn::InitMode::UnitVariance);
    auto* edit = find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("the zebra saw the dog"));
    auto* strip = find<TokenStrip>(window, QStringLiteral("tokenStrip"));
    const QList<int> ids = strip->ids();
    QCOMPARE(ids, QList<int>({0, 1, 2, 0, 3}));
    QList<QColor> colours;
    for (int i = 0; i < 5; ++i)
        colours.append(strip->chipColor(i));
    const attn::Matrix X = window.session()->inputs().matrix(MatrixId::X);

    // "apple" sorts before every other word: a sorted vocabulary would
    // renumber them all.
    edit->end(false);
    QTest::keyClicks(edit, QStringLiteral(" apple"));
    QCOMPARE(strip->tokens().size(), 6);
    QCOMPARE(strip->ids().mid(0, 5), ids);
    QCOMPARE(strip->ids()[5], 4);
    for (int i = 0; i < 5; ++i)
        QCOMPARE(strip->chipColor(i), colours[i]);
    QCOMPARE(maxAbsDiff(window.session()->inputs().matrix(MatrixId::X).topRows(5), X), 0.0);
}

// Typed into the W_q table: "3,5" is refused with a message under the table
// and on the cell (tinted, its tooltip) that names the point as the decimal
// separator; it stays through other changes, and a later valid edit clears it.
void TestMainWindow::refusedCellMessageStaysUntilAValidEdit()
{
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    find<QDockWidget>(window, QStringLiteral("matricesDock"))->raise();
    auto* view = find<QTableView>(window, QStringLiteral("matrixTableWq"));
    find<QTabWidget>(window, QStringLiteral("matrixTabs"))->setCurrentWidget(view);
    QTRY_VERIFY(view->isVisible());
    auto* message = find<QLabel>(window, QStringLiteral("matrixMessageLabel"));
    QVERIFY(!message->isVisible());
    const double old = window.session()->inputs().matrix(MatrixId::Wq)(1, 2);

    const auto typeInto = [&](int row, int col, const QString& text) {
        view->setFocus();
        view->setCurrentIndex(view->model()->index(row, col));
        QTest::keyClicks(view, text.left(1));  // opens the editor with the first key
        QWidget* editor = QApplication::focusWidget();
        QVERIFY(editor && editor != view);
        QTest::keyClicks(editor, text.mid(1));
        QTest::keyClick(editor, Qt::Key_Return);
        // The delegate commits the editor's text in a queued call.
        QTRY_VERIFY(QApplication::focusWidget() == view);
    };
    typeInto(1, 2, QStringLiteral("3,5"));
    QCOMPARE(window.session()->inputs().matrix(MatrixId::Wq)(1, 2), old);
    QVERIFY(message->isVisible());
    QVERIFY2(message->text().contains(QStringLiteral("W_q(2, 3)"))
                 && message->text().contains(QStringLiteral("the decimal separator is a point (3.5)")),
             qPrintable(message->text()));
    const QModelIndex cell = view->model()->index(1, 2);
    QVERIFY(cell.data(Qt::BackgroundRole).isValid());
    QCOMPARE(cell.data(Qt::ToolTipRole).toString(), message->text());
    QVERIFY(!view->model()->index(1, 3).data(Qt::BackgroundRole).isValid());

    // The status bar's hint may change; the message stays.
    window.session()->setCausal(true);
    QVERIFY(message->isVisible());

    typeInto(1, 2, QStringLiteral("3.5"));
    QCOMPARE(window.session()->inputs().matrix(MatrixId::Wq)(1, 2), 3.5);
    QVERIFY(!message->isVisible());
    QVERIFY(!cell.data(Qt::BackgroundRole).isValid());
    QVERIFY(cell.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("W_q(2, 3) = 3.5")));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
