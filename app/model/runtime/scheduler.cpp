// SPDX-License-Identifier: GPL-3.0-or-later
#include "scheduler.h"

#include <algorithm>
#include <utility>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace attnlab {

LaneGroup::LaneGroup(std::vector<Lane> lanes, std::string name) : name_(std::move(name))
{
    for (const Lane& spec : lanes)
        lanes_.push_back(LaneState{spec, {}, std::make_shared<std::atomic<bool>>(false), {}});
    thread_ = std::thread([this] { run(); });
}

LaneGroup::~LaneGroup()
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        quit_ = true;
        if (inFlight_)
            inFlight_->store(true);
        for (LaneState& lane : lanes_) {
            lane.queueStop->store(true);
            if (lane.spec.policy == Policy::Latest)
                lane.waiting.clear();  // never runs
        }
    }
    wake_.notify_one();
    retired_.notify_all();
    thread_.join();
}

void LaneGroup::supersede(int index)
{
    LaneState& lane = lanes_[std::size_t(index)];
    if (lane.spec.answerSuperseded) {
        for (Entry& e : lane.waiting)
            e.stop->store(true);  // runs, stopped, to answer
    } else {
        lane.waiting.clear();  // superseded before it ran
    }
    if (inFlight_ && inFlightLane_ == index)
        inFlight_->store(true);
}

void LaneGroup::post(int index, Job job)
{
    std::unique_lock<std::mutex> lock(mutex_);
    LaneState& lane = lanes_[std::size_t(index)];
    if (quit_) {
        if (lane.spec.policy == Policy::Latest)
            return;  // dropped: the group is shutting down
        lock.unlock();
        job(*lane.queueStop);  // already set
        return;
    }
    const std::uint64_t number = posted_++;
    if (lane.spec.policy == Policy::Latest) {
        supersede(index);
        lane.waiting.push_back({std::move(job), std::make_shared<std::atomic<bool>>(false), number});
    } else {
        lane.waiting.push_back({std::move(job), lane.queueStop, number});
    }
    // A lower lane's job in flight yields to it.
    if (inFlight_ && inFlightLane_ > index && lanes_[std::size_t(inFlightLane_)].spec.yields)
        inFlight_->store(true);
    lock.unlock();
    wake_.notify_one();
    retired_.notify_all();  // a dropped job counts as done
}

void LaneGroup::cancel(int index)
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        LaneState& lane = lanes_[std::size_t(index)];
        if (lane.spec.policy != Policy::Latest)
            return;
        supersede(index);
    }
    wake_.notify_one();
    retired_.notify_all();
}

std::uint64_t LaneGroup::oldestPending() const
{
    std::uint64_t oldest = posted_;
    if (inFlight_)
        oldest = std::min(oldest, inFlightNumber_);
    for (const LaneState& lane : lanes_)
        for (const Entry& e : lane.waiting)
            oldest = std::min(oldest, e.number);
    return oldest;
}

void LaneGroup::drain()
{
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t target = posted_;
    retired_.wait(lock, [this, target] { return oldestPending() >= target; });
}

int LaneGroup::next(std::chrono::steady_clock::time_point* until) const
{
    *until = std::chrono::steady_clock::time_point::max();
    std::chrono::steady_clock::time_point higherEnded{};
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        const LaneState& lane = lanes_[i];
        if (!lane.waiting.empty()) {
            // A superseded job answers at once; quit_ runs what is left now.
            const bool stopped = lane.waiting.front().stop->load();
            const auto start = higherEnded + lane.spec.quiet;
            if (lane.spec.quiet.count() == 0 || stopped || quit_ || std::chrono::steady_clock::now() >= start)
                return int(i);
            *until = std::min(*until, start);
        }
        higherEnded = std::max(higherEnded, lane.lastEnded);
    }
    return -1;
}

void LaneGroup::run()
{
#if defined(__linux__)
    ::pthread_setname_np(::pthread_self(), name_.substr(0, 15).c_str());
#endif
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        std::chrono::steady_clock::time_point until;
        const int index = next(&until);
        if (index < 0) {
            if (quit_)
                return;  // nothing left to run
            if (until == std::chrono::steady_clock::time_point::max())
                wake_.wait(lock);
            else
                wake_.wait_until(lock, until);
            continue;
        }
        LaneState& lane = lanes_[std::size_t(index)];
        Entry entry = std::move(lane.waiting.front());
        lane.waiting.pop_front();
        inFlight_ = entry.stop;
        inFlightLane_ = index;
        inFlightNumber_ = entry.number;
        lock.unlock();
        const bool done = entry.job(*entry.stop);
        if (done)
            entry.job = nullptr;  // what it holds is released here, on this thread
        lock.lock();
        lane.lastEnded = std::chrono::steady_clock::now();
        if (!done) {
            // Again later: first of its lane, unless a newer job waits there.
            if (!quit_ && lane.waiting.empty()) {
                entry.stop = std::make_shared<std::atomic<bool>>(false);
                lane.waiting.push_front(std::move(entry));
            } else if (!quit_ && lane.spec.answerSuperseded) {
                lane.waiting.push_front(std::move(entry));  // stopped: it answers
            } else {
                lock.unlock();
                entry.job = nullptr;
                lock.lock();
            }
        }
        inFlight_.reset();
        inFlightLane_ = -1;
        retired_.notify_all();
    }
}

JobLane::JobLane(Policy policy, std::string name)
    : group_({LaneGroup::Lane{policy, false, {}, false}}, std::move(name))
{
}

void JobLane::post(Job job)
{
    group_.post(0, [job = std::move(job)](const std::atomic<bool>& stop) {
        job(stop);
        return true;
    });
}

}  // namespace attnlab
