// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace bench {

// flash_tiles: attn::flashAttention (the tiled pass with the online softmax)
// at n = `n`, d = `d` against the direct engine
// (computeAttentionFromProjections) on the same Q, K and V, alternated in
// one run: median_ms is the tiled pass, direct_ms its baseline, ratio the
// two (target 1.5), max_abs_diff their contexts' largest difference.
// flash_memory: at n = `n` and at n = `memoryN` each path runs once in a
// child process of its own, and the growth of that child's peak resident
// size over its size before the pass is reported (peak_mb for the tiled
// pass, direct_peak_mb for the direct one: the engine up to its kMaxTokens,
// above it the direct computation as three Eigen expressions;
// score_matrix_mb is the n x n matrix the tiled pass never holds).
void runFlashBench(int n, int d, int memoryN);

}  // namespace bench
