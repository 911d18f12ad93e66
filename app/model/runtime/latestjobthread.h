// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One thread running the newest job handed to it: a job handed over while
// another is waiting replaces the waiting one (which never runs), so a
// burst of requests (typing) costs at most the job in flight and the last
// one. The job in flight is told it is superseded: its flag is set as soon
// as a newer job is handed over (or the thread is destroyed), so that a long
// job can stop early (attn::Gpt2Options::cancel). Jobs report back on their
// own (Gpt2Session posts its outcome to the GUI thread and drops those older
// than its newest request). The destructor drops the waiting job and joins,
// after the job in flight ends.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace attnlab {

class LatestJobThread {
public:
    // `superseded` becomes true once a newer job is posted; it stays valid
    // for the job's whole run.
    using Job = std::function<void(const std::atomic<bool>& superseded)>;

    LatestJobThread();
    ~LatestJobThread();
    LatestJobThread(const LatestJobThread&) = delete;
    LatestJobThread& operator=(const LatestJobThread&) = delete;

    // Never blocks on the job in flight.
    void post(Job job);

private:
    void run();

    std::mutex mutex_;
    std::condition_variable wake_;
    Job waiting_;
    std::shared_ptr<std::atomic<bool>> running_;  // the flag of the job in flight, or null
    bool quit_ = false;
    std::thread thread_;  // last: started once the rest is ready
};

}  // namespace attnlab
