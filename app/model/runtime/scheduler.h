// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one mechanism for background work (issue 37): a JobLane is one thread
// running the jobs posted to it, by one of two policies.
//
// - Policy::Latest: the newest job wins. A job posted while another waits
//   replaces the waiting one, which never runs, so a burst of requests
//   (typing) costs at most the job in flight and the last one. The job in
//   flight has its stop flag set as soon as a newer job is posted, so that a
//   long job can end early (attn::DecoderRunOptions::cancel). ModelSession's loader
//   and runner, TrainingLabRun, the import dialog's read.
// - Policy::Queue: first in, first out, and every job runs (the reaper's
//   frees).
//
// Every job is handed a `const std::atomic<bool>& stop`, valid for its whole
// run: set when a newer job supersedes it (Latest) or when the lane shuts
// down (both policies). A job is cancelled by that flag alone; jobs report
// back on their own (a queued call to the GUI thread, which drops reports a
// newer request has made stale by their generation).
//
// The destructor shuts the lane down: it sets the stop flag of the job in
// flight, drops a waiting Latest job, runs every queued Queue job (with its
// stop flag already set, so a job that can skip its work does), then joins.
// The lane's lifetime is its owner's: no thread outlives the object that
// posts to it. drain() returns once everything posted before the call has
// run (or was dropped, for Latest).
//
// A LaneGroup is the same mechanism with several lanes served by one thread
// by priority (lane 0 first): AttentionWorker's requests, look-ahead and
// d_k lab. A JobLane is a LaneGroup of one lane. Per lane, beyond the
// policy:
// - yields: a job of the lane in flight has its stop flag set when a higher
//   lane is given a job;
// - a job may ask to run again (its function returns false: it stopped
//   early for a higher lane); it goes back to the head of its lane, its stop
//   flag cleared, unless a newer job of the lane waits;
// - quiet: the lane's next job starts only once the higher lanes have had
//   no job in flight for that long (a slider's burst of requests does not
//   start and stop the lab in every gap);
// - answerSuperseded (Latest): a job superseded before it ran is still
//   called, its stop flag already set, so that every job can answer once.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace attnlab {

class LaneGroup {
public:
    enum class Policy {
        Latest,  // a newer job replaces a waiting one and stops the one in flight
        Queue,   // FIFO, every job runs
    };
    struct Lane {
        Policy policy = Policy::Latest;
        bool yields = false;                 // stopped for a higher lane's job
        std::chrono::milliseconds quiet{0};  // after the higher lanes' last job
        bool answerSuperseded = false;       // Latest: a superseded job still runs, stopped
    };
    // `stop` is set once the job is superseded, yields or the group shuts
    // down; it stays valid for the job's whole run. The job returns false to
    // run again later (see above), true when it is done.
    using Job = std::function<bool(const std::atomic<bool>& stop)>;

    // `name` names the thread (as the debugger and `top -H` show it; at most
    // 15 characters are kept). Lane 0 comes first.
    LaneGroup(std::vector<Lane> lanes, std::string name);
    ~LaneGroup();  // stop, drop waiting Latest jobs, run queued Queue jobs, join
    LaneGroup(const LaneGroup&) = delete;
    LaneGroup& operator=(const LaneGroup&) = delete;

    const std::string& name() const { return name_; }
    const Lane& lane(int lane) const { return lanes_[std::size_t(lane)].spec; }

    // Never blocks on the job in flight. Once the group is shutting down (a
    // job posting from its own thread, or a deleter run during static
    // destruction), a Queue job runs at once on the caller's thread with its
    // stop flag set, and a Latest job is dropped.
    void post(int lane, Job job);
    // Latest: the waiting job is superseded and the one in flight stopped,
    // with no new one.
    void cancel(int lane);

    // Returns once every job posted before the call has run or was dropped.
    // Not from a job of this group (it would wait for itself).
    void drain();

private:
    struct Entry {
        Job job;
        std::shared_ptr<std::atomic<bool>> stop;
        std::uint64_t number;  // in the order posted
    };
    struct LaneState {
        Lane spec;
        std::deque<Entry> waiting;
        // Queue: the one stop flag of all its jobs, set at shutdown.
        std::shared_ptr<std::atomic<bool>> queueStop;
        std::chrono::steady_clock::time_point lastEnded{};  // its last job in flight ended
    };

    void run();
    void supersede(int lane);  // Latest: the waiting and in-flight jobs
    // The lane to run next (-1: none), or when to look again (`until`).
    int next(std::chrono::steady_clock::time_point* until) const;
    // The number of the oldest job not yet run or dropped (posted_ if none).
    std::uint64_t oldestPending() const;

    const std::string name_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable retired_;
    std::vector<LaneState> lanes_;
    int inFlightLane_ = -1;
    std::shared_ptr<std::atomic<bool>> inFlight_;  // the stop flag of the job running, or null
    std::uint64_t inFlightNumber_ = 0;
    std::uint64_t posted_ = 0;  // jobs posted
    bool quit_ = false;
    std::thread thread_;  // last: started once the rest is ready
};

// One lane on a thread of its own.
class JobLane {
public:
    using Policy = LaneGroup::Policy;
    // `stop` is set once the job is superseded (Latest) or the lane shuts
    // down; it stays valid for the job's whole run.
    using Job = std::function<void(const std::atomic<bool>& stop)>;

    JobLane(Policy policy, std::string name);
    ~JobLane() = default;  // see LaneGroup: stop, drop waiting Latest / run queued Queue, join

    Policy policy() const { return group_.lane(0).policy; }
    const std::string& name() const { return group_.name(); }

    // See LaneGroup::post and drain.
    void post(Job job);
    void drain() { group_.drain(); }

private:
    LaneGroup group_;
};

}  // namespace attnlab
