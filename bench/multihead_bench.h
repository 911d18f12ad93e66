// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <vector>

namespace bench {
// Prints one "multihead_forward" line per size: the split layout's pass
// (torch.nn.MultiheadAttention's) at d_model `d` with `heads` heads, with
// floor_ms, ratio and, where the AVX2 kernels run, kernel_floor_ms and
// kernel_ratio.
void runMultiHeadBench(const std::vector<int>& sizes, int d, int heads);
}  // namespace bench
