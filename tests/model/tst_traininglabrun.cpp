// SPDX-License-Identifier: GPL-3.0-or-later
// The training lab in the model: TrainingLabRun steps an attn::TrainingLab on
// its own thread; a run to the end delivers curves and probe attention equal
// to the engine's run directly, to the last digit; pause stops the job; a
// step adds exactly one; reset goes back to step 0, and settings take effect
// there; invalid settings are refused with a reason. Every wait is on a
// signal; the timeouts only stop a hung test.

#include "traininglabrun.h"

#include "training_lab.h"

#include <QSignalSpy>
#include <QtTest>

#include <cmath>

using namespace attnlab;

namespace {

constexpr int kHangGuardMs = 300000;

attn::TrainingSettings smallSettings(int steps = 30)
{
    attn::TrainingSettings s;
    s.task.nKeys = 8;
    s.task.dModel = 16;
    s.task.classes = 4;
    s.task.batch = 8;
    s.dK = 16;
    s.steps = steps;
    s.seed = 7;
    s.customDivisor = 2.5;
    return s;
}

void compareCurves(const std::vector<attn::TrainingRunCurves>& got,
                   const std::vector<attn::TrainingRunCurves>& want)
{
    QCOMPARE(got.size(), want.size());
    for (std::size_t r = 0; r < want.size(); ++r) {
        QCOMPARE(got[r].scale, want[r].scale);
        QCOMPARE(got[r].divisor, want[r].divisor);
        QCOMPARE(got[r].loss, want[r].loss);
        QCOMPARE(got[r].accuracy, want[r].accuracy);
        QCOMPARE(got[r].gradNormQ, want[r].gradNormQ);
        QCOMPARE(got[r].gradNormK, want[r].gradNormK);
        QCOMPARE(got[r].maxWeight, want[r].maxWeight);
        QCOMPARE(got[r].entropy, want[r].entropy);
        QCOMPARE(got[r].saturatedWrong, want[r].saturatedWrong);
    }
}

// Waits for the job to stop; false if it never did.
bool waitStopped(TrainingLabRun& run)
{
    QSignalSpy stopped(&run, &TrainingLabRun::stopped);
    return stopped.wait(kHangGuardMs);
}

}  // namespace

class TestTrainingLabRun : public QObject {
    Q_OBJECT
private slots:
    void startsAtStepZero();
    void runsToTheEngineCurves();
    void publishesWhileRunning();
    void pauseStops();
    void stepAdvancesExactlyOne();
    void resetRestoresStepZero();
    void settingsTakeEffectOnReset();
    void refusesInvalidSettings();
    void destroyedWhileRunning();
};

void TestTrainingLabRun::startsAtStepZero()
{
    TrainingLabRun run;
    QVERIFY(run.snapshot());
    QCOMPARE(run.snapshot()->stepsDone, 0);
    QCOMPARE(run.snapshot()->curves.size(), std::size_t(2));  // no custom divisor by default
    QCOMPARE(run.snapshot()->curves[0].size(), std::size_t(0));
    QCOMPARE(run.snapshot()->probeAttention.size(), std::size_t(2));
    QCOMPARE(run.snapshot()->probeAttention[0].rows(), Eigen::Index(TrainingLabRun::kProbes));
    QCOMPARE(run.snapshot()->probeAttention[0].cols(), Eigen::Index(run.settings().task.nKeys));
    QVERIFY(!run.isRunning());
}

void TestTrainingLabRun::runsToTheEngineCurves()
{
    const attn::TrainingSettings settings = smallSettings();
    TrainingLabRun run;
    QVERIFY(run.setSettings(settings).ok());
    QVERIFY(run.settingsPending());
    run.reset();
    QVERIFY(!run.settingsPending());
    QSignalSpy running(&run, &TrainingLabRun::runningChanged);
    run.start();
    QCOMPARE(running.count(), 1);
    QVERIFY(run.isRunning());
    QVERIFY(waitStopped(run));
    QVERIFY(!run.isRunning());
    QCOMPARE(running.count(), 2);
    const auto snapshot = run.snapshot();
    QCOMPARE(snapshot->stepsDone, settings.steps);
    QVERIFY(snapshot->finished);

    attn::TrainingLab direct(settings, TrainingLabRun::kProbes);
    direct.run();
    compareCurves(snapshot->curves, direct.curves());
    QCOMPARE(snapshot->curves.size(), std::size_t(3));
    QCOMPARE(snapshot->curves[0].size(), std::size_t(settings.steps));
    for (int r = 0; r < 3; ++r)
        QVERIFY(snapshot->probeAttention[std::size_t(r)] == direct.probeAttention(r));
    QCOMPARE(snapshot->probeTargets, direct.probes().targets);
    // Finished: start does nothing more.
    run.start();
    QVERIFY(!run.isRunning());
}

void TestTrainingLabRun::publishesWhileRunning()
{
    // Enough steps to take several publishing intervals at any speed.
    attn::TrainingSettings settings = smallSettings(attn::kTrainingMaxSteps);
    settings.task.batch = 64;
    settings.task.nKeys = 32;
    settings.task.dModel = 64;
    settings.dK = 64;
    TrainingLabRun run;
    QVERIFY(run.setSettings(settings).ok());
    run.reset();
    QSignalSpy ready(&run, &TrainingLabRun::snapshotReady);
    run.start();
    // Each snapshot while running has more steps than the one before.
    int previous = 0;
    for (int i = 0; i < 3; ++i) {
        QVERIFY(ready.wait(kHangGuardMs));
        const int done = run.snapshot()->stepsDone;
        QVERIFY2(done > previous, qPrintable(QStringLiteral("%1 after %2").arg(done).arg(previous)));
        QVERIFY(done < settings.steps);
        QCOMPARE(run.snapshot()->curves[0].size(), std::size_t(done));
        previous = done;
    }
    run.pause();
    QVERIFY(waitStopped(run));
}

void TestTrainingLabRun::pauseStops()
{
    attn::TrainingSettings settings = smallSettings(100000);
    TrainingLabRun run;
    QVERIFY(run.setSettings(settings).ok());
    run.reset();
    QSignalSpy ready(&run, &TrainingLabRun::snapshotReady);
    run.start();
    QVERIFY(ready.wait(kHangGuardMs));
    run.pause();
    QVERIFY(!run.isRunning());
    QVERIFY(waitStopped(run));
    const int stoppedAt = run.snapshot()->stepsDone;
    QVERIFY(stoppedAt > 0);
    QVERIFY(stoppedAt < settings.steps);
    QCOMPARE(run.snapshot()->curves[1].size(), std::size_t(stoppedAt));
    // Nothing more comes.
    ready.clear();
    QVERIFY(!ready.wait(300));
    QCOMPARE(run.snapshot()->stepsDone, stoppedAt);

    // Started again, it goes on from there, on the engine's curves.
    run.start();
    QVERIFY(ready.wait(kHangGuardMs));
    run.pause();
    QVERIFY(waitStopped(run));
    const int later = run.snapshot()->stepsDone;
    QVERIFY(later > stoppedAt);
    attn::TrainingLab direct(settings, TrainingLabRun::kProbes);
    for (int i = 0; i < later; ++i)
        direct.step();
    compareCurves(run.snapshot()->curves, direct.curves());
}

void TestTrainingLabRun::stepAdvancesExactlyOne()
{
    const attn::TrainingSettings settings = smallSettings();
    TrainingLabRun run;
    QVERIFY(run.setSettings(settings).ok());
    run.reset();
    run.step();
    QVERIFY(waitStopped(run));
    QCOMPARE(run.snapshot()->stepsDone, 1);
    QVERIFY(!run.isRunning());
    // Three presses in a row: three steps.
    run.step();
    run.step();
    run.step();
    while (run.snapshot()->stepsDone < 4)
        QVERIFY(waitStopped(run));
    QCOMPARE(run.snapshot()->stepsDone, 4);
    QSignalSpy ready(&run, &TrainingLabRun::snapshotReady);
    QVERIFY(!ready.wait(200));
    QCOMPARE(run.snapshot()->stepsDone, 4);
    attn::TrainingLab direct(settings, TrainingLabRun::kProbes);
    for (int i = 0; i < 4; ++i)
        direct.step();
    compareCurves(run.snapshot()->curves, direct.curves());
    QVERIFY(run.snapshot()->probeAttention[0] == direct.probeAttention(0));
}

void TestTrainingLabRun::resetRestoresStepZero()
{
    TrainingLabRun run;
    QVERIFY(run.setSettings(smallSettings(100000)).ok());
    run.reset();
    const attn::Matrix before = run.snapshot()->probeAttention[1];
    QSignalSpy ready(&run, &TrainingLabRun::snapshotReady);
    run.start();
    QVERIFY(ready.wait(kHangGuardMs));
    QVERIFY(run.snapshot()->stepsDone > 0);
    // Reset while running: step 0 at once, and nothing of the old lab after.
    run.reset();
    QVERIFY(!run.isRunning());
    QCOMPARE(run.snapshot()->stepsDone, 0);
    QCOMPARE(run.snapshot()->curves[0].size(), std::size_t(0));
    QVERIFY(run.snapshot()->probeAttention[1] == before);
    ready.clear();
    QVERIFY(!ready.wait(300));
    QCOMPARE(run.snapshot()->stepsDone, 0);
    // And it trains again from there.
    run.step();
    QVERIFY(waitStopped(run));
    QCOMPARE(run.snapshot()->stepsDone, 1);
}

void TestTrainingLabRun::settingsTakeEffectOnReset()
{
    TrainingLabRun run;
    const int defaultDk = run.settings().dK;
    attn::TrainingSettings settings = smallSettings();
    settings.dK = 32;
    settings.customDivisor = 0.0;
    QVERIFY(run.setSettings(settings).ok());
    // Not yet: the lab shown keeps its settings until reset.
    QCOMPARE(run.settings().dK, defaultDk);
    QCOMPARE(run.snapshot()->settings.dK, defaultDk);
    QCOMPARE(run.pendingSettings().dK, 32);
    run.step();
    QVERIFY(waitStopped(run));
    QCOMPARE(run.snapshot()->settings.dK, defaultDk);
    run.reset();
    QCOMPARE(run.settings().dK, 32);
    QCOMPARE(run.snapshot()->settings.dK, 32);
    QCOMPARE(run.snapshot()->settings.task.nKeys, 8);
    QCOMPARE(run.snapshot()->probeAttention[0].cols(), Eigen::Index(8));
    run.start();
    QVERIFY(waitStopped(run));
    QCOMPARE(run.snapshot()->curves[0].divisor, std::sqrt(32.0));
    QCOMPARE(run.snapshot()->curves[1].divisor, 1.0);
    attn::TrainingLab direct(settings, TrainingLabRun::kProbes);
    direct.run();
    compareCurves(run.snapshot()->curves, direct.curves());
}

void TestTrainingLabRun::refusesInvalidSettings()
{
    TrainingLabRun run;
    QSignalSpy failed(&run, &TrainingLabRun::failed);
    attn::TrainingSettings bad = smallSettings();
    bad.learningRate = std::nan("");
    const attn::Status status = run.setSettings(bad);
    QVERIFY(!status.ok());
    QCOMPARE(failed.count(), 1);
    QVERIFY(!failed.first().first().toString().isEmpty());
    QVERIFY(!run.settingsPending());
    bad = smallSettings();
    bad.task.batch = attn::kTrainingMaxBatch + 1;
    QVERIFY(!run.setSettings(bad).ok());
    QCOMPARE(failed.count(), 2);
    run.reset();
    QCOMPARE(run.settings().task.batch, attn::TrainingSettings().task.batch);
}

void TestTrainingLabRun::destroyedWhileRunning()
{
    auto run = std::make_unique<TrainingLabRun>();
    QVERIFY(run->setSettings(smallSettings(100000)).ok());
    run->reset();
    QSignalSpy ready(run.get(), &TrainingLabRun::snapshotReady);
    run->start();
    QVERIFY(ready.wait(kHangGuardMs));
    run.reset();  // cancels and joins; nothing is delivered to it after
    QCoreApplication::processEvents();
}

QTEST_GUILESS_MAIN(TestTrainingLabRun)
#include "tst_traininglabrun.moc"
