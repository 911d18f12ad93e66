// SPDX-License-Identifier: GPL-3.0-or-later
// The d_k lab in the model: ScalingLabRun's curves are attn::runScalingLab's
// to the last digit; in the worker's lab lane a newer lab request cancels
// an older one, an attention request preempts a lab job that is then
// started again and still ends with its curves, and progress only rises,
// to the total. Every wait is on a signal; the timeouts only stop a hung
// test.

#include "scalinglabrun.h"

#include "attentionworker.h"
#include "resultpool.h"
#include "session.h"

#include "attention.h"
#include "model.h"
#include "scaling_lab.h"
#include "testconfigs.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include <memory>
#include <string>

using namespace attnlab;

namespace {

constexpr int kHangGuardMs = 300000;

// About 1 M normal draws: a few tens of milliseconds.
attn::ScalingLabConfig smallConfig()
{
    attn::ScalingLabConfig config;
    config.nKeys = 4;
    config.samples = 200;
    config.seed = 11;
    return config;
}

// About 9 M draws (a few tenths of a second): long enough to be
// interrupted after its first progress report.
attn::ScalingLabConfig mediumConfig()
{
    attn::ScalingLabConfig config;
    config.nKeys = 8;
    config.samples = 1000;
    config.seed = 3;
    return config;
}

// Hundreds of millions of draws (its first report, at 1 %, after about
// 4 M): never left to finish.
attn::ScalingLabConfig longConfig()
{
    attn::ScalingLabConfig config;
    config.nKeys = 8;
    config.samples = 40000;
    config.seed = 5;
    return config;
}

using testconfigs::largeConfig;

bool sameCurves(const attn::ScalingLabCurves& a, const attn::ScalingLabCurves& b)
{
    return a.nKeys == b.nKeys && a.samples == b.samples && a.seed == b.seed && a.dK == b.dK
           && a.varRaw == b.varRaw && a.varScaled == b.varScaled && a.varRawStdErr == b.varRawStdErr
           && a.varScaledStdErr == b.varScaledStdErr && a.maxWeightRaw == b.maxWeightRaw
           && a.maxWeightScaled == b.maxWeightScaled && a.entropyRaw == b.entropyRaw
           && a.entropyScaled == b.entropyScaled && a.gradNormRaw == b.gradNormRaw
           && a.gradNormScaled == b.gradNormScaled;
}

attn::ScalingLabCurves direct(const attn::ScalingLabConfig& config)
{
    attn::Expected<attn::ScalingLabCurves> curves = attn::runScalingLab(config);
    return curves ? curves.value() : attn::ScalingLabCurves();
}

bool sameMatrix(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

// The worker's signals as they reach the test's thread (queued, as the
// session and the lab run take them), in order.
struct Event {
    enum Kind { LabProgress, LabFinished, AttentionFinished } kind;
    quint64 generation = 0;
    int done = 0, total = 0;
    std::shared_ptr<AttentionWorker::LabOutcome> lab;
    std::shared_ptr<AttentionWorker::Outcome> attention;
    qint64 at = 0;  // ms on the recorder's clock, when it arrived
};

class Recorder : public QObject {
    Q_OBJECT
public:
    explicit Recorder(AttentionWorker* worker)
    {
        clock.start();
        connect(
            worker, &AttentionWorker::labProgress, this,
            [this](quint64 generation, int done, int total) {
                add({Event::LabProgress, generation, done, total, nullptr, nullptr});
            },
            Qt::QueuedConnection);
        connect(
            worker, &AttentionWorker::labFinished, this,
            [this](const std::shared_ptr<AttentionWorker::LabOutcome>& o) {
                add({Event::LabFinished, o->generation, 0, 0, o, nullptr});
            },
            Qt::QueuedConnection);
        connect(
            worker, &AttentionWorker::finished, this,
            [this](const std::shared_ptr<AttentionWorker::Outcome>& o) {
                add({Event::AttentionFinished, o->generation, 0, 0, nullptr, o});
            },
            Qt::QueuedConnection);
    }
    QList<Event> events;
    QElapsedTimer clock;
    int count(Event::Kind kind) const
    {
        int n = 0;
        for (const Event& e : events)
            n += e.kind == kind;
        return n;
    }
    // Waits for the recorded signals until `kind` has come `n` times.
    bool waitFor(Event::Kind kind, int n)
    {
        QSignalSpy spy(this, &Recorder::recorded);
        while (count(kind) < n)
            if (!spy.wait(kHangGuardMs))
                return false;
        return true;
    }

signals:
    void recorded();

private:
    void add(Event e)
    {
        e.at = clock.elapsed();
        events.append(e);
        emit recorded();
    }
};

std::unique_ptr<AttentionWorker::LabJob> labJob(quint64 generation, const attn::ScalingLabConfig& config)
{
    auto job = std::make_unique<AttentionWorker::LabJob>();
    job->generation = generation;
    job->config = config;
    return job;
}

// The progress of one lab request: rising, of the configuration's total,
// ending at it.
bool risesToTotal(const QList<Event>& events, quint64 generation, int total, QString* why)
{
    int last = 0;
    for (const Event& e : events) {
        if (e.kind != Event::LabProgress || e.generation != generation)
            continue;
        if (e.total != total || e.done <= last || e.done > total) {
            *why = QString("progress %1 of %2 after %3").arg(e.done).arg(e.total).arg(last);
            return false;
        }
        last = e.done;
    }
    if (last != total) {
        *why = QString("progress ended at %1 of %2").arg(last).arg(total);
        return false;
    }
    return true;
}

}  // namespace

class TestScalingLabRun : public QObject {
    Q_OBJECT
private slots:
    void curvesAreTheEngines();
    void progressRisesToTheTotal();
    void newerLabRequestCancelsTheOlder();
    void newerComputeDropsTheOlder();
    void attentionPreemptsTheLab();
    void aLookAheadPreemptsTheLab();
    void labWaitsForAPauseOfTheMaps();
    void sessionMapsComeFirstAndTheLabStillEnds();
    void setCurvesSupersedesAndSetsTheConfig();
    void badConfigFails();
    void nearestIndexOnTheLogAxis();
    void destroyedWhileComputing();
};

void TestScalingLabRun::curvesAreTheEngines()
{
    ScalingLabRun run;
    QSignalSpy ready(&run, &ScalingLabRun::curvesReady);
    QSignalSpy started(&run, &ScalingLabRun::started);
    const attn::ScalingLabConfig config = smallConfig();
    QVERIFY(!run.hasCurves());
    run.compute(config);
    QCOMPARE(started.count(), 1);
    QVERIFY(run.isComputing());
    QCOMPARE(run.progressDone(), 0);
    QCOMPARE(run.progressTotal(), 200);
    QCOMPARE(run.config().nKeys, 4);
    QVERIFY(ready.wait(kHangGuardMs));
    QCOMPARE(ready.count(), 1);
    QVERIFY(!run.isComputing());
    QVERIFY(run.error().isEmpty());
    const attn::ScalingLabCurves expected = direct(config);
    QCOMPARE(run.curves().dK, attn::defaultScalingLabDks());  // 1, 2, 3, ..., 1024
    QCOMPARE(run.curves().dK, expected.dK);
    QCOMPARE(run.curves().varRaw, expected.varRaw);
    QCOMPARE(run.curves().entropyScaled, expected.entropyScaled);
    QVERIFY(sameCurves(run.curves(), expected));
}

void TestScalingLabRun::progressRisesToTheTotal()
{
    ScalingLabRun run;
    QList<QPair<int, int>> progress;
    connect(&run, &ScalingLabRun::progressChanged, this, [&](int done, int total) {
        progress.append({done, total});
    });
    QSignalSpy ready(&run, &ScalingLabRun::curvesReady);
    const attn::ScalingLabConfig config = smallConfig();
    run.compute(config);
    QVERIFY(ready.wait(kHangGuardMs));
    // One report per 1 % of the 200 samples (2 samples each), the last at 200.
    QCOMPARE(progress.size(), 100);
    for (int i = 0; i < progress.size(); ++i) {
        QCOMPARE(progress[i].first, 2 * (i + 1));
        QCOMPARE(progress[i].second, 200);
    }
    QCOMPARE(run.progressDone(), 200);
    QCOMPARE(run.progressTotal(), 200);
}

void TestScalingLabRun::newerLabRequestCancelsTheOlder()
{
    AttentionWorker worker(std::make_shared<ResultPool>());
    Recorder recorder(&worker);
    worker.requestLab(labJob(1, longConfig()));
    QVERIFY(recorder.waitFor(Event::LabProgress, 1));  // the first is computing
    const attn::ScalingLabConfig second = smallConfig();
    worker.requestLab(labJob(2, second));
    QVERIFY(recorder.waitFor(Event::LabFinished, 2));
    QList<Event> finished;
    for (const Event& e : recorder.events)
        if (e.kind == Event::LabFinished)
            finished.append(e);
    QCOMPARE(finished.size(), 2);
    QCOMPARE(finished[0].generation, quint64(1));
    QVERIFY(finished[0].lab->cancelled);
    QVERIFY(finished[0].lab->curves.dK.empty());
    QCOMPARE(finished[1].generation, quint64(2));
    QVERIFY(!finished[1].lab->cancelled);
    QVERIFY(finished[1].lab->error.isEmpty());
    QVERIFY(sameCurves(finished[1].lab->curves, direct(second)));
    QString why;
    QVERIFY2(risesToTotal(recorder.events, 2, second.samples, &why), qPrintable(why));

    // One waiting behind an attention job, replaced before it starts: also
    // answered, once.
    auto job = std::make_unique<AttentionWorker::Job>();
    job->generation = 1;
    job->redraw = true;
    job->config = largeConfig(1024);
    worker.request(std::move(job));
    worker.requestLab(labJob(3, longConfig()));
    worker.cancelLab();
    QVERIFY(recorder.waitFor(Event::LabFinished, 3));
    QVERIFY(recorder.waitFor(Event::AttentionFinished, 1));
    QCOMPARE(recorder.count(Event::LabFinished), 3);
    for (const Event& e : recorder.events)
        if (e.kind == Event::LabFinished && e.generation == 3)
            QVERIFY(e.lab->cancelled);
}

void TestScalingLabRun::newerComputeDropsTheOlder()
{
    ScalingLabRun run;
    QSignalSpy ready(&run, &ScalingLabRun::curvesReady);
    QSignalSpy dropped(&run, &ScalingLabRun::requestDropped);
    QSignalSpy progress(&run, &ScalingLabRun::progressChanged);
    run.compute(longConfig());
    QVERIFY(progress.wait(kHangGuardMs));
    const attn::ScalingLabConfig second = smallConfig();
    run.compute(second);
    QCOMPARE(run.config().samples, 200);
    QVERIFY(ready.wait(kHangGuardMs));
    QCOMPARE(ready.count(), 1);
    QCOMPARE(dropped.count(), 1);
    QVERIFY(sameCurves(run.curves(), direct(second)));
    QCOMPARE(run.progressDone(), 200);
}

void TestScalingLabRun::attentionPreemptsTheLab()
{
    AttentionWorker worker(std::make_shared<ResultPool>());
    Recorder recorder(&worker);
    const attn::ScalingLabConfig lab = mediumConfig();
    worker.requestLab(labJob(7, lab));
    QVERIFY(recorder.waitFor(Event::LabProgress, 1));
    auto job = std::make_unique<AttentionWorker::Job>();
    job->generation = 1;
    job->redraw = true;
    job->config = largeConfig(1024);
    worker.request(std::move(job));
    QVERIFY(recorder.waitFor(Event::LabFinished, 1));
    QVERIFY(recorder.waitFor(Event::AttentionFinished, 1));

    // The attention job went first: the lab stopped for it, then started
    // again and reported on from where it had been.
    int attentionAt = -1, labAt = -1, progressBefore = 0, progressAfter = 0;
    for (int i = 0; i < recorder.events.size(); ++i) {
        const Event& e = recorder.events[i];
        if (e.kind == Event::AttentionFinished)
            attentionAt = i;
        else if (e.kind == Event::LabFinished)
            labAt = i;
        else
            ++(attentionAt < 0 ? progressBefore : progressAfter);
    }
    QVERIFY2(attentionAt < labAt, "the lab job finished before the attention job");
    QVERIFY(progressBefore >= 1);
    QVERIFY(progressAfter >= 1);
    QString why;
    QVERIFY2(risesToTotal(recorder.events, 7, lab.samples, &why), qPrintable(why));

    const Event& labDone = recorder.events[labAt];
    QCOMPARE(labDone.generation, quint64(7));
    QVERIFY(!labDone.lab->cancelled);
    QVERIFY(labDone.lab->error.isEmpty());
    QVERIFY(sameCurves(labDone.lab->curves, direct(lab)));

    const Event& attention = recorder.events[attentionAt];
    QVERIFY(!attention.attention->cancelled);
    QVERIFY(attention.attention->error.isEmpty());
    attn::Expected<attn::Model> model = attn::buildModel(largeConfig(1024));
    QVERIFY(model);
    const auto expected = attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, {});
    QVERIFY(expected);
    QVERIFY(sameMatrix(attention.attention->result->weightsMatrix(), expected->weightsMatrix()));
    QVERIFY(sameMatrix(attention.attention->result->context, expected->context));
}

// A look-ahead (the next seed step's work, computed while the window is
// idle) preempts a lab job as a request does: it is ready before the lab
// ends, the lab then starts again and ends with its curves, and a request
// for the same work takes the look-ahead.
void TestScalingLabRun::aLookAheadPreemptsTheLab()
{
    AttentionWorker worker(std::make_shared<ResultPool>());
    Recorder recorder(&worker);
    const attn::ScalingLabConfig lab = mediumConfig();
    worker.requestLab(labJob(7, lab));
    QVERIFY(recorder.waitFor(Event::LabProgress, 1));
    const auto job = [](quint64 generation) {
        auto j = std::make_unique<AttentionWorker::Job>();
        j->generation = generation;
        j->redraw = true;
        j->config = largeConfig(1024);
        return j;
    };
    worker.lookAhead(job(1));
    QElapsedTimer waited;
    waited.start();
    while (!worker.lookAheadReady() && waited.elapsed() < kHangGuardMs)
        QTest::qWait(1);
    QVERIFY(worker.lookAheadReady());
    QCOMPARE(recorder.count(Event::LabFinished), 0);  // the lab stopped for it
    worker.request(job(2));
    QCOMPARE(worker.lookAheadsTaken(), 1);
    QVERIFY(recorder.waitFor(Event::AttentionFinished, 1));
    QVERIFY(recorder.waitFor(Event::LabFinished, 1));
    for (const Event& e : recorder.events) {
        if (e.kind == Event::AttentionFinished) {
            QCOMPARE(e.generation, quint64(2));
            QVERIFY(e.attention->error.isEmpty());
        } else if (e.kind == Event::LabFinished) {
            QVERIFY(!e.lab->cancelled);
            QVERIFY(sameCurves(e.lab->curves, direct(lab)));
        }
    }
    QString why;
    QVERIFY2(risesToTotal(recorder.events, 7, lab.samples, &why), qPrintable(why));
}

void TestScalingLabRun::labWaitsForAPauseOfTheMaps()
{
    // A lab request right after the maps' work starts only once that work has
    // paused for 300 ms (so that a moving slider does not start and stop it
    // in every gap); the attention job itself takes a few milliseconds.
    AttentionWorker worker(std::make_shared<ResultPool>());
    Recorder recorder(&worker);
    auto job = std::make_unique<AttentionWorker::Job>();
    job->generation = 1;
    job->redraw = true;
    job->config = largeConfig(32);
    const qint64 requested = recorder.clock.elapsed();
    worker.request(std::move(job));
    QVERIFY(recorder.waitFor(Event::AttentionFinished, 1));
    worker.requestLab(labJob(2, mediumConfig()));
    QVERIFY(recorder.waitFor(Event::LabProgress, 1));
    qint64 firstProgress = -1;
    for (const Event& e : recorder.events)
        if (e.kind == Event::LabProgress && firstProgress < 0)
            firstProgress = e.at;
    QVERIFY2(
        firstProgress - requested >= 300,
        qPrintable(
            QString("the lab reported %1 ms after the attention request").arg(firstProgress - requested)));
    QVERIFY(recorder.waitFor(Event::LabFinished, 1));
}

void TestScalingLabRun::sessionMapsComeFirstAndTheLabStillEnds()
{
    Session session;
    ScalingLabRun* lab = session.scalingLab();
    QVERIFY(lab);
    QSignalSpy ready(lab, &ScalingLabRun::curvesReady);
    QSignalSpy dropped(lab, &ScalingLabRun::requestDropped);
    QSignalSpy progress(lab, &ScalingLabRun::progressChanged);
    QSignalSpy results(&session, &Session::resultChanged);
    const attn::ScalingLabConfig config = mediumConfig();
    lab->compute(config);
    QVERIFY(progress.wait(kHangGuardMs));
    const attn::ModelConfig large = largeConfig(1024);
    session.setParameters(large, attn::AttentionOptions());
    QVERIFY(session.isComputing());  // in the worker, which the lab shares
    QVERIFY(results.wait(kHangGuardMs));
    QVERIFY(lab->isComputing());  // it waited for the maps
    QVERIFY(ready.count() == 1 || ready.wait(kHangGuardMs));
    QCOMPARE(ready.count(), 1);
    QCOMPARE(dropped.count(), 0);
    QVERIFY(!lab->isComputing());
    QVERIFY(sameCurves(lab->curves(), direct(config)));
    QCOMPARE(lab->progressDone(), config.samples);
    int last = 0;
    for (const QList<QVariant>& p : progress) {
        QVERIFY(p.at(0).toInt() > last);
        QCOMPARE(p.at(1).toInt(), config.samples);
        last = p.at(0).toInt();
    }
    QCOMPARE(last, config.samples);

    QCOMPARE(session.published()->tokenCount(), 1024);
    attn::Expected<attn::Model> model = attn::buildModel(large);
    QVERIFY(model);
    const auto expected = attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, {});
    QVERIFY(expected);
    QVERIFY(sameMatrix(session.published()->shown()->weightsMatrix(), expected->weightsMatrix()));
}

void TestScalingLabRun::setCurvesSupersedesAndSetsTheConfig()
{
    ScalingLabRun run;
    QSignalSpy ready(&run, &ScalingLabRun::curvesReady);
    QSignalSpy dropped(&run, &ScalingLabRun::requestDropped);
    run.compute(longConfig());
    attn::ScalingLabConfig config = smallConfig();
    config.dks = {1, 16, 256};
    const attn::ScalingLabCurves given = direct(config);
    run.setCurves(given);
    QCOMPARE(ready.count(), 1);
    QVERIFY(!run.isComputing());
    QVERIFY(sameCurves(run.curves(), given));
    QCOMPARE(run.config().nKeys, 4);
    QCOMPARE(run.config().samples, 200);
    QCOMPARE(run.config().seed, std::uint64_t(11));
    QCOMPARE(run.config().dks, (std::vector<int>{1, 16, 256}));
    QVERIFY(dropped.wait(kHangGuardMs));  // the long run, answered as cancelled
    QCOMPARE(ready.count(), 1);
    run.prefetch();  // there are curves: nothing to do
    QVERIFY(!run.isComputing());
}

void TestScalingLabRun::badConfigFails()
{
    ScalingLabRun run;
    QSignalSpy failed(&run, &ScalingLabRun::failed);
    attn::ScalingLabConfig config = smallConfig();
    config.nKeys = 1;
    run.compute(config);
    QVERIFY(failed.wait(kHangGuardMs));
    const QString message = failed.first().first().toString();
    QCOMPARE(message, QString::fromStdString(attn::validateScalingLabConfig(config).error().message));
    QCOMPARE(run.error(), message);
    QVERIFY(!run.isComputing());
    QVERIFY(!run.hasCurves());
}

void TestScalingLabRun::nearestIndexOnTheLogAxis()
{
    ScalingLabRun run;
    QCOMPARE(run.nearestIndex(64.0), -1);
    attn::ScalingLabConfig config = smallConfig();
    config.samples = 2;
    config.dks = {1, 4, 16, 64};
    run.setCurves(direct(config));
    QCOMPARE(run.nearestIndex(1.0), 0);
    QCOMPARE(run.nearestIndex(1.9), 0);   // ln 1.9 is nearer ln 1 than ln 4
    QCOMPARE(run.nearestIndex(2.1), 1);   // past the geometric mean 2
    QCOMPARE(run.nearestIndex(31.0), 2);  // 16 and 64 meet at 32
    QCOMPARE(run.nearestIndex(33.0), 3);
    QCOMPARE(run.nearestIndex(5000.0), 3);
    QCOMPARE(run.nearestIndex(0.0), -1);
}

void TestScalingLabRun::destroyedWhileComputing()
{
    // A run of its own: its worker is cancelled and joined.
    auto* run = new ScalingLabRun;
    QSignalSpy progress(run, &ScalingLabRun::progressChanged);
    run->compute(longConfig());
    QVERIFY(progress.wait(kHangGuardMs));
    delete run;
    // The session's: the lab goes first, then the worker, both mid-computation.
    auto* session = new Session;
    QSignalSpy sessionProgress(session->scalingLab(), &ScalingLabRun::progressChanged);
    session->scalingLab()->compute(longConfig());
    QVERIFY(sessionProgress.wait(kHangGuardMs));
    session->setParameters(largeConfig(1024), attn::AttentionOptions());
    QVERIFY(session->isComputing());
    delete session;
}

QTEST_GUILESS_MAIN(TestScalingLabRun)
#include "tst_scalinglabrun.moc"
