// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace bench {
// "smollm2_cli": a random BF16 checkpoint of SmolLM2-135M's shapes (30
// layers, 9 / 3 heads, width 576, MLP 1536, tied; GPT-2's tokenizer.json from
// tests/data/llama/tiny-llama, so vocab_size 50257) written to a temporary
// folder, and 64 tokens through the whole command line (`app --model DIR
// --sentence ... --export-dir OUT --format json` as a child: start, read,
// tokenise, every layer's maps, write), median of `runs` after one warm-up.
// peak_rss_mb is the children's largest ru_maxrss. The baseline, in the same
// run: `torchScript` (scripts/llama_torch_forward.py) under /usr/bin/python3,
// PyTorch's float32 forward pass alone on the same weights with 2 threads.
// Run it while the bench process is small (see childprocess.h).
void runSmolLm2CliBench(const std::string& app, const std::string& torchScript, int runs);
}  // namespace bench
