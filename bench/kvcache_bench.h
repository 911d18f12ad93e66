// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace bench {
// Prints one "kv_decode_step" line (issue 40): one decode step of GPT-2
// small's shapes (random weights, gpt2SmallWeights) with `cached` tokens in
// the key/value cache, against a whole pass over cached + 1 tokens (no maps
// kept: what generation without a cache would run per token), the two
// alternating in the same run, one thread each; speedup = full pass /
// decode step, target_speedup 10.
void runKvCacheBench(int cached);
}  // namespace bench
