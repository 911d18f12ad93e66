// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace bench {
// Prints the head lab's cases (issue 39) at GPT-2 small's shapes (random
// weights, gpt2SmallWeights) over `n` tokens, one thread, each beside the
// pass itself (every head's maps kept, as the window and --head-scores run
// it) alternating in the same run:
// - "head_lab_readings": the four head-type scores of every head
//   (attn::headScores) and the attention rollout (attn::attentionRollout)
//   read from one pass's maps; ratio = readings / pass, target_ratio 0.10;
// - "head_lab_ablation_zero" and "head_lab_ablation_mean": the same pass with
//   one head ablated (attn::ablationHook on layer 5, head 1) and everything
//   after it recomputed; ratio = ablated pass / pass, target_ratio 1.0.
void runHeadLabBench(int n);
}  // namespace bench
