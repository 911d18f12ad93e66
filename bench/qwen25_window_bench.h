// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace bench {
// "qwen25_window": a random BF16 checkpoint of Qwen2.5-0.5B's shapes (24
// layers, 14 / 2 heads, width 896, MLP 4864, vocabulary 151936, tied, q/k/v
// biases; GPT-2's tokenizer.json from tests/data/llama/tiny-llama) written to
// a temporary folder and opened in the window at 1600 x 1000:
//   open_ms: openModel until the session has the model (target 2000);
//   median_ms: a 64-token sentence set in the field until the Model tab's
//     grid has painted its pass (target 3000), median of `runs`;
//   max_gui_block_ms: the GUI thread's longest absence while `runs` keys are
//     typed at the sentence's end, each waited for (target 50), with
//     key_median_ms / key_p95_ms from the key to its pass painted;
//     pass_gui_block_ms and open_gui_block_ms the same over the sentences
//     set and over the opening;
//   engine_ms, the baseline: the pass alone (the model's decoder with the
//     window's options) on the same tokens in the same run.
void runQwen25WindowBench(int runs);
}  // namespace bench
