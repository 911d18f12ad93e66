// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <vector>

namespace bench {
// The real window under the current Qt platform (offscreen in the benchmark):
// for each token count, d_k slider steps until every visible heatmap has
// painted the new result. Prints one "interaction_dk_step" line per size with
// the longest GUI-thread block (a 1 ms heartbeat's largest gap) during the
// steps, and one "interaction_dk_drag" line per size for a continuous drag
// (a step every 5 ms) with whether the last request's result was shown.
// Needs a QApplication.
void runInteractionBench(const std::vector<int>& sizes, int runs);
}  // namespace bench
