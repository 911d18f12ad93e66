// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson's "why it matters for learning": the summary of a lab is its
// curves' steps to the target and first saturated fractions; the text states
// the measured numbers (hand-made summaries: close at d_k 16, several times
// slower at 256) and words a small difference honestly; in the window the
// step runs the Training tab at d_k 16 and then 256 and shows the text of
// what the tab measured.

#include "mainwindow.h"

#include "guitest.h"
#include "lessoncontroller.h"
#include "lessonpanel.h"
#include "lessontraining.h"
#include "pipelineview.h"
#include "training_lab.h"
#include "trainingview.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

using namespace attnlab;

namespace {

constexpr int kHangGuardMs = 600000;

LessonTraining::Summary summary(int dK, int scaled, int unscaled, double saturated)
{
    LessonTraining::Summary s;
    s.dK = dK;
    s.scaledSteps = scaled;
    s.unscaledSteps = unscaled;
    s.steps = 400;
    s.unscaledSaturated = saturated;
    return s;
}

}  // namespace

class TestLessonTraining : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void summarizes();
    void textStatesTheNumbers();
    void textIsHonestAboutSmallDifferences();
    void lessonRunsBothLabs();

private:
    QTemporaryDir settingsDir_;
};

void TestLessonTraining::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("tst_lessontraining")));
}

void TestLessonTraining::summarizes()
{
    attn::TrainingRunCurves scaled, unscaled;
    scaled.scale = attn::TrainingScale::SqrtDk;
    scaled.loss = {2.7, 1.2, 0.6, 0.5, 0.4};
    scaled.saturatedWrong = {0.0, 0.0, 0.0, 0.0, 0.0};
    unscaled.scale = attn::TrainingScale::None;
    unscaled.loss = {4.5, 4.0, 3.0, 2.0, 0.9};
    unscaled.saturatedWrong = {0.5625, 0.5, 0.25, 0.1, 0.0};
    attn::TrainingSettings settings;
    settings.dK = 256;
    const auto s = LessonTraining::summarize(settings, {scaled, unscaled}, 0.5);
    QCOMPARE(s.dK, 256);
    QCOMPARE(s.scaledSteps, 4);  // 0.5 at the fourth step
    QCOMPARE(s.unscaledSteps, -1);
    QCOMPARE(s.steps, 5);
    QCOMPARE(s.unscaledSaturated, 0.5625);
    QCOMPARE(s.scaledSaturated, 0.0);
    QCOMPARE(LessonTraining::summarize(settings, {scaled, unscaled}, 1.0).unscaledSteps, 5);
}

void TestLessonTraining::textStatesTheNumbers()
{
    const QString text = LessonTraining::text(summary(16, 85, 100, 0.015625), summary(256, 20, 83, 0.5625));
    QVERIFY2(
        text.contains("At d_k 16 the scaled run reached a loss of 0.5 in 85 steps, the unscaled in 100 steps "
                      "(1.2 times as many)."),
        qPrintable(text));
    QVERIFY(text.contains("The runs are close"));
    QVERIFY(text.contains(
        "At d_k 256 the unscaled run started with 56 % of the examples saturated on a wrong key "
        "(the scaled run with 0 %)"));
    QVERIFY(text.contains("in 20 steps, the unscaled in 83 steps (4.2 times as many)"));
    QVERIFY(text.contains("several times slower"));
}

void TestLessonTraining::textIsHonestAboutSmallDifferences()
{
    const QString text = LessonTraining::text(summary(16, 50, 100, 0.0), summary(256, 60, 80, 0.3));
    QVERIFY(!text.contains("close"));
    QVERIFY(!text.contains("several times slower"));
    QVERIFY(text.contains("smaller than usual"));
    const QString never = LessonTraining::text(summary(16, 85, 100, 0.0), summary(256, 20, -1, 0.6));
    QVERIFY2(
        never.contains("the scaled run reached a loss of 0.5 in 20 steps; the unscaled did not in 400 steps"),
        qPrintable(never));
}

void TestLessonTraining::lessonRunsBothLabs()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1280, 800));
    QVERIFY(window);
    LessonPanel* lesson = guitest::find<LessonPanel>(*window, QStringLiteral("lessonPanel"));
    guitest::find<QAction>(*window, QStringLiteral("lessonModeAction"))->trigger();
    QTRY_VERIFY(lesson->isVisible());
    LessonTraining* training = window->findChild<LessonTraining*>();
    QVERIFY(training);
    QSignalSpy finished(training, &LessonTraining::finished);
    lesson->setStep(LessonPanel::stepOf(LessonPanel::Stage::LearningMatters));
    QVERIFY(training->isRunning());
    // The Training tab is shown, training at d_k 16.
    QCOMPARE(guitest::find<QTabWidget>(*window, QStringLiteral("mapsTabs"))
                 ->currentWidget()
                 ->findChild<TrainingView*>(),
             guitest::find<TrainingView>(*window, QStringLiteral("trainingView")));
    QCOMPARE(guitest::find<TrainingView>(*window, QStringLiteral("trainingView"))->snapshot()->settings.dK,
             16);
    QVERIFY(lesson->learningText().contains("d_k 16"));
    QVERIFY(finished.wait(kHangGuardMs));
    QVERIFY(!training->isRunning());

    // The text is the one of the tab's measured curves.
    const auto snapshot = guitest::find<TrainingView>(*window, QStringLiteral("trainingView"))->snapshot();
    QCOMPARE(snapshot->settings.dK, 256);
    QVERIFY(snapshot->finished);
    const LessonTraining::Summary large =
        LessonTraining::summarize(snapshot->settings, snapshot->curves, 0.5);
    QCOMPARE(training->large()->scaledSteps, large.scaledSteps);
    QCOMPARE(training->large()->unscaledSteps, large.unscaledSteps);
    // d_k 16 against the engine run directly.
    attn::TrainingSettings small;
    small.dK = 16;
    attn::TrainingLab direct(small);
    direct.run();
    QCOMPARE(training->small()->scaledSteps, attn::stepsToReachLoss(direct.curves()[0], 0.5));
    QCOMPARE(training->small()->unscaledSteps, attn::stepsToReachLoss(direct.curves()[1], 0.5));
    const QString text = LessonTraining::text(*training->small(), *training->large());
    QCOMPARE(finished.first().first().toString(), text);
    QCOMPARE(lesson->learningText(), text);
    QCOMPARE(guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->text(), text);
    QVERIFY(text.contains(QStringLiteral("in %1 steps").arg(large.scaledSteps)));

    // Leaving the step mid-run stops the lab.
    lesson->back();
    lesson->next();
    QVERIFY(training->isRunning());
    lesson->next();
    QVERIFY(!training->isRunning());
    // The next step, the Flash tiles one, shows that tab.
    QCOMPARE(lesson->stage(), LessonPanel::Stage::FlashTiles);
    QCOMPARE(guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"))->currentPage(),
             guitest::find<QWidget>(*window, QStringLiteral("flashTilesView")));
    QVERIFY(!guitest::find<TrainingView>(*window, QStringLiteral("trainingView"))->run()->isRunning());
}

QTEST_MAIN(TestLessonTraining)
#include "tst_lessontraining.moc"
