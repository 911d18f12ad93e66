// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson teaches the scaling effect on what it shows: its d_k experiment
// runs on the unit-variance initialisation (switching to it and saying so in
// the panel, or saying that the user's matrices were kept), and its
// statements are checked against the session's own statistics at every
// d_k = 1, 2, 4, ..., 1024, driven through the real d_k spin box. The score
// histogram beside the d_k views follows each result.

#include "mainwindow.h"

#include "documentcontroller.h"
#include "exportactions.h"
#include "lessoncontroller.h"
#include "presets.h"
#include "lessonpanel.h"
#include "pipelineview.h"
#include "scaling_lab.h"
#include "scalingcompareview.h"
#include "score_histogram.h"
#include "sharetext.h"
#include "scorehistogramview.h"
#include "viewexporter.h"
#include "guitest.h"

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <cmath>

using guitest::find;
using namespace attnlab;

namespace {

void openLessonAtExperiment(MainWindow& window)
{
    find<QAction>(window, QStringLiteral("lessonModeAction"))->trigger();
    LessonPanel* lesson = find<LessonPanel>(window, QStringLiteral("lessonPanel"));
    while (lesson->stage() != LessonPanel::Stage::DkExperiment)
        QTest::mouseClick(find<QPushButton>(*lesson, QStringLiteral("lessonNextButton")), Qt::LeftButton);
}

bool sameHistogram(const attn::ScoreHistogram& a, const attn::ScoreHistogram& b)
{
    return a.dK == b.dK && a.limit == b.limit && a.raw == b.raw && a.scaled == b.scaled && a.pairs == b.pairs
           && a.rowStride == b.rowStride && a.sdRaw == b.sdRaw;
}

}  // namespace

class TestLesson : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void startAndArticlePresetStayTheArticles();
    void experimentSwitchesToUnitVariance();
    void experimentKeepsTheUsersMatrices();
    void statementsHoldAtEveryDk_data();
    void statementsHoldAtEveryDk();
    void articleWeightsWouldContradictTheLesson();
    void histogramFollowsDk();
    void histogramSamplesThousandsOfTokens();
    void histogramExports();

private:
    QTemporaryDir settingsDir_;
};

void TestLesson::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestLesson::init()
{
    QSettings().clear();
}

void TestLesson::startAndArticlePresetStayTheArticles()
{
    MainWindow window;
    window.restoreSettings();
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::Article);
    QCOMPARE(window.session()->inputs().config.seed, std::uint64_t(123));
    QVERIFY(window.documents()->openPreset(presetPath(QStringLiteral("article"))));
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::Article);
    QVERIFY(window.documents()->openPreset(presetPath(QStringLiteral("cinema"))));
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::UnitVariance);
    QCOMPARE(QString::fromStdString(window.session()->inputs().config.sentence),
             QStringLiteral("Jane is going to the cinema to watch a new film"));
}

void TestLesson::experimentSwitchesToUnitVariance()
{
    MainWindow window;
    window.restoreSettings();
    window.resize(1300, 850);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    LessonPanel* lesson = find<LessonPanel>(window, QStringLiteral("lessonPanel"));
    QLabel* notice = find<QLabel>(*lesson, QStringLiteral("lessonInitNotice"));
    const int steps = window.documents()->undoStack()->count();

    find<QAction>(window, QStringLiteral("lessonModeAction"))->trigger();
    // The first four steps are about any weights: nothing switched yet.
    for (int s = 0; s < 4; ++s) {
        QCOMPARE(window.session()->inputs().config.init, attn::InitMode::Article);
        QVERIFY(!notice->isVisible());
        QTest::mouseClick(find<QPushButton>(*lesson, QStringLiteral("lessonNextButton")), Qt::LeftButton);
    }
    QCOMPARE(lesson->stage(), LessonPanel::Stage::DkExperiment);
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::UnitVariance);
    QCOMPARE(find<QComboBox>(window, QStringLiteral("initCombo"))->currentData().toInt(),
             int(attn::InitMode::UnitVariance));
    // Said in the panel, not only in the status bar.
    QVERIFY(notice->isVisible());
    QVERIFY(notice->text().contains(QStringLiteral("switched to the unit-variance")));
    QCOMPARE(window.documents()->undoStack()->count(), steps + 1);

    // Undo brings the article's weights back, and the panel stops claiming.
    window.documents()->undoStack()->undo();
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::Article);
    QVERIFY(notice->isVisible());
    QVERIFY(notice->text().contains(QStringLiteral("not on unit-variance ones")));
    QVERIFY(!notice->text().contains(QStringLiteral("switched")));
    // Leaving the experiment hides the notice.
    QTest::mouseClick(find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")), Qt::LeftButton);
    QVERIFY(!notice->isVisible());
}

void TestLesson::experimentKeepsTheUsersMatrices()
{
    MainWindow window;
    window.restoreSettings();
    window.resize(1300, 850);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.session()->setMatrixCell(MatrixId::Wq, 0, 0, -2.5));
    const attn::Matrix Wq = window.session()->inputs().matrix(MatrixId::Wq);
    openLessonAtExperiment(window);
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::Article);
    QCOMPARE(window.session()->inputs().matrix(MatrixId::Wq), Wq);
    QLabel* notice = find<QLabel>(window, QStringLiteral("lessonInitNotice"));
    QVERIFY(notice->isVisible());
    QVERIFY(notice->text().contains(QStringLiteral("current matrices")));
}

void TestLesson::statementsHoldAtEveryDk_data()
{
    QTest::addColumn<QString>("preset");
    QTest::newRow("default start") << QString();
    QTest::newRow("lesson sentence") << QStringLiteral("cinema");
}

void TestLesson::statementsHoldAtEveryDk()
{
    QFETCH(QString, preset);
    MainWindow window;
    window.restoreSettings();
    window.resize(1300, 850);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    if (!preset.isEmpty())
        QVERIFY(window.documents()->openPreset(presetPath(preset)));
    openLessonAtExperiment(window);
    LessonPanel* lesson = find<LessonPanel>(window, QStringLiteral("lessonPanel"));
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::UnitVariance);
    const QString text = lesson->explanation(LessonPanel::stepOf(LessonPanel::Stage::DkExperiment));
    // The statements checked below.
    QVERIFY(text.contains(QStringLiteral("Without the scaling the score variance grows with d_k")));
    QVERIFY(text.contains(QStringLiteral("the largest weight nears 1, the entropy falls towards 0")));
    QVERIFY(
        text.contains(QStringLiteral("With the scaling the score variance stays near 1 and the "
                                     "rows keep about the same spread at every d_k")));
    const QString step2 = lesson->explanation(1);
    QVERIFY(step2.contains(QStringLiteral("the sum has variance d_k")));

    QSpinBox* dK = find<QSpinBox>(window, QStringLiteral("dKSpin"));
    auto* live = find<QLabel>(*lesson, QStringLiteral("lessonLiveText"));
    attn::ScalingComparison first;
    const QLocale locale;
    for (int d = 1; d <= 1024; d *= 2) {
        dK->setValue(d);
        QCOMPARE(window.session()->published()->dK(), d);
        const attn::ScalingComparison& c = *window.session()->published()->comparison();
        QCOMPARE(c.dK, d);
        if (d == 1)
            first = c;
        const QByteArray at = "d_k " + QByteArray::number(d);
        // On screen: the live line and the comparison table show these numbers.
        QVERIFY2(live->isVisible() && live->text() == lesson->liveText(), at);
        // The largest weights as honest shares (0.9997, never 1 for less).
        QVERIFY2(live->text().contains(shareText(c.meanMaxRaw))
                     && live->text().contains(shareText(c.meanMaxScaled))
                     && live->text().contains(locale.toString(c.meanEntropyScaled, 'f', 2)),
                 at);
        ScalingCompareView* compare = find<ScalingCompareView>(window, QStringLiteral("scalingCompareView"));
        QCOMPARE(compare->readoutValue(ScalingCompareView::MeanMaxWeight, ScalingCompareView::Unscaled),
                 c.meanMaxRaw);
        QCOMPARE(compare->readoutValue(ScalingCompareView::MeanEntropy, ScalingCompareView::Scaled),
                 c.meanEntropyScaled);

        // Step 2: the raw variance about d_k, the scaled one about 1 (a
        // sentence's few scores are a small sample: within a factor 4).
        QVERIFY2(c.varRaw / d > 0.25 && c.varRaw / d < 4, at);
        QVERIFY2(c.varScaled > 0.25 && c.varScaled < 4, at);
        // Without the scaling the rows are at least as sharp, at every d_k
        // (softmax(t s) sharpens as t grows); the same at d_k = 1.
        QVERIFY2(c.meanMaxRaw >= c.meanMaxScaled - 1e-12, at);
        QVERIFY2(c.meanEntropyRaw <= c.meanEntropyScaled + 1e-12, at);
        if (d == 1)
            QCOMPARE(c.meanMaxRaw, c.meanMaxScaled);
        // ... and almost one-hot once d_k is large: the largest weight near 1,
        // the entropy near 0, the gradient mostly gone.
        if (d >= 128) {
            QVERIFY2(c.meanMaxRaw > 0.85, at);
            QVERIFY2(c.meanEntropyRaw < 0.3, at);
            QVERIFY2(c.meanGradRaw < 0.5 * c.meanGradScaled, at);
        }
        // With the scaling the spread stays about the same: no drift of the
        // largest weight, the entropy or the gradient, and never one-hot.
        QVERIFY2(c.meanMaxScaled < 0.6, at);
        QVERIFY2(c.meanMaxScaled > 0.5 * first.meanMaxScaled && c.meanMaxScaled < 2 * first.meanMaxScaled,
                 at);
        QVERIFY2(c.meanEntropyScaled > 0.7 * first.meanEntropyScaled, at);
        QVERIFY2(
            c.meanGradScaled > 0.7 * first.meanGradScaled && c.meanGradScaled < 1.4 * first.meanGradScaled,
            at);
    }
}

void TestLesson::articleWeightsWouldContradictTheLesson()
{
    // Why the experiment switches: with the article's weights (not centred)
    // the scaling barely changes the softmax at d_k = 1024, the opposite of
    // what the lesson says.
    MainWindow window;
    window.restoreSettings();
    find<QSpinBox>(window, QStringLiteral("dKSpin"))->setValue(1024);
    const attn::ScalingComparison& c = *window.session()->published()->comparison();
    QCOMPARE(window.session()->inputs().config.init, attn::InitMode::Article);
    QVERIFY(std::abs(c.meanMaxRaw - c.meanMaxScaled) < 0.05);
    QVERIFY(c.varScaled > 100);  // far from the 1 of step 2
}

void TestLesson::histogramFollowsDk()
{
    MainWindow window;
    window.restoreSettings();
    window.resize(1300, 850);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.lessons()->startScalingDemo();  // unit variance, the scaled vs unscaled tab
    ScoreHistogramView* view = find<ScoreHistogramView>(window, QStringLiteral("scoreHistogramView"));
    QVERIFY(view->isVisible());
    QCOMPARE(view, find<ScalingCompareView>(window, QStringLiteral("scalingCompareView"))->histogramView());
    double previousRatio = 0;
    for (int d : {1, 16, 256, 1024}) {
        find<QSpinBox>(window, QStringLiteral("dKSpin"))->setValue(d);
        const attn::ScoreHistogram expected = attn::scoreHistogram(*window.session()->published()->shown());
        QVERIFY(sameHistogram(view->histogram(), expected));
        QCOMPARE(view->histogram().dK, d);
        QVERIFY(view->titleText().contains(QString::number(d)));
        QVERIFY(view->legendText(false).contains(QLocale().toString(expected.sdRaw, 'g', 3)));
        // The raw spread grows as √d_k against the scaled one.
        const double ratio = view->histogram().sdRaw / view->histogram().sdScaled;
        QVERIFY(std::abs(ratio - std::sqrt(double(d))) < 1e-9 * ratio);
        QVERIFY(ratio >= previousRatio);
        previousRatio = ratio;
    }
    // Drawn: the bars leave coloured pixels.
    const QImage picture = view->grab().toImage();
    int coloured = 0;
    for (int y = 0; y < picture.height(); ++y)
        for (int x = 0; x < picture.width(); ++x) {
            const QColor p = picture.pixelColor(x, y);
            coloured += std::abs(p.red() - p.blue()) > 60;
        }
    QVERIFY(coloured > 200);
}

void TestLesson::histogramSamplesThousandsOfTokens()
{
    MainWindow window;
    window.restoreSettings();
    window.resize(1300, 850);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.lessons()->startScalingDemo();
    QStringList words;
    for (int i = 0; i < 3000; ++i)
        words << QStringLiteral("w%1").arg(i % 97);
    attn::ModelConfig config = window.session()->inputs().config;
    config.sentence = words.join(QLatin1Char(' ')).toStdString();
    config.dK = 8;
    window.session()->setParameters(config, window.session()->inputs().options);
    QTRY_VERIFY_WITH_TIMEOUT(!window.session()->isComputing(), 60000);
    QCOMPARE(window.session()->published()->tokenCount(), 3000);
    ScoreHistogramView* view = find<ScoreHistogramView>(window, QStringLiteral("scoreHistogramView"));
    const attn::ScoreHistogram& h = view->histogram();
    QTRY_COMPARE(view->histogram().totalPairs, 3000LL * 3000);
    QVERIFY(h.sampled());
    QVERIFY(h.pairs <= attn::kScoreHistogramMaxPairs);
    QVERIFY(h.pairs > attn::kScoreHistogramMaxPairs / 2);
    QVERIFY(view->titleText().contains(QStringLiteral("one query in %1").arg(h.rowStride)));
}

void TestLesson::histogramExports()
{
    MainWindow window;
    window.restoreSettings();
    QVERIFY(ViewExporter::views().contains(ExportView::ScoreHistogram));
    QCOMPARE(ViewExporter::fileStem(ExportView::ScoreHistogram), QStringLiteral("score_histogram"));
    QTemporaryDir dir;
    for (const char* suffix : {"png", "svg", "pdf"}) {
        const QString path = dir.filePath(QStringLiteral("h.") + QLatin1String(suffix));
        QVERIFY(window.exports()->exportView(ExportView::ScoreHistogram, path, QSize(640, 420)).ok());
        QVERIFY(QFileInfo(path).size() > 500);
    }
    const QImage png(dir.filePath(QStringLiteral("h.png")));
    QCOMPARE(png.size(), QSize(640, 420));
    int coloured = 0;
    for (int y = 0; y < png.height(); ++y)
        for (int x = 0; x < png.width(); ++x) {
            const QColor p = png.pixelColor(x, y);
            coloured += std::abs(p.red() - p.blue()) > 60;
        }
    QVERIFY(coloured > 200);
    QFile svg(dir.filePath(QStringLiteral("h.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("Scores q·k at d_k = 24"));
}

QTEST_MAIN(TestLesson)
#include "tst_lesson.moc"
