// SPDX-License-Identifier: GPL-3.0-or-later
#include "scheduler.h"

#include <utility>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace attnlab {

JobLane::JobLane(Policy policy, std::string name)
    : policy_(policy),
      name_(std::move(name)),
      queueStop_(std::make_shared<std::atomic<bool>>(false)),
      thread_([this] { run(); })
{
}

JobLane::~JobLane()
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        quit_ = true;
        queueStop_->store(true);
        if (inFlight_)
            inFlight_->store(true);
        if (policy_ == Policy::Latest)
            waiting_.clear();  // never runs
    }
    wake_.notify_one();
    retired_.notify_all();
    thread_.join();
}

void JobLane::post(Job job)
{
    std::unique_lock<std::mutex> lock(mutex_);
    if (quit_) {
        if (policy_ == Policy::Latest)
            return;  // dropped: the lane is shutting down
        lock.unlock();
        job(*queueStop_);  // already set
        return;
    }
    const std::uint64_t number = posted_++;
    if (policy_ == Policy::Latest) {
        waiting_.clear();  // superseded before it ran
        waiting_.push_back({std::move(job), std::make_shared<std::atomic<bool>>(false), number});
        if (inFlight_)
            inFlight_->store(true);
    } else {
        waiting_.push_back({std::move(job), queueStop_, number});
    }
    lock.unlock();
    wake_.notify_one();
    retired_.notify_all();  // a dropped job counts as done
}

std::uint64_t JobLane::oldestPending() const
{
    if (inFlight_)
        return inFlightNumber_;
    if (!waiting_.empty())
        return waiting_.front().number;
    return posted_;
}

void JobLane::drain()
{
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t target = posted_;
    retired_.wait(lock, [this, target] { return oldestPending() >= target; });
}

void JobLane::run()
{
#if defined(__linux__)
    ::pthread_setname_np(::pthread_self(), name_.substr(0, 15).c_str());
#endif
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return quit_ || !waiting_.empty(); });
        if (waiting_.empty())
            return;  // quit_, and nothing left to run
        Entry entry = std::move(waiting_.front());
        waiting_.pop_front();
        inFlight_ = entry.stop;
        inFlightNumber_ = entry.number;
        lock.unlock();
        entry.job(*entry.stop);
        entry.job = nullptr;  // what it holds is released here, on this thread
        lock.lock();
        inFlight_.reset();
        retired_.notify_all();
    }
}

}  // namespace attnlab
