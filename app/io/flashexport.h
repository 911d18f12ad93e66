// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// flash.json: the lab's head computed again in FlashAttention's tiles
// (flash_tiles.h), every step's state, the context O / l and how far it is
// from the direct pass's (attention-lab --flash-tiles RxC --export-dir DIR).
//
//   generator, sentence, tokens, d_k, d_v, scale_mode, scale_divisor,
//   causal, mask ("none", "causal", "sliding:W" or "sink:S,window:W"),
//   block_rows (B_r), block_cols (B_c),
//   steps: one object per (query block, key block) in processing order
//     (query block outer, key block inner):
//     query_rows [first, last], key_cols [first, last] (0-based, inclusive),
//     skipped (the mask hides the whole tile: nothing is computed),
//     m, l, rescale (one per query row of the block, after the step; m is
//     null, i.e. -inf, while a row has seen no key), O (rows of the block,
//     d_v: the unnormalised output after the step),
//   context (n, d_v): O / l after each query block's last step,
//   max_abs_diff: the largest |context - the direct pass's context|,
//   memory_bytes: what the tiled pass holds, inputs_and_context (Q, K, V
//     and the context, 8 n (2 d_k + 2 d_v)) and one_tile (the tile's scores
//     and the block's m, l, rescale and O, 8 (B_r B_c + B_r (d_v + 3))),
//     beside score_matrix (8 n^2: one n x n map, which it never holds).
//
// The steps are written as they are computed: the tiled pass holds one
// tile's state however many steps the file has.

#include "attentionsnapshot.h"
#include "stagedwrite.h"

#include <ostream>

namespace attnlab {

// The numbers flash.json records at n tokens, d_v and B_c:
// ceil(n / B_c) n (d_v + 3) for the steps, n d_v for the context.
long long flashJsonNumbers(int tokens, int dV, int blockCols);
// flash.json's budget: about 1 GB of text at 20 bytes a number.
inline constexpr long long kMaxFlashJsonNumbers = 50'000'000;

// Head 1 of `snapshot` (its Q, K, V, divisor and mask) in B_r x B_c tiles.
// The blocks must be within 1..n (validateFlashBlocks).
void writeFlashJson(std::ostream& out, const AttentionSnapshot& snapshot, int blockRows, int blockCols);

// flash.json as a file of an export (the writer refers to `snapshot`).
OutputFile flashJsonFile(const AttentionSnapshot& snapshot, int blockRows, int blockCols);

}  // namespace attnlab
