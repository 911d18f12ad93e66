// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --flash-tiles RxC: the lab's head computed again in FlashAttention's
// tiles of R queries by C keys, written as flash.json (flashexport.h) beside
// the export (--export-dir DIR). R and C are whole numbers from 1 to the
// tokens; blocks that do not divide n are allowed (the last block is
// shorter). Every problem is one line and exit status 2:
//   --flash-tiles must be RxC, two whole numbers (query and key block), e.g. 2x3, not '2*3'
//   --flash-tiles 2x7: the key block B_c must be from 1 to 6 (the tokens)

#include "attentionsnapshot.h"

#include <QString>

#include <optional>
#include <string_view>

namespace attnlab {

struct FlashBlocks {
    int rows = 0;  // B_r, queries per block
    int cols = 0;  // B_c, keys per block
};

// "RxC" as two whole numbers from 1 to kMaxTokens, or the message.
std::optional<QString> parseFlashTiles(std::string_view text, FlashBlocks* blocks);

// The blocks against the computed head: within 1..n, and flash.json within
// kMaxFlashJsonNumbers (the message names the narrowest key block that
// fits). Nothing when they fit.
std::optional<QString> flashTilesProblem(const AttentionSnapshot& snapshot, const FlashBlocks& blocks);

}  // namespace attnlab
