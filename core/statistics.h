// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a teacher reads off an attention map.
//
// Score statistics are over the unmasked entries, population variance
// (divide by the count). Per query row with weights p:
//   entropy H = -sum p_j ln p_j (nats; bits = H / ln 2), 0 ln 0 = 0
//   effective number of attended tokens exp(H): 1 for one-hot, n for uniform
//   softmax Jacobian J = diag(p) - p p^T; its Frobenius norm says how much
//   gradient can flow back (0 for a one-hot row).

#include "attention.h"

#include <functional>
#include <vector>

namespace attn {

struct RowStats {
    double maxWeight = 0;
    int argMax = 0;
    double entropyNats = 0;
    double entropyBits = 0;
    double effectiveTokens = 0;
    double jacobianNorm = 0;
};

struct AttentionStats {
    double rawMean = 0, rawVariance = 0;
    double scaledMean = 0, scaledVariance = 0;
    std::vector<RowStats> rows;  // one per query
    double meanMaxWeight = 0, meanEntropyNats = 0, meanJacobianNorm = 0;
};

RowStats rowStatistics(const double* p, int n);
// The same from the engine's row (computeAttentionInto's visitor), with
// the entropy taken from the scaled scores and the softmax's normaliser
// instead of a logarithm per weight (equal to rounding).
RowStats rowStatistics(const WeightRow& row);
// ||diag(p) - p p^T||_F = sqrt(sum_i p_i^2 (1 - p_i)^2 + sum_{i != j} p_i^2 p_j^2)
double softmaxJacobianNorm(const double* p, int n);

AttentionStats computeStatistics(const AttentionResult& result);

// computeAttentionInto and computeStatistics in one pass: each weight row's
// statistics are taken while the engine has the row, instead of computing
// every softmax again afterwards. `stats` is written only on success.
// `alsoVisit`, if set, sees every row too (after the statistics took it);
// `cancel` stops it as it stops computeAttentionInto.
Status computeAttentionWithStatistics(const Matrix& X, const Matrix& Wq, const Matrix& Wk, const Matrix& Wv,
                                      const AttentionOptions& options, AttentionResult* result,
                                      AttentionStats* stats, int threads = 1,
                                      const WeightRowVisitor& alsoVisit = {},
                                      const std::atomic<bool>* cancel = nullptr);

// The same for a pass started by `run`, which hands the visitor it is
// given to the engine (e.g. computeAttentionFromProjections); `tokens` is
// the pass's n and `result` what it fills. `stats` is written only when
// `run` succeeds.
Status runWithStatistics(const std::function<Status(const WeightRowVisitor&)>& run, int tokens,
                         const AttentionResult& result, AttentionStats* stats,
                         const WeightRowVisitor& alsoVisit = {});

}  // namespace attn
