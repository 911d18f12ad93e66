// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace bench {
// Typing into the window's sentence field with a GPT-2 small checkpoint
// open (random weights of GPT-2 small's exact shapes, written to a
// temporary folder, with the tokenizer files of tests/data/gpt2/tiny-gpt2):
//   gpt2_typing_key: one key at a time, each waited for until the Model tab
//     shows its pass; median and p95 from the key to the grid painted.
//   gpt2_typing_burst: bursts of 8 keys 40 ms apart (faster than a pass), so
//     that each key supersedes the pass in flight; the time from the last key
//     to its pass shown.
// Both report max_gui_block_ms, the GUI thread's longest absence from its
// event loop over the steps (target 50), and engine_ms, the pass alone
// (attn::runGpt2 on the same tokens with the window's options) in the same
// run as the baseline.
void runGpt2TypingBench(const char* tokenizerFolder, int runs);
}  // namespace bench
