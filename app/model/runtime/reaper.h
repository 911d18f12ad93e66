// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Frees large blocks off the caller's thread. Returning a large block to the
// system takes longer than drawing the new result, so the last owner (usually
// a map on the GUI thread letting go of the previous result) hands it to one
// long-lived thread instead. That thread is joined at exit, after freeing
// what is queued; a block handed over after that is freed at once.

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace attnlab {

class Reaper {
public:
    Reaper();
    ~Reaper();  // frees what is queued, then joins the thread
    Reaper(const Reaper&) = delete;
    Reaper& operator=(const Reaper&) = delete;

    // The process's reaper, destroyed (and joined) at exit.
    static Reaper& instance();

    // Runs `free` on the reaper's thread, soon.
    void dispose(std::function<void()> free);
    // Returns once everything handed over before the call has been freed.
    void drain();

private:
    void run();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    std::deque<std::function<void()>> queue_;
    bool busy_ = false;
    bool stopping_ = false;
    std::thread thread_;
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
