// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one mechanism for background work (issue 37): a JobLane is one thread
// running the jobs posted to it, by one of two policies.
//
// - Policy::Latest: the newest job wins. A job posted while another waits
//   replaces the waiting one, which never runs, so a burst of requests
//   (typing) costs at most the job in flight and the last one. The job in
//   flight has its stop flag set as soon as a newer job is posted, so that a
//   long job can end early (attn::Gpt2Options::cancel). ModelSession's loader
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
// What comes next (AttentionWorker is the one remaining separate mechanism):
// its three lanes (requests > look-ahead > the d_k lab) share one thread by
// priority, and a lower job is stopped and started again, not dropped, when
// a higher one arrives. On this design that is a `LaneGroup`: several lanes,
// each with its policy (requests: Latest; look-ahead: Latest with a "same
// work" take-over; lab: Latest, kept when preempted), served by one thread
// that always takes the highest non-empty lane and, on a post to a higher
// lane, sets the stop flag of a lower job in flight and puts it back at the
// head of its lane instead of retiring it. The stop flag, the policies,
// drain() and the shutdown order are the ones here; only the choice of the
// next job and the re-queueing of a preempted one are new. It is not built
// yet because AttentionWorker's look-ahead and preview timing are tuned and
// tested as they are.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace attnlab {

class JobLane {
public:
    enum class Policy {
        Latest,  // a newer job replaces a waiting one and stops the one in flight
        Queue,   // FIFO, every job runs
    };
    // `stop` is set once the job is superseded (Latest) or the lane shuts
    // down; it stays valid for the job's whole run.
    using Job = std::function<void(const std::atomic<bool>& stop)>;

    // `name` names the thread (as the debugger and `top -H` show it; at most
    // 15 characters are kept).
    JobLane(Policy policy, std::string name);
    ~JobLane();  // see above: stop, drop waiting Latest / run queued Queue, join
    JobLane(const JobLane&) = delete;
    JobLane& operator=(const JobLane&) = delete;

    Policy policy() const { return policy_; }
    const std::string& name() const { return name_; }

    // Never blocks on the job in flight. Once the lane is shutting down (a
    // job posting from its own lane, or a deleter run during static
    // destruction), a Queue job runs at once on the caller's thread with its
    // stop flag set, and a Latest job is dropped.
    void post(Job job);

    // Returns once every job posted before the call has run or was dropped.
    // Not from a job of this lane (it would wait for itself).
    void drain();

private:
    struct Entry {
        Job job;
        std::shared_ptr<std::atomic<bool>> stop;
        std::uint64_t number;  // in the order posted
    };

    void run();
    // The number of the oldest job not yet run or dropped (posted_ if none).
    std::uint64_t oldestPending() const;

    const Policy policy_;
    const std::string name_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable retired_;
    std::deque<Entry> waiting_;  // Latest: at most one
    // Queue: the one stop flag of all its jobs, set at shutdown.
    const std::shared_ptr<std::atomic<bool>> queueStop_;
    std::shared_ptr<std::atomic<bool>> inFlight_;  // the stop flag of the job running, or null
    std::uint64_t inFlightNumber_ = 0;
    std::uint64_t posted_ = 0;  // jobs posted
    bool quit_ = false;
    std::thread thread_;  // last: started once the rest is ready
};

}  // namespace attnlab
