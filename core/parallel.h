// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Loops shared among threads where each item's numbers do not depend on
// the others' (a generator per weight column, a map's rows of pixels), so
// that the result does not depend on how many threads there are.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace attn {

// The machine's cores, at least 1, read once (hardware_concurrency reads
// sysfs on every call: a quarter of a millisecond).
inline int hardwareCores()
{
    static const int cores = int(std::max(std::thread::hardware_concurrency(), 1u));
    return cores;
}

// body(first, last) over [0, count) in t ranges at once, range k being
// [count k / t, count (k + 1) / t) and this thread taking the first: t is
// at most maxThreads and the cores, and small enough that each range holds
// at least minWork of count x perItem (a thread starts in about 0.05 ms).
// A thread that cannot be started leaves its range to this one.
template <typename Body>
void shareRanges(std::size_t count, std::size_t perItem, std::size_t minWork, int maxThreads,
                 const Body& body)
{
    const std::size_t t =
        std::min({std::size_t(std::clamp(maxThreads, 1, hardwareCores())),
                  std::max<std::size_t>(count * perItem / std::max<std::size_t>(minWork, 1), 1),
                  std::max<std::size_t>(count, 1)});
    std::vector<std::thread> pool;
    std::size_t started = 1;
    try {
        for (; started < t; ++started)
            pool.emplace_back(body, count * started / t, count * (started + 1) / t);
    } catch (const std::system_error&) {
        // The ranges of the threads not started are done below.
    }
    body(std::size_t(0), count / t);
    if (started < t)
        body(count * started / t, count);
    for (std::thread& p : pool)
        p.join();
}

// f(i) for i in [0, count), the items handed out one at a time to
// `threads` threads (the calling one included, at most one per item), for
// items of uneven cost (a layer's heads, the products' column blocks).
template <typename F>
void forEachIndex(int count, int threads, const F& f)
{
    const int t = std::clamp(threads, 1, std::max(count, 1));
    if (t == 1) {
        for (int i = 0; i < count; ++i)
            f(i);
        return;
    }
    std::atomic<int> next{0};
    const auto work = [&] {
        for (int i = next++; i < count; i = next++)
            f(i);
    };
    std::vector<std::thread> pool;
    pool.reserve(std::size_t(t - 1));
    for (int k = 1; k < t; ++k)
        pool.emplace_back(work);
    work();
    for (std::thread& p : pool)
        p.join();
}

}  // namespace attn
