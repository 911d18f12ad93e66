// SPDX-License-Identifier: GPL-3.0-or-later
#include "latestjobthread.h"

#include <utility>

namespace attnlab {

LatestJobThread::LatestJobThread() : thread_([this] { run(); })
{
}

LatestJobThread::~LatestJobThread()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        quit_ = true;
        waiting_ = nullptr;
    }
    wake_.notify_one();
    thread_.join();
}

void LatestJobThread::post(std::function<void()> job)
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        waiting_ = std::move(job);
    }
    wake_.notify_one();
}

void LatestJobThread::run()
{
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [this] { return quit_ || waiting_; });
            if (quit_)
                return;
            job = std::move(waiting_);
            waiting_ = nullptr;
        }
        job();
    }
}

}  // namespace attnlab
