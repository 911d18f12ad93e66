// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <vector>

namespace bench {
// The window with h heads in the split layout at d_model `d`: a cell of the
// selected head's W_q typed in the matrix editor, and a seed step (every
// head and X redrawn), each until every visible map (the pipeline's, then
// the Heads tab's grid) has painted the new result; with the GUI thread's
// longest block. Baseline: the engine's multi-head pass alone, same run.
void runMultiHeadWindowBench(const std::vector<int>& sizes, int d, int heads, int runs);
}  // namespace bench
