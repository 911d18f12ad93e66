// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Grouped-query attention in words, for the Model tab, its head panel and
// its pictures: which query heads share a key/value head, and what the
// key/value cache holds per token with and without that sharing.

#include "decoder_config.h"

#include <QString>

#include <string>

namespace attnlab {

// Bytes per number of a checkpoint's dtype: F32 4, F16 and BF16 2; 0 for
// another name.
int dtypeBytes(const std::string& dtype);

// "K/V cache 256 bytes per token" in the dtype's bytes (the numbers, for a
// dtype of no one size) and, with grouped-query attention, ", 512 bytes with
// one K/V per query head".
QString keyValueCacheText(const attn::DecoderConfig& config, const std::string& dtype);

// For query head `head` (0-based), with grouped-query attention: "reads
// K/V head 1 with head 2" or "... with heads 2, 3, 4" (1-based, as the grid
// labels them), "reads K/V head 1 with every head" for one K/V head; empty
// without sharing or for a head out of range.
QString keyValueSharingText(const attn::DecoderConfig& config, int head);

}  // namespace attnlab
