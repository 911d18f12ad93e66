// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sizes the engine accepts. Anything larger is refused with a message,
// never attempted: n x n score maps at kMaxTokens already take
// 3 * 8 * 4096^2 bytes = 384 MiB.

namespace attn {

inline constexpr int kMaxTokens = 4096;            // tokens in one sentence or matrix
inline constexpr int kMaxDModel = 2048;            // embedding width d_model
inline constexpr int kMaxDHead = 1024;             // d_k and d_v
inline constexpr int kMaxSentenceBytes = 1 << 20;  // 1 MiB of UTF-8 text
inline constexpr int kLegibleTokens = 32;          // lesson size: cell values printed

// The largest matrix the engine accepts: 4096 x 1024 entries, X of 4096
// tokens 1024 wide or of 2048 tokens 2048 wide. d_model goes to 2048 so that
// a head of GPT-2 XL (n_embd 1600, with the bias column 1601) can be borrowed
// into the pipeline; X's entries stay within this budget, so a lab file and
// the n x n maps keep the sizes below. A file holding one matrix (.npy, CSV)
// is refused above this many entries.
inline constexpr long long kMaxMatrixEntries = 4LL << 20;
static_assert(kMaxMatrixEntries == 1LL * kMaxTokens * 1024);

// The largest CSV file holding one matrix: 32 bytes a number, as for the lab
// file below, and 4 MiB for the header and the row labels (a sentence's
// tokens, at most 1 MiB, quoted). 32 * 4,194,304 + 4 MiB = 132 MiB.
inline constexpr long long kMaxMatrixCsvBytes = 32 * kMaxMatrixEntries + (4LL << 20);
static_assert(kMaxMatrixCsvBytes == 132LL << 20);

// W_q, W_k and W_v together may hold 3 * 1024 * 1024 entries: d_model
// (2 d_k + d_v) <= 3,145,728, so d_k = d_v = 1024 at d_model 1024, or 512 at
// d_model 2048. The multi-head weights together (every head's W_q, W_k, W_v;
// W_o on its own) may hold as many.
inline constexpr long long kMaxHeadWeightEntries = 3LL << 20;

// The largest lab file the limits allow. It holds X (kMaxMatrixEntries),
// W_q, W_k, W_v (at most kMaxHeadWeightEntries together) and, for a
// multi-head lab, the heads' weights and W_o (kMaxHeadWeightEntries each;
// the split layout's in_proj and out_proj, 4 * 1024^2 + 4 * 1024, stay
// below the two): 4,194,304 + 3 * 3,145,728 = 13,631,488 numbers of at most
// 26 characters with their ", " (sign, 17 digits, point, e-308), about
// 338 MiB; and the sentence, at most 6 bytes a byte when escaped (\u0001),
// 6 MiB. With margin for indentation, hand editing and the view's settings:
// 32 bytes a number and 16 a sentence byte, 436,207,616 + 16,777,216 bytes
// = 432 MiB.
inline constexpr long long kMaxLabNumbers = kMaxMatrixEntries + 3 * kMaxHeadWeightEntries;
inline constexpr long long kMaxLabFileBytes = 32 * kMaxLabNumbers + 16LL * kMaxSentenceBytes;
static_assert(kMaxLabFileBytes == 432LL << 20);

// The longest side of an exported picture in pixels, after the scale. The
// application's limit (memory for one RGBA image: 16384^2 * 4 bytes = 1 GiB),
// not the engine's: the engine never draws.
inline constexpr int kMaxPictureSide = 16384;

}  // namespace attn
