// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The memory a model's pass that keeps every head's maps takes, and the one
// budget the window's model view (ModelSession) and the command line's
// --model run hold it to, with the one message both give when a sentence
// is over it. A pass over it is refused before it starts: at 64 layers x 64
// heads and 1,000 tokens the maps alone would be 34 GB, and the allocation
// fails (std::bad_alloc) only after seconds of work.

#include "decoder_config.h"

#include <QString>

#include <optional>

namespace attnlab {

// 1 GiB: GPT-2 small keeps 1.4 GiB at 1024 tokens; within 1 GiB it reads
// about 860.
inline constexpr double kModelMapBudget = double(1 << 30);

// The bytes every head's maps of a pass over `tokens` tokens take
// (attn::DecoderRunOptions::keepMaps: 8 n^2 + 32 n head_dim bytes a head).
double modelMapBytes(const attn::DecoderConfig& config, int tokens);

// Null when the maps of `tokens` tokens fit in `budget`, else the one-line
// message, `modelName` the family's name (ModelFolder::familyName): "The
// sentence is 1000 GPT-2 tokens; every head's maps would take
// 34375 MiB, more than the 1024 MiB a pass keeps. Shorten it to see its
// attention."
std::optional<QString> modelMapBudgetProblem(const attn::DecoderConfig& config, const QString& modelName,
                                             int tokens, double budget = kModelMapBudget);

}  // namespace attnlab
