// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One thread running the newest job handed to it: a job handed over while
// another is waiting replaces the waiting one (which never runs), so a
// burst of requests (typing) costs at most the job in flight and the last
// one. Jobs report back on their own (Gpt2Session posts its outcome to the
// GUI thread and drops those older than its newest request). The destructor
// drops the waiting job and joins, after the job in flight ends.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace attnlab {

class LatestJobThread {
public:
    LatestJobThread();
    ~LatestJobThread();
    LatestJobThread(const LatestJobThread&) = delete;
    LatestJobThread& operator=(const LatestJobThread&) = delete;

    // Never blocks on the job in flight.
    void post(std::function<void()> job);

private:
    void run();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::function<void()> waiting_;
    bool quit_ = false;
    std::thread thread_;  // last: started once the rest is ready
};

}  // namespace attnlab
