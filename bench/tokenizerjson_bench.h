// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace bench {
// Prints "tokenizer_json_load" (tokenizer.json and tokenizer_config.json of
// `folder` read into a TokenizerJson) and "tokenizer_json_encode" (a text of
// `words` words), each with floor_ms and ratio against a same-run floor.
void runTokenizerJsonBench(const char* folder, int words);
}  // namespace bench
