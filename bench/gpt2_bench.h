// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "gpt2_weights.h"

#include <vector>

namespace bench {
// Random weights with GPT-2 small's shapes (124M float32, about 500 MB):
// uniform in [-0.05, 0.05] (LayerNorm gains around 1) from a xorshift, so
// that drawing them takes a fraction of a second.
attn::Gpt2Weights gpt2SmallWeights();

// Prints one "gpt2_forward" line per token count: GPT-2 small's pass (random
// weights of its shapes in memory: 12 layers of 12 heads, E 768, vocabulary
// 50257) keeping all 144 maps, single-threaded with floor_ms and ratio
// against the pass's own matrix products alone (AVX2 kernels only), and
// threads2_ms, the same pass sharing the heads and column blocks between
// two threads; target_ms is issue 17's.
void runGpt2ForwardBench(const std::vector<int>& sizes);
}  // namespace bench
