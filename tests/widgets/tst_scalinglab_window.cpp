// SPDX-License-Identifier: GPL-3.0-or-later
// The d_k lab inside the main window, driven through its real widgets: the
// log-even d_k slider, the unscaled vs scaled tab and the lab's marker that
// follow it, lesson mode's highlights and the scaling demo. Numbers are
// checked against the engine called directly with the same inputs.

#include "mainwindow.h"

#include "attention.h"
#include "heatmapview.h"
#include "lessonpanel.h"
#include "model.h"
#include "parameterpanel.h"
#include "pipelineview.h"
#include "scaling_lab.h"
#include "scalingcompareview.h"
#include "scalinglabview.h"
#include "statistics.h"
#include "guitest.h"
#include "testconfigs.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFrame>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include <cmath>
#include <limits>
#include <string>

using guitest::find;

using namespace attnlab;
using Stage = LessonPanel::Stage;

namespace {

attn::AttentionResult engine(const attn::ModelConfig& config, const attn::AttentionOptions& options = {})
{
    attn::Expected<attn::Model> model = attn::buildModel(config);
    if (!model)
        qFatal("buildModel: %s", model.error().message.c_str());
    const attn::Model& m = model.value();
    attn::Expected<attn::AttentionResult> r = attn::computeAttention(m.X, m.Wq, m.Wk, m.Wv, options);
    if (!r)
        qFatal("computeAttention: %s", r.error().message.c_str());
    return r.value();
}

double maxAbsDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numeric_limits<double>::infinity();
    double worst = 0.0;
    for (Eigen::Index i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]));
    return worst;
}

bool nearlyEqual(double a, double b, double relative = 1e-12)
{
    return std::abs(a - b) <= relative * std::max({1.0, std::abs(a), std::abs(b)});
}

// The pixel in the middle of a frame's left border, as drawn.
QColor leftBorderColour(QWidget* frame)
{
    const QImage image = frame->grab().toImage();
    return image.pixelColor(1, image.height() / 2);
}

// The title of the current tab in the tab bar of the dock area holding `dock`.
QString currentDockTab(QMainWindow& window, QDockWidget* dock)
{
    for (QTabBar* bar : window.findChildren<QTabBar*>()) {
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i) == dock->windowTitle())
                return bar->tabText(bar->currentIndex());
    }
    return QString();
}

}  // namespace

class TestScalingLabWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void sliderReachesOneAnd1024();
    void sliderPositionsGiveTheirDk();
    void arrowKeysWalkTheLabGrid();
    void spinBoxTakesEveryInteger();
    void sliderMovesTheLabMarker();
    void compareReadoutsAreTheEngines_data();
    void compareReadoutsAreTheEngines();
    void lessonStepsHighlightTheirView();
    void scalingDemoSwitchesToUnitVariance();
    void labTabComputesWhenFirstShown();
    void labRunsInTheSessionsWorker();
    void hiddenCompareViewCatchesUpWhenShown();

private:
    QTemporaryDir settingsDir_;
};

void TestScalingLabWindow::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestScalingLabWindow::init()
{
    QSettings().clear();
}

void TestScalingLabWindow::sliderReachesOneAnd1024()
{
    MainWindow window;
    QSlider* slider = find<QSlider>(window, QStringLiteral("dKSlider"));
    QSpinBox* spin = find<QSpinBox>(window, QStringLiteral("dKSpin"));
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_Home);
    QCOMPARE(spin->value(), 1);
    QCOMPARE(window.session()->published()->dK(), 1);
    QCOMPARE(window.session()->published()->shown()->Q.cols(), 1);
    // A page is one octave: from 1 ten pages reach 1024 through every power of 2.
    for (int k = 1; k <= 10; ++k) {
        QTest::keyClick(slider, Qt::Key_PageUp);
        QCOMPARE(spin->value(), 1 << k);
        QCOMPARE(window.session()->published()->dK(), 1 << k);
    }
    QTest::keyClick(slider, Qt::Key_PageUp);  // stays at the end
    QCOMPARE(window.session()->published()->dK(), 1024);
    QTest::keyClick(slider, Qt::Key_Home);
    QTest::keyClick(slider, Qt::Key_End);
    QCOMPARE(spin->value(), 1024);
    QCOMPARE(window.session()->published()->shown()->K.cols(), 1024);
    // Equal travel per octave: evenly spaced positions give 1, 2, 4, ... 1024.
    QCOMPARE(slider->minimum(), 0);
    const int octave = slider->maximum() / 10;
    for (int k = 0; k <= 10; ++k) {
        slider->setValue(k * octave);
        QCOMPARE(window.session()->published()->dK(), 1 << k);
    }
}

void TestScalingLabWindow::sliderPositionsGiveTheirDk()
{
    MainWindow window;
    QSlider* slider = find<QSlider>(window, QStringLiteral("dKSlider"));
    QSpinBox* spin = find<QSpinBox>(window, QStringLiteral("dKSpin"));
    int previous = 0;
    for (int position = slider->minimum(); position <= slider->maximum(); position += 3) {
        slider->setValue(position);
        const int dK = attn::dkFromSliderPosition(position);
        QCOMPARE(window.session()->published()->dK(), dK);
        QCOMPARE(spin->value(), dK);
        QCOMPARE(slider->value(), position);  // the session's echo does not move it
        QVERIFY(dK >= previous);
        previous = dK;
    }
}

void TestScalingLabWindow::arrowKeysWalkTheLabGrid()
{
    MainWindow window;
    QSlider* slider = find<QSlider>(window, QStringLiteral("dKSlider"));
    QSpinBox* spin = find<QSpinBox>(window, QStringLiteral("dKSpin"));
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_Home);
    const std::vector<int> grid = attn::defaultScalingLabDks();
    QCOMPARE(grid.front(), 1);
    QCOMPARE(grid.back(), 1024);
    // Every arrow press changes d_k, to the next point of the lab's grid.
    for (std::size_t g = 1; g < grid.size(); ++g) {
        QTest::keyClick(slider, Qt::Key_Right);
        QCOMPARE(spin->value(), grid[g]);
        QCOMPARE(window.session()->published()->dK(), grid[g]);
    }
    QTest::keyClick(slider, Qt::Key_Up);
    QCOMPARE(spin->value(), 1024);
    for (std::size_t g = grid.size() - 1; g-- > 0;) {
        QTest::keyClick(slider, Qt::Key_Left);
        QCOMPARE(spin->value(), grid[g]);
    }
    QTest::keyClick(slider, Qt::Key_Down);
    QCOMPARE(spin->value(), 1);
    // From a d_k between grid points the next press goes to the neighbour.
    spin->setValue(100);  // grid: ..., 91, 108, ...
    QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(spin->value(), *std::upper_bound(grid.begin(), grid.end(), 100));
    spin->setValue(100);
    QTest::keyClick(slider, Qt::Key_Left);
    QCOMPARE(spin->value(), *(std::lower_bound(grid.begin(), grid.end(), 100) - 1));
}

void TestScalingLabWindow::spinBoxTakesEveryInteger()
{
    MainWindow window;
    QSlider* slider = find<QSlider>(window, QStringLiteral("dKSlider"));
    QSpinBox* spin = find<QSpinBox>(window, QStringLiteral("dKSpin"));
    QCOMPARE(spin->minimum(), 1);
    QCOMPARE(spin->maximum(), 1024);
    // 1000 and 1001 share no slider position; the spin box sets them exactly
    // and the slider shows the nearest position without changing d_k.
    for (int dK : {1000, 1001, 137, 2, 1023}) {
        spin->setValue(dK);
        QCOMPARE(window.session()->published()->dK(), dK);
        QCOMPARE(spin->value(), dK);
        QCOMPARE(slider->value(), attn::sliderPositionFromDk(dK));
        QCOMPARE(find<ScalingLabView>(window, QStringLiteral("scalingLabView"))->currentDk(), dK);
    }
    spin->setFocus();
    spin->setValue(7);
    QTest::keyClick(spin, Qt::Key_Up);
    QCOMPARE(window.session()->published()->dK(), 8);
}

void TestScalingLabWindow::sliderMovesTheLabMarker()
{
    MainWindow window;
    QSlider* slider = find<QSlider>(window, QStringLiteral("dKSlider"));
    ScalingLabView* lab = find<ScalingLabView>(window, QStringLiteral("scalingLabView"));
    QCOMPARE(lab->currentDk(), 24);  // the article example
    slider->setFocus();
    const Qt::Key keys[] = {Qt::Key_Right, Qt::Key_Right, Qt::Key_PageUp, Qt::Key_End,
                            Qt::Key_Left,  Qt::Key_Home,  Qt::Key_PageUp};
    for (Qt::Key key : keys) {
        QTest::keyClick(slider, key);
        const int dK = window.session()->published()->dK();
        QCOMPARE(lab->currentDk(), dK);
        for (int p = 0; p < ScalingLabView::kPlotCount; ++p) {
            QCPItemStraightLine* marker =
                find<QCPItemStraightLine>(*lab->plot(ScalingLabView::Plot(p)), QStringLiteral("dkMarker"));
            QCOMPARE(marker->point1->coords().x(), double(dK));
            QCOMPARE(marker->point2->coords().x(), double(dK));
        }
    }
    QCOMPARE(lab->currentDk(), 2);  // Home, then one octave
}

void TestScalingLabWindow::compareReadoutsAreTheEngines_data()
{
    QTest::addColumn<int>("init");
    QTest::addColumn<int>("position");
    QTest::addColumn<bool>("causal");
    const int end = attn::kDkSliderPositions;
    QTest::newRow("article init, d_k 1") << int(attn::InitMode::Article) << 0 << false;
    QTest::newRow("unit variance, d_k 1024") << int(attn::InitMode::UnitVariance) << end << false;
    QTest::newRow("standard normal, mid slider") << int(attn::InitMode::StandardNormal) << end / 2 << false;
    QTest::newRow("unit variance, causal, d_k 64")
        << int(attn::InitMode::UnitVariance) << end * 6 / 10 << true;
}

void TestScalingLabWindow::compareReadoutsAreTheEngines()
{
    QFETCH(int, init);
    QFETCH(int, position);
    QFETCH(bool, causal);
    MainWindow window;
    auto* initCombo = find<QComboBox>(window, QStringLiteral("initCombo"));
    initCombo->setCurrentIndex(initCombo->findData(init));
    find<QCheckBox>(window, QStringLiteral("causalCheck"))->setChecked(causal);
    find<QSlider>(window, QStringLiteral("dKSlider"))->setValue(position);

    attn::ModelConfig config;
    config.init = attn::InitMode(init);
    config.dK = attn::dkFromSliderPosition(position);
    attn::AttentionOptions options;
    options.causal = causal;
    const attn::AttentionResult result = engine(config, options);
    const attn::ScalingComparison want = attn::compareScaling(result);
    const attn::AttentionStats stats = attn::computeStatistics(result);

    ScalingCompareView* view = find<ScalingCompareView>(window, QStringLiteral("scalingCompareView"));
    QCOMPARE(view->comparison().dK, config.dK);
    QCOMPARE(view->initMode(), attn::InitMode(init));
    using R = ScalingCompareView::Readout;
    using S = ScalingCompareView::Side;
    const struct {
        R readout;
        double unscaled, scaled;
    } rows[] = {{R::Variance, want.varRaw, want.varScaled},
                {R::MeanMaxWeight, want.meanMaxRaw, want.meanMaxScaled},
                {R::MeanEntropy, want.meanEntropyRaw, want.meanEntropyScaled},
                {R::MeanJacobianNorm, want.meanGradRaw, want.meanGradScaled}};
    for (const auto& row : rows) {
        QCOMPARE(view->readoutValue(row.readout, S::Unscaled), row.unscaled);
        QCOMPARE(view->readoutValue(row.readout, S::Scaled), row.scaled);
        for (int side = 0; side < 2; ++side) {
            QTableWidgetItem* item = find<QTableWidget>(*view, QStringLiteral("scalingCompareTable"))
                                         ->item(int(row.readout), side);
            QCOMPARE(item->data(Qt::UserRole).toDouble(), side == 0 ? row.unscaled : row.scaled);
            QCOMPARE(item->text(), view->readoutText(row.readout, S(side)));
        }
    }
    QCOMPARE(maxAbsDiff(find<HeatmapView>(*view, QStringLiteral("unscaledWeightsMap"))->values(),
                        want.weightsUnscaled),
             0.0);
    QCOMPARE(maxAbsDiff(find<HeatmapView>(*view, QStringLiteral("scaledWeightsMap"))->values(),
                        want.weightsScaled),
             0.0);

    // With ÷ √d_k the scaled side is what the session's own statistics say.
    QVERIFY(nearlyEqual(want.varRaw, stats.rawVariance));
    QVERIFY(nearlyEqual(want.varScaled, stats.scaledVariance));
    QVERIFY(nearlyEqual(want.meanMaxScaled, stats.meanMaxWeight));
    QVERIFY(nearlyEqual(want.meanEntropyScaled, stats.meanEntropyNats));
    QVERIFY(nearlyEqual(want.meanGradScaled, stats.meanJacobianNorm));
    QVERIFY(maxAbsDiff(want.weightsScaled, result.weightsMatrix()) < 1e-12);
    // Dividing every score by √d_k divides their variance by d_k.
    QVERIFY(nearlyEqual(want.varRaw / want.varScaled, double(config.dK), 1e-9));

    // Lesson mode's live line reads the same comparison.
    find<LessonPanel>(window, QStringLiteral("lessonPanel"))->setStep(int(LessonPanel::Stage::DkExperiment));
    QVERIFY(find<LessonPanel>(window, QStringLiteral("lessonPanel"))
                ->liveText()
                .contains(QString::number(config.dK)));
}

void TestScalingLabWindow::lessonStepsHighlightTheirView()
{
    MainWindow window;
    window.resize(1300, 850);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    PipelineView* pipeline = find<PipelineView>(window, QStringLiteral("pipelineView"));
    LessonPanel* lesson = find<LessonPanel>(window, QStringLiteral("lessonPanel"));
    ParameterPanel* parameters = find<ParameterPanel>(window, QStringLiteral("parameterPanel"));
    auto* dock = find<QDockWidget>(window, QStringLiteral("lessonDock"));
    QAction* mode = find<QAction>(window, QStringLiteral("lessonModeAction"));
    QVERIFY(!dock->isVisible());
    QVERIFY(!mode->isChecked());
    QCOMPARE(mode->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    QCOMPARE(pipeline->highlightedMap(), nullptr);

    QTest::keyClick(&window, Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(dock->isVisible());
    QVERIFY(mode->isChecked());
    QCOMPARE(lesson->step(), 0);
    // A tab beside the focused query: looking at that tab keeps the lesson
    // open at its step.
    auto* focusDock = find<QDockWidget>(window, QStringLiteral("focusDock"));
    QVERIFY(window.tabifiedDockWidgets(focusDock).contains(dock));
    QTRY_COMPARE(currentDockTab(window, dock), dock->windowTitle());  // raised when opened
    lesson->setStep(2);
    focusDock->raise();
    QTRY_COMPARE(currentDockTab(window, dock), focusDock->windowTitle());
    QVERIFY(mode->isChecked());
    QCOMPARE(pipeline->highlightedMap(), pipeline->weightsMap());
    dock->raise();
    QTRY_COMPARE(currentDockTab(window, dock), dock->windowTitle());
    QCOMPARE(lesson->step(), 2);
    lesson->setStep(0);

    const QColor highlight = window.palette().color(QPalette::Highlight);
    auto* pipelinePage = find<QWidget>(window, QStringLiteral("pipelinePage"));
    auto* projectionsPage = find<QWidget>(window, QStringLiteral("projectionsPage"));
    const struct {
        Stage stage;
        HeatmapView* map;
        QWidget* page;
    } steps[] = {
        {Stage::Scores, pipeline->rawScoresMap(), pipelinePage},
        {Stage::Scale, pipeline->scaledScoresMap(), pipelinePage},
        {Stage::Softmax, pipeline->weightsMap(), pipelinePage},
        {Stage::Context, pipeline->contextMap(), projectionsPage},
    };
    for (int s = 0; s < 4; ++s) {
        QCOMPARE(lesson->stage(), steps[s].stage);
        QCOMPARE(pipeline->highlightedMap(), steps[s].map);
        QCOMPARE(pipeline->currentPage(), steps[s].page);
        QVERIFY(!parameters->isDkHighlighted());
        // Drawn: the highlighted map's frame in the highlight colour, the others not.
        for (HeatmapView* map : pipeline->maps()) {
            if (!map->isVisible())
                continue;
            QWidget* frame = map->parentWidget();
            QCOMPARE(frame->objectName(), map->objectName() + QStringLiteral("Frame"));
            QCOMPARE(leftBorderColour(frame) == highlight, map == steps[s].map);
        }
        QTest::mouseClick(find<QPushButton>(*lesson, QStringLiteral("lessonNextButton")), Qt::LeftButton);
    }
    QCOMPARE(lesson->stage(), Stage::DkExperiment);
    QCOMPARE(pipeline->highlightedMap(), nullptr);
    QCOMPARE(pipeline->currentPage(), find<ScalingCompareView>(window, QStringLiteral("scalingCompareView")));
    QVERIFY(parameters->isDkHighlighted());
    QCOMPARE(leftBorderColour(find<QFrame>(window, QStringLiteral("dKFrame"))), highlight);
    QVERIFY(parameters->dKSlider()->hasFocus());
    // The experiment's arrow keys go straight to d_k.
    const int before = window.session()->published()->dK();
    QTest::keyClick(parameters->dKSlider(), Qt::Key_Right);
    QVERIFY(window.session()->published()->dK() > before);
    QVERIFY(lesson->liveText().contains(QString::number(window.session()->published()->dK())));

    QTest::mouseClick(find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")), Qt::LeftButton);
    QCOMPARE(pipeline->highlightedMap(), pipeline->contextMap());
    QVERIFY(!parameters->isDkHighlighted());
    QVERIFY(leftBorderColour(find<QFrame>(window, QStringLiteral("dKFrame"))) != highlight);

    // Finish (on the last step, after the multi-head ones) closes the lesson and its highlights.
    lesson->setStep(LessonPanel::kStepCount - 1);
    QTest::mouseClick(find<QPushButton>(*lesson, QStringLiteral("lessonNextButton")), Qt::LeftButton);
    QVERIFY(!dock->isVisible());
    QVERIFY(!mode->isChecked());
    QCOMPARE(pipeline->highlightedMap(), nullptr);
    QVERIFY(!parameters->isDkHighlighted());

    // Opening it again starts from the scores.
    mode->trigger();
    QVERIFY(dock->isVisible());
    QCOMPARE(lesson->step(), 0);
    QCOMPARE(pipeline->highlightedMap(), pipeline->rawScoresMap());
    QCOMPARE(pipeline->currentPage(), pipelinePage);
    mode->trigger();
    QVERIFY(!dock->isVisible());
    QCOMPARE(pipeline->highlightedMap(), nullptr);
}

void TestScalingLabWindow::hiddenCompareViewCatchesUpWhenShown()
{
    // On screen, the comparison (two more n x n softmaxes) is computed only
    // while its view or the lesson is shown; a hidden view catches up with
    // the latest result when it comes on screen.
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ScalingCompareView* view = find<ScalingCompareView>(window, QStringLiteral("scalingCompareView"));
    QVERIFY(!view->isVisible());
    QVERIFY(!window.session()->comparisonWanted());
    find<QSlider>(window, QStringLiteral("dKSlider"))->setValue(attn::sliderPositionFromDk(256));
    QCOMPARE(window.session()->published()->dK(), 256);
    QVERIFY(view->comparison().dK != 256);  // skipped while hidden

    find<PipelineView>(window, QStringLiteral("pipelineView"))->showPage(view);
    QVERIFY(view->isVisible());
    QCOMPARE(view->comparison().dK, 256);
    QVERIFY(window.session()->comparisonWanted());
    attn::ModelConfig config;
    config.dK = 256;
    const attn::ScalingComparison want = attn::compareScaling(engine(config));
    QCOMPARE(view->comparison().varRaw, want.varRaw);
    QCOMPARE(maxAbsDiff(find<HeatmapView>(*view, QStringLiteral("scaledWeightsMap"))->values(),
                        want.weightsScaled),
             0.0);
    // While shown it follows every result.
    find<QSlider>(window, QStringLiteral("dKSlider"))->setValue(attn::sliderPositionFromDk(8));
    QCOMPARE(view->comparison().dK, 8);
}

void TestScalingLabWindow::scalingDemoSwitchesToUnitVariance()
{
    MainWindow window;
    ParameterPanel* parameters = find<ParameterPanel>(window, QStringLiteral("parameterPanel"));
    auto* compare = find<ScalingCompareView>(window, QStringLiteral("scalingCompareView"));
    auto* pipeline = find<PipelineView>(window, QStringLiteral("pipelineView"));
    auto* initCombo = find<QComboBox>(window, QStringLiteral("initCombo"));
    auto* initNote = find<QLabel>(window, QStringLiteral("initNoteLabel"));
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::Article);
    QVERIFY(initNote->text().startsWith(QStringLiteral("Article")));
    QCOMPARE(compare->initMode(), attn::InitMode::Article);
    find<QSlider>(window, QStringLiteral("dKSlider"))->setValue(attn::kDkSliderPositions);  // d_k 1024

    find<QAction>(window, QStringLiteral("scalingDemoAction"))->trigger();
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::UnitVariance);
    QCOMPARE(initCombo->currentData().toInt(), int(attn::InitMode::UnitVariance));
    QVERIFY(initNote->text().startsWith(QStringLiteral("Unit variance")));
    QVERIFY(initNote->text().contains(QStringLiteral("variance ≈ 1")));
    QCOMPARE(compare->initMode(), attn::InitMode::UnitVariance);
    QVERIFY(compare->initText().contains(QStringLiteral("unit variance")));
    QCOMPARE(pipeline->currentPage(), compare);
    // The rest of the parameters are kept.
    QCOMPARE(window.session()->published()->dK(), 1024);
    QCOMPARE(window.session()->inputs().config.seed, 123u);

    attn::ModelConfig config;
    config.init = attn::InitMode::UnitVariance;
    config.dK = 1024;
    const attn::ScalingComparison want = attn::compareScaling(engine(config));
    QCOMPARE(compare->comparison().varRaw, want.varRaw);
    QCOMPARE(compare->comparison().meanMaxRaw, want.meanMaxRaw);

    // The button in the parameter panel does the same.
    pipeline->tabs()->setCurrentIndex(0);
    initCombo->setCurrentIndex(initCombo->findData(int(attn::InitMode::StandardNormal)));
    QVERIFY(initNote->text().startsWith(QStringLiteral("Standard normal")));
    QCOMPARE(compare->initMode(), attn::InitMode::StandardNormal);
    QTest::mouseClick(parameters->scalingDemoButton(), Qt::LeftButton);
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::UnitVariance);
    QCOMPARE(pipeline->currentPage(), compare);
}

void TestScalingLabWindow::labTabComputesWhenFirstShown()
{
    MainWindow window;
    window.resize(1300, 850);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ScalingLabView* lab = find<ScalingLabView>(window, QStringLiteral("scalingLabView"));
    QVERIFY(!lab->hasCurves());
    QVERIFY(!lab->isComputing());  // not on the first page

    QSignalSpy done(lab, &ScalingLabView::curvesChanged);
    find<PipelineView>(window, QStringLiteral("pipelineView"))->showPage(lab);
    QCOMPARE(find<PipelineView>(window, QStringLiteral("pipelineView"))->currentPage(), lab);
    QVERIFY(lab->isComputing() || lab->hasCurves());
    QVERIFY(done.count() > 0 || done.wait(120000));
    QVERIFY(lab->hasCurves());
    QCOMPARE(lab->curves().dK, attn::defaultScalingLabDks());
    QCOMPARE(find<QCPItemStraightLine>(*lab->plot(ScalingLabView::VariancePlot), QStringLiteral("dkMarker"))
                 ->point1->coords()
                 .x(),
             24.0);

    find<QSlider>(window, QStringLiteral("dKSlider"))->setValue(attn::kDkSliderPositions);
    QCOMPARE(lab->currentDk(), 1024);
    QCOMPARE(find<QCPItemStraightLine>(*lab->plot(ScalingLabView::GradientPlot), QStringLiteral("dkMarker"))
                 ->point1->coords()
                 .x(),
             1024.0);
    // Moving d_k does not rerun the lab.
    QVERIFY(!lab->isComputing());
    QCOMPARE(done.count(), 1);
}

void TestScalingLabWindow::labRunsInTheSessionsWorker()
{
    auto* window = new MainWindow;
    ScalingLabView* lab = find<ScalingLabView>(*window, QStringLiteral("scalingLabView"));
    QCOMPARE(lab->run(), window->session()->scalingLab());
    // Large maps requested while the lab computes: both arrive, the lab's
    // curves those of the engine.
    attn::ScalingLabConfig config;
    config.nKeys = 8;
    config.samples = 1000;
    config.seed = 17;
    QSignalSpy done(lab, &ScalingLabView::curvesChanged);
    QSignalSpy progress(lab->run(), &ScalingLabRun::progressChanged);
    QSignalSpy results(window->session(), &Session::resultChanged);
    lab->compute(config);
    QVERIFY(progress.wait(120000));
    attn::ModelConfig large = window->session()->inputs().config;
    large.sentence = testconfigs::numberedSentence(1024);
    large.dK = 64;
    large.dV = 64;
    window->session()->setParameters(large, window->session()->inputs().options);
    QVERIFY(window->session()->isComputing());
    QVERIFY(results.wait(120000));
    QVERIFY(done.count() > 0 || done.wait(120000));
    QCOMPARE(done.count(), 1);
    const attn::ScalingLabCurves direct = attn::runScalingLab(config).value();
    QCOMPARE(lab->curves().varRaw, direct.varRaw);
    QCOMPARE(lab->curves().gradNormScaled, direct.gradNormScaled);
    QCOMPARE(window->session()->published()->tokenCount(), 1024);
    QCOMPARE(maxAbsDiff(window->session()->published()->shown()->weightsMatrix(),
                        engine(large, window->session()->inputs().options).weightsMatrix()),
             0.0);
    // Closed while the lab and the maps compute: the lab goes with the
    // session, before its worker; nothing reaches the view after.
    config.samples = 40000;
    lab->compute(config);
    QVERIFY(progress.wait(120000));
    large.dK = 72;
    window->session()->setParameters(large, window->session()->inputs().options);
    QVERIFY(lab->isComputing() && window->session()->isComputing());
    delete window;
}

QTEST_MAIN(TestScalingLabWindow)
#include "tst_scalinglab_window.moc"
