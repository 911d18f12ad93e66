// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Row loops of the window's pictures run as two halves at once: this thread
// takes the first half, one more thread the second. Used where the worker
// is idle while the window repaints (a map's cells read and coloured).

#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>

namespace attnlab {

inline bool severalCores()
{
    static const bool several = std::thread::hardware_concurrency() > 1;  // reads sysfs: once
    return several;
}

// f(first, last) over [0, rows): in two halves at once when rows x perRow
// reaches `minItems` (about 0.2 ms of colours at 16,384; a thread starts in
// about 0.05 ms) on a machine of more than one core, else all here, as also
// when no thread can be started.
template <typename F>
void inTwoHalves(std::size_t rows, std::size_t perRow, const F& f, std::size_t minItems = 1 << 14)
{
    std::thread helper;
    std::size_t split = rows;  // [split, rows) goes to the helper
    if (rows > 1 && rows * perRow >= minItems && severalCores()) {
        try {
            helper = std::thread(f, rows / 2, rows);
            split = rows / 2;
        } catch (const std::system_error&) {
            // No thread to be had: every row is done here.
        }
    }
    f(std::size_t(0), split);
    if (helper.joinable())
        helper.join();
}

}  // namespace attnlab
