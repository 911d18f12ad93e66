// SPDX-License-Identifier: GPL-3.0-or-later
#include "reaper.h"

#include <utility>

namespace attnlab {

Reaper::Reaper() : thread_([this] { run(); })
{
}

Reaper::~Reaper()
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

Reaper& Reaper::instance()
{
    static Reaper reaper;
    return reaper;
}

void Reaper::dispose(std::function<void()> free)
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!stopping_) {
            queue_.push_back(std::move(free));
            wake_.notify_one();
            return;
        }
    }
    free();  // the reaper is gone (static destruction): here, then
}

void Reaper::drain()
{
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void Reaper::run()
{
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) {
            idle_.notify_all();
            if (stopping_)
                return;
            continue;
        }
        std::function<void()> free = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        lock.unlock();
        free();
        free = nullptr;
        lock.lock();
        busy_ = false;
        if (queue_.empty())
            idle_.notify_all();
    }
}

}  // namespace attnlab
