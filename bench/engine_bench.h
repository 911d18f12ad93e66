// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <vector>

namespace bench {
// Prints one "engine_forward" line per size, with floor_ms, ratio, GFLOP/s.
void runEngineBench(const std::vector<int>& sizes, int d);
}  // namespace bench
