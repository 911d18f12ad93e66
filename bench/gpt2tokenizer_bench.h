// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace bench {
// Prints "gpt2_tokenizer_load" (vocab.json and merges.txt of `folder` read
// into a Gpt2Tokenizer) and "gpt2_tokenizer_encode" (a text of about
// `tokens` tokens), each with floor_ms and ratio against a same-run baseline.
void runGpt2TokenizerBench(const char* folder, int tokens);
}  // namespace bench
