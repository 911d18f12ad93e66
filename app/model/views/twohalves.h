// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Row loops of the window's pictures run as two halves at once: this thread
// takes the first half, one more thread the second. Used where the worker
// is idle while the window repaints (a map's cells read and coloured).

#include "parallel.h"

#include <cstddef>

namespace attnlab {

// f(first, last) over [0, rows): in two halves at once from 16,384 items
// (rows x perRow: about 0.2 ms of colours) on a machine of more than one
// core, else all here (attn::shareRanges).
template <typename F>
void inTwoHalves(std::size_t rows, std::size_t perRow, const F& f)
{
    constexpr std::size_t kMinItemsPerHalf = 1 << 13;
    attn::shareRanges(rows, perRow, kMinItemsPerHalf, 2, f);
}

}  // namespace attnlab
