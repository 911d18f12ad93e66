// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QtGlobal>

namespace bench {
// Writes config.json and model.safetensors of GPT-2 small's exact shapes
// (random F32 weights, the names without prefix, the 12 mask buffers) into
// `folder`. Returns the number of parameters, 0 if a file cannot be written.
qint64 writeGpt2SmallFolder(const QString& folder);
// Prints "gpt2_open" (a random F32 checkpoint of GPT-2 small's shapes,
// written to a temporary folder, opened with readGpt2Checkpoint; floor_ms
// reads the file's bytes once) and "gpt2_open_memory" (resident sizes before
// and after opening, and after one pass over every weight).
void runGpt2OpenBench();
}  // namespace bench
