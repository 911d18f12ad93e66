// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Attention in FlashAttention's tiles with the online softmax (Milakov &
// Gimelshein 2018; Dao et al. 2022, the unnormalised output of
// FlashAttention-2): the same softmax(Q K^T / divisor) V without ever
// holding the n x n matrix.
//
// The queries are cut into blocks of B_r rows and the keys into blocks of
// B_c columns (the last block of each may be shorter). The query block is
// the outer loop, the key block the inner one; step (I, J) is tile I x J.
// For each query row i of the block the pass keeps
//
//   m_i  the largest scaled score s_ij = q_i . k_j / divisor seen so far
//   l_i  sum over the keys seen of exp(s_ij - m_i)
//   O_i  sum over the keys seen of exp(s_ij - m_i) v_j   (d_v, unnormalised)
//
// and at tile J, with m_new = max(m_i, max_j in J s_ij) over the keys the
// mask lets i see:
//
//   rescale_i = exp(m_i - m_new)           (1 when m_new = m_i)
//   l_i       = rescale_i l_i + sum_j exp(s_ij - m_new)
//   O_i       = rescale_i O_i + sum_j exp(s_ij - m_new) v_j
//   m_i       = m_new
//
// After the last key block the context row is O_i / l_i.
//
// Before any key is seen: m = -inf, l = 0, O = 0. A row that sees no key of
// a tile (the mask hides them all for that row) keeps its state: m and l
// unchanged, rescale 1 (also while m is still -inf: nothing is rescaled,
// never exp(-inf - -inf)). A row's first seen key gives rescale
// exp(-inf - m_new) = 0, which multiplies l = 0 and O = 0. A tile whose
// every entry the mask hides is skipped: no score is computed, every row
// keeps its state and its rescale is 1. Every mask keeps the diagonal, so
// every row has seen a key (l > 0) by the end.
//
// Memory: Q, K, V and the context (n x d) plus one tile's state: the
// B_r x B_c scores and B_r x (d_v + 3) of m, l, rescale and O (with the
// AVX2 kernels, kernels.h, K and V packed per key block, n x d again). The
// visitor sees the state after each step; recording it is the caller's
// choice. At n = 4096, d = 64 in 64 x 64 tiles the pass took 0.25 s where
// the direct pass took 0.26 s (one thread each, 2026-12-06; causal 0.13 s
// and 0.12 s).

#include "attention_mask.h"
#include "expected.h"
#include "matrix.h"

#include <functional>
#include <vector>

namespace attn {

// The state after one step (valid during the visitor's call).
struct FlashStep {
    int index = 0;                      // 0-based, in processing order
    int queryFirst = 0, queryLast = 0;  // the block's query rows, inclusive
    int keyFirst = 0, keyLast = 0;      // the tile's key columns, inclusive
    bool skipped = false;               // the mask hides the whole tile
    Vector m;                           // (rows) running maximum, -inf before any key
    Vector l;                           // (rows) running sum
    Vector rescale;                     // (rows) exp(m_old - m_new); 1 where m did not change
    Matrix O;                           // (rows, d_v) unnormalised output

    int rows() const { return queryLast - queryFirst + 1; }
};

using FlashStepVisitor = std::function<void(const FlashStep& step)>;

// B_r and B_c each from 1 to n: "The query block B_r must be from 1 to 6
// (the tokens); got 7." otherwise.
Status validateFlashBlocks(long long blockRows, long long blockCols, int tokens);

// ceil(n / B_r) * ceil(n / B_c): every tile, the skipped ones included.
long long flashStepCount(int tokens, int blockRows, int blockCols);

// What the tiled pass holds, in bytes of 8-byte numbers, beside the n x n
// score matrix it never holds: Q, K, V and the context, 8 n (2 d_k + 2 d_v);
// one tile, the B_r x B_c scores and the block's m, l, rescale and O,
// 8 (B_r B_c + B_r (d_v + 3)); the matrix, 8 n^2 (flash.json's memory_bytes).
struct FlashMemory {
    long long inputsAndContext = 0;
    long long oneTile = 0;
    long long scoreMatrix = 0;
};
FlashMemory flashMemoryBytes(int tokens, int dK, int dV, int blockRows, int blockCols);

// The context (n, d_v) by tiles; `visit`, if set, after every step in
// order. Q (n, d_k), K (n, d_k), V (n, d_v), n >= 1, every entry finite;
// divisor finite and > 0; blocks as validateFlashBlocks; mask as
// validateAttentionMask. An error naming what does not fit otherwise.
Expected<Matrix> flashAttention(const Matrix& Q, const Matrix& K, const Matrix& V, double divisor,
                                const AttentionMask& mask, int blockRows, int blockCols,
                                const FlashStepVisitor& visit = {});

// Every step kept (memory grows with the steps: for tests and small n).
struct FlashRun {
    std::vector<FlashStep> steps;
    Matrix context;
};
Expected<FlashRun> flashAttentionSteps(const Matrix& Q, const Matrix& K, const Matrix& V, double divisor,
                                       const AttentionMask& mask, int blockRows, int blockCols);

// The largest |a - b| over two matrices of one shape (+inf if they differ
// in shape or an entry is not finite).
double maxAbsDifference(const Matrix& a, const Matrix& b);

}  // namespace attn
