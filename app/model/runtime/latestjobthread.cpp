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
        if (running_)
            running_->store(true);
    }
    wake_.notify_one();
    thread_.join();
}

void LatestJobThread::post(Job job)
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        waiting_ = std::move(job);
        if (running_)
            running_->store(true);
    }
    wake_.notify_one();
}

void LatestJobThread::run()
{
    for (;;) {
        Job job;
        std::shared_ptr<std::atomic<bool>> superseded;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            running_.reset();
            wake_.wait(lock, [this] { return quit_ || waiting_; });
            if (quit_)
                return;
            job = std::move(waiting_);
            waiting_ = nullptr;
            superseded = std::make_shared<std::atomic<bool>>(false);
            running_ = superseded;
        }
        job(*superseded);
    }
}

}  // namespace attnlab
