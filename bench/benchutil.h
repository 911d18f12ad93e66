// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Timing helpers for the benchmark programs: repeat a callable, report the
// median and the 95th percentile in milliseconds, print JSON lines.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <time.h>
#include <utility>
#include <vector>

namespace bench {

struct Timing {
    double medianMs = 0;
    double p95Ms = 0;
    int runs = 0;
    double cpuMedianMs = 0;  // this thread's CPU time, where measured
};

// This thread's CPU time: steadier than the wall clock on a shared machine,
// since time spent waiting for the processor does not count.
inline double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

inline double medianOf(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

inline Timing summarise(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    Timing t;
    t.runs = int(ms.size());
    if (ms.empty())
        return t;
    t.medianMs = ms[ms.size() / 2];
    t.p95Ms = ms[std::min(ms.size() - 1, std::size_t(double(ms.size()) * 0.95))];
    return t;
}

// Runs `fn` at least `minRuns` times and until `minSeconds` have passed
// (capped at `maxRuns`), after one warm-up call.
template <typename Fn>
Timing measure(Fn&& fn, int minRuns = 5, double minSeconds = 0.5, int maxRuns = 1000)
{
    using Clock = std::chrono::steady_clock;
    fn();
    std::vector<double> ms;
    const auto start = Clock::now();
    while (int(ms.size()) < maxRuns) {
        const auto t0 = Clock::now();
        fn();
        const auto t1 = Clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        const double elapsed = std::chrono::duration<double>(t1 - start).count();
        if (int(ms.size()) >= minRuns && elapsed >= minSeconds)
            break;
    }
    return summarise(std::move(ms));
}

// Alternates `a` and `b` (after one warm-up call of each) until each has run
// `minRuns` times and `minSeconds` have passed in all: a baseline and the
// measured code under the same conditions.
template <typename FnA, typename FnB>
std::pair<Timing, Timing> measurePair(FnA&& a, FnB&& b, int minRuns = 5, double minSeconds = 0.5,
                                      int maxRuns = 1000)
{
    using Clock = std::chrono::steady_clock;
    a();
    b();
    std::vector<double> msA, msB, cpuA, cpuB;
    const auto start = Clock::now();
    auto time = [](auto& fn, std::vector<double>& wall, std::vector<double>& cpu) {
        const double c0 = threadCpuMs();
        const auto t0 = Clock::now();
        fn();
        wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        cpu.push_back(threadCpuMs() - c0);
    };
    while (int(msA.size()) < maxRuns) {
        time(a, msA, cpuA);
        time(b, msB, cpuB);
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (int(msA.size()) >= minRuns && elapsed >= minSeconds)
            break;
    }
    Timing ta = summarise(std::move(msA)), tb = summarise(std::move(msB));
    ta.cpuMedianMs = medianOf(std::move(cpuA));
    tb.cpuMedianMs = medianOf(std::move(cpuB));
    return {ta, tb};
}

// One JSON object per line; `extra` is a fragment like "\"floor_ms\":1.2".
inline void printCase(const std::string& name, int n, int d, const Timing& t,
                      const std::string& extra = std::string())
{
    std::printf("{\"case\":\"%s\",\"n\":%d,\"d\":%d,\"median_ms\":%.4f,\"p95_ms\":%.4f,\"runs\":%d%s%s}\n",
                name.c_str(), n, d, t.medianMs, t.p95Ms, t.runs, extra.empty() ? "" : ",", extra.c_str());
    std::fflush(stdout);
}

}  // namespace bench
