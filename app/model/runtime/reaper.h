// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Frees large blocks off the caller's thread. Returning a large block to the
// system takes longer than drawing the new result, so the last owner (usually
// a map on the GUI thread letting go of the previous result) hands it to one
// long-lived thread instead: a Queue lane of the scheduler (scheduler.h), so
// blocks are freed in the order handed over. The lane is joined at exit,
// after freeing what is queued; a block handed over after that is freed at
// once, on the caller's thread.

#include "scheduler.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

namespace attnlab {

class Reaper {
public:
    Reaper();
    ~Reaper() = default;  // frees what is queued, then joins the lane's thread
    Reaper(const Reaper&) = delete;
    Reaper& operator=(const Reaper&) = delete;

    // The process's reaper, destroyed (and joined) at exit.
    static Reaper& instance();

    // Runs `free` on the reaper's thread, soon (at shutdown too: a free
    // never skips its work).
    void dispose(std::function<void()> free);
    // Returns once everything handed over before the call has been freed.
    void drain() { lane_.drain(); }

private:
    JobLane lane_;
};

// From this size on, results and comparisons are freed by the reaper.
inline constexpr std::size_t kLargeBytes = std::size_t(16) << 20;

template <typename T>
void freeLater(T* p)
{
    Reaper::instance().dispose([p] { delete p; });
}

// Shared ownership of `value`, freed by the reaper when it is large.
template <typename T>
std::shared_ptr<T> shareLarge(T value, std::size_t bytes)
{
    if (bytes < kLargeBytes)
        return std::make_shared<T>(std::move(value));
    return std::shared_ptr<T>(new T(std::move(value)), freeLater<T>);
}

}  // namespace attnlab
