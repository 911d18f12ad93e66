// SPDX-License-Identifier: GPL-3.0-or-later
// The scheduler's lanes (issue 37), alone (JobLane) and in a group
// (LaneGroup: priority, yielding and running again, quiet, answers). Latest: a burst of posts runs the job in
// flight and the last one, in that order; a newer post sets the stop flag of
// the job in flight; shutdown drops the waiting job, stops the one in flight
// and joins. Queue: every job runs, in order, on the lane's thread; drain()
// waits for them; shutdown runs what is queued with the stop flag set.

#include "scheduler.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

using namespace attnlab;

namespace {

// A door a job waits at until the test opens it.
class Gate {
public:
    void open()
    {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            open_ = true;
        }
        changed_.notify_all();
    }
    void wait()
    {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return open_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool open_ = false;
};

// What the jobs saw, recorded under a lock.
struct Log {
    std::mutex mutex;
    std::vector<int> ran;
    std::vector<bool> stopped;  // each job's stop flag when it ended
    std::vector<std::thread::id> threads;

    void add(int id, bool stop)
    {
        const std::lock_guard<std::mutex> lock(mutex);
        ran.push_back(id);
        stopped.push_back(stop);
        threads.push_back(std::this_thread::get_id());
    }
    std::vector<int> order()
    {
        const std::lock_guard<std::mutex> lock(mutex);
        return ran;
    }
};

// Waits (a bounded while) until `flag` is set.
bool waitFor(const std::atomic<bool>& flag)
{
    for (int i = 0; i < 5000 && !flag.load(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return flag.load();
}

}  // namespace

class TestScheduler : public QObject {
    Q_OBJECT
private slots:
    void latestBurstRunsInFlightAndLast();
    void latestNewerPostStopsTheJobInFlight();
    void latestRunsEachPostWhenIdle();
    void latestShutdownDropsWaitingAndStops();
    void latestPostAfterDrainRuns();
    void queueRunsEveryJobInOrderOnItsThread();
    void queueDrainWaitsForJobsInFlight();
    void queueShutdownRunsWhatIsQueuedWithStopSet();
    void drainOnIdleLaneReturns();
    void groupRunsTheHigherLaneFirst();
    void groupLowerJobYieldsAndRunsAgain();
    void groupQuietLaneWaitsForTheHigherLanes();
    void groupSupersededJobAnswersStopped();
    void groupCancelStopsInFlightAndWaiting();
};

// Posted while the first job runs: 1..9 replace one another while waiting,
// only 9 runs after 0.
void TestScheduler::latestBurstRunsInFlightAndLast()
{
    Log log;
    Gate gate;
    std::atomic<bool> started{false};
    JobLane lane(JobLane::Policy::Latest, "test-latest");
    lane.post([&](const std::atomic<bool>& stop) {
        started = true;
        gate.wait();
        log.add(0, stop.load());
    });
    QVERIFY(waitFor(started));
    for (int i = 1; i < 10; ++i)
        lane.post([&log, i](const std::atomic<bool>& stop) { log.add(i, stop.load()); });
    gate.open();
    lane.drain();
    QCOMPARE(log.order(), (std::vector<int>{0, 9}));
    QCOMPARE(log.stopped, (std::vector<bool>{true, false}));  // 0 was superseded, 9 was not
    QVERIFY(log.threads[0] != std::this_thread::get_id());
    QCOMPARE(log.threads[0], log.threads[1]);
}

// The flag of the job in flight is set by the post itself, while the job
// still runs (so that a long job can end early), not once it ends.
void TestScheduler::latestNewerPostStopsTheJobInFlight()
{
    std::atomic<bool> started{false};
    std::atomic<bool> sawStop{false};
    std::atomic<bool> secondRan{false};
    JobLane lane(JobLane::Policy::Latest, "test-latest");
    lane.post([&](const std::atomic<bool>& stop) {
        started = true;
        // Ends early once told; the test fails by timeout if never told.
        for (int i = 0; i < 10000 && !stop.load(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        sawStop = stop.load();
    });
    QVERIFY(waitFor(started));
    QVERIFY(!secondRan.load());
    lane.post([&](const std::atomic<bool>& stop) { secondRan = !stop.load(); });
    lane.drain();
    QVERIFY(sawStop.load());
    QVERIFY(secondRan.load());
}

// Posts that find the lane idle all run, in order, each with a clear flag.
void TestScheduler::latestRunsEachPostWhenIdle()
{
    Log log;
    JobLane lane(JobLane::Policy::Latest, "test-latest");
    for (int i = 0; i < 4; ++i) {
        lane.post([&log, i](const std::atomic<bool>& stop) { log.add(i, stop.load()); });
        lane.drain();
    }
    QCOMPARE(log.order(), (std::vector<int>{0, 1, 2, 3}));
    QCOMPARE(log.stopped, (std::vector<bool>{false, false, false, false}));
}

// The destructor sets the flag of the job in flight, drops the waiting job
// (it never runs) and joins: the job in flight has ended when it returns.
void TestScheduler::latestShutdownDropsWaitingAndStops()
{
    Log log;
    std::atomic<bool> started{false};
    std::atomic<bool> ended{false};
    {
        JobLane lane(JobLane::Policy::Latest, "test-latest");
        lane.post([&](const std::atomic<bool>& stop) {
            started = true;
            while (!stop.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            std::this_thread::sleep_for(std::chrono::milliseconds(20));  // ends after the flag
            log.add(0, stop.load());
            ended = true;
        });
        QVERIFY(waitFor(started));
        // Not posted with a newer job after it: the flag is the shutdown's.
        lane.post([&log](const std::atomic<bool>& stop) { log.add(1, stop.load()); });
    }
    QVERIFY(ended.load());                         // joined
    QCOMPARE(log.order(), (std::vector<int>{0}));  // 1 was waiting: dropped
    QCOMPARE(log.stopped, (std::vector<bool>{true}));
}

// drain() waits for the job posted last, not only for the one in flight.
void TestScheduler::latestPostAfterDrainRuns()
{
    Log log;
    Gate gate;
    std::atomic<bool> started{false};
    JobLane lane(JobLane::Policy::Latest, "test-latest");
    lane.post([&](const std::atomic<bool>&) {
        started = true;
        gate.wait();
        log.add(0, false);
    });
    QVERIFY(waitFor(started));
    lane.post([&log](const std::atomic<bool>&) { log.add(1, false); });
    std::thread opener([&gate] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        gate.open();
    });
    lane.drain();
    opener.join();
    QCOMPARE(log.order(), (std::vector<int>{0, 1}));
}

void TestScheduler::queueRunsEveryJobInOrderOnItsThread()
{
    Log log;
    JobLane lane(JobLane::Policy::Queue, "test-queue");
    for (int i = 0; i < 50; ++i)
        lane.post([&log, i](const std::atomic<bool>& stop) { log.add(i, stop.load()); });
    lane.drain();
    std::vector<int> expected;
    for (int i = 0; i < 50; ++i)
        expected.push_back(i);
    QCOMPARE(log.order(), expected);
    for (std::size_t i = 0; i < log.threads.size(); ++i) {
        QVERIFY(!log.stopped[i]);
        QVERIFY(log.threads[i] != std::this_thread::get_id());
        QCOMPARE(log.threads[i], log.threads[0]);
    }
}

// drain() returns only once the job in flight and those queued behind it ran.
void TestScheduler::queueDrainWaitsForJobsInFlight()
{
    Log log;
    Gate gate;
    std::atomic<bool> started{false};
    JobLane lane(JobLane::Policy::Queue, "test-queue");
    lane.post([&](const std::atomic<bool>&) {
        started = true;
        gate.wait();
        log.add(0, false);
    });
    lane.post([&log](const std::atomic<bool>&) { log.add(1, false); });
    QVERIFY(waitFor(started));
    std::thread opener([&gate] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        gate.open();
    });
    lane.drain();
    opener.join();
    QCOMPARE(log.order(), (std::vector<int>{0, 1}));
}

// The destructor runs every queued job, in order, on the lane's thread, each
// with its stop flag set (a job that can skip its work may), then joins.
void TestScheduler::queueShutdownRunsWhatIsQueuedWithStopSet()
{
    Log log;
    Gate gate;
    std::atomic<bool> started{false};
    std::thread::id laneThread;
    std::thread opener;
    {
        JobLane lane(JobLane::Policy::Queue, "test-queue");
        lane.post([&](const std::atomic<bool>& stop) {
            started = true;
            laneThread = std::this_thread::get_id();
            gate.wait();
            log.add(0, stop.load());
        });
        QVERIFY(waitFor(started));
        for (int i = 1; i < 4; ++i)
            lane.post([&log, i](const std::atomic<bool>& stop) { log.add(i, stop.load()); });
        opener = std::thread([&gate] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            gate.open();
        });
        // The destructor sets the flag at once, before job 0 ends.
    }
    opener.join();
    QCOMPARE(log.order(), (std::vector<int>{0, 1, 2, 3}));
    QCOMPARE(log.stopped, (std::vector<bool>{true, true, true, true}));
    for (const std::thread::id& t : log.threads)
        QCOMPARE(t, laneThread);
}

void TestScheduler::drainOnIdleLaneReturns()
{
    JobLane latest(JobLane::Policy::Latest, "test-latest");
    JobLane queue(JobLane::Policy::Queue, "test-queue");
    latest.drain();
    queue.drain();
    QCOMPARE(latest.policy(), JobLane::Policy::Latest);
    QCOMPARE(queue.name(), std::string("test-queue"));
}

// One thread, lane 0 first: what waits in lane 0 runs before what waited
// longer in lane 1.
void TestScheduler::groupRunsTheHigherLaneFirst()
{
    Log log;
    Gate gate;
    std::atomic<bool> started{false};
    using Lane = LaneGroup::Lane;
    LaneGroup group({Lane{}, Lane{}}, "test-group");
    group.post(1, [&](const std::atomic<bool>& stop) {
        started = true;
        gate.wait();
        log.add(0, stop.load());
        return true;
    });
    QVERIFY(waitFor(started));
    group.post(1, [&log](const std::atomic<bool>& stop) {
        log.add(1, stop.load());
        return true;
    });
    group.post(0, [&log](const std::atomic<bool>& stop) {
        log.add(2, stop.load());
        return true;
    });
    gate.open();
    group.drain();
    // 0 was superseded by 1 in its own lane (Latest), not stopped by lane 0
    // (lane 1 does not yield); 2 ran before 1.
    QCOMPARE(log.order(), (std::vector<int>{0, 2, 1}));
    QCOMPARE(log.stopped, (std::vector<bool>{true, false, false}));
    QCOMPARE(log.threads[0], log.threads[1]);
    QCOMPARE(log.threads[1], log.threads[2]);
}

// A yielding lane's job in flight is stopped by a post to a higher lane;
// it returns false and runs again after, with a fresh flag, on the same
// job object (what it kept across the restart is still there).
void TestScheduler::groupLowerJobYieldsAndRunsAgain()
{
    Log log;
    std::atomic<bool> started{false};
    int runs = 0;  // the lower job's, on the group's thread only
    using Lane = LaneGroup::Lane;
    LaneGroup group({Lane{}, Lane{LaneGroup::Policy::Latest, true, {}, false}}, "test-group");
    group.post(1, [&](const std::atomic<bool>& stop) {
        ++runs;
        started = true;
        for (int i = 0; i < 10000 && !stop.load(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        log.add(10 + runs, stop.load());
        return stop.load() ? false : true;  // stopped early: again later
    });
    QVERIFY(waitFor(started));
    group.post(0, [&log](const std::atomic<bool>& stop) {
        log.add(0, stop.load());
        return true;
    });
    // The second run ends when the group shuts down or after 10 s: stop it
    // by a third post to lane 1 once it runs again.
    for (int i = 0; i < 5000 && log.order().size() < 2; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    QCOMPARE(log.order(), (std::vector<int>{11, 0}));
    QCOMPARE(log.stopped, (std::vector<bool>{true, false}));
    for (int i = 0; i < 5000 && runs < 2; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    group.post(1, [&log](const std::atomic<bool>& stop) {
        log.add(20, stop.load());
        return true;
    });
    group.drain();
    // Run 2 started with its flag clear; the newer post superseded it, and
    // it was not put back (a newer job waited), so 20 ran last.
    QCOMPARE(log.order(), (std::vector<int>{11, 0, 12, 20}));
    QCOMPARE(log.stopped, (std::vector<bool>{true, false, true, false}));
}

// A quiet lane starts only once the higher lanes' last job ended that long
// ago: a lower bound, so it cannot fail on a slow machine.
void TestScheduler::groupQuietLaneWaitsForTheHigherLanes()
{
    using Clock = std::chrono::steady_clock;
    const auto quiet = std::chrono::milliseconds(150);
    Clock::time_point highEnded;
    Clock::time_point lowStarted;
    using Lane = LaneGroup::Lane;
    LaneGroup group({Lane{}, Lane{LaneGroup::Policy::Latest, false, quiet, false}}, "test-group");
    group.post(0, [&](const std::atomic<bool>&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        highEnded = Clock::now();
        return true;
    });
    group.post(1, [&](const std::atomic<bool>&) {
        lowStarted = Clock::now();
        return true;
    });
    group.drain();
    QVERIFY(lowStarted - highEnded >= quiet);
}

// answerSuperseded: a job replaced while waiting still runs, with its flag
// set, before the newer one, so that every job can answer once.
void TestScheduler::groupSupersededJobAnswersStopped()
{
    Log log;
    Gate gate;
    std::atomic<bool> started{false};
    using Lane = LaneGroup::Lane;
    LaneGroup group({Lane{LaneGroup::Policy::Latest, false, {}, true}}, "test-group");
    group.post(0, [&](const std::atomic<bool>& stop) {
        started = true;
        gate.wait();
        log.add(0, stop.load());
        return true;
    });
    QVERIFY(waitFor(started));
    for (int i = 1; i < 4; ++i)
        group.post(0, [&log, i](const std::atomic<bool>& stop) {
            log.add(i, stop.load());
            return true;
        });
    gate.open();
    group.drain();
    QCOMPARE(log.order(), (std::vector<int>{0, 1, 2, 3}));
    QCOMPARE(log.stopped, (std::vector<bool>{true, true, true, false}));
}

void TestScheduler::groupCancelStopsInFlightAndWaiting()
{
    Log log;
    Gate gate;
    std::atomic<bool> started{false};
    using Lane = LaneGroup::Lane;
    LaneGroup group({Lane{LaneGroup::Policy::Latest, false, {}, true}, Lane{}}, "test-group");
    group.post(0, [&](const std::atomic<bool>& stop) {
        started = true;
        gate.wait();
        log.add(0, stop.load());
        return true;
    });
    QVERIFY(waitFor(started));
    group.post(0, [&log](const std::atomic<bool>& stop) {
        log.add(1, stop.load());
        return true;
    });
    group.cancel(0);
    group.cancel(1);  // nothing there
    gate.open();
    group.drain();
    QCOMPARE(log.order(), (std::vector<int>{0, 1}));
    QCOMPARE(log.stopped, (std::vector<bool>{true, true}));
}

QTEST_APPLESS_MAIN(TestScheduler)
#include "tst_scheduler.moc"
