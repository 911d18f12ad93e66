// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// "How this model keeps scores in range" (issue 38): the d_k lab's readouts
// (scaling_lab.h) on every head of a real model's pass. For a head with raw
// scores S = q_rot . k_rot, divisor d and weights A:
//   score_variance         population variance of S over the entries the
//                          mask lets each query see
//   scaled_score_variance  the same of S / d (score_variance / d^2)
//   mean_max_weight        mean over the query rows of the row's largest
//                          weight (1: every row one-hot)
//   mean_entropy           mean over the rows of -sum_j A_ij ln A_ij (nats;
//                          0 one-hot, ln(keys) uniform)
// They are computeStatistics's (statistics.h) rawVariance, scaledVariance,
// meanMaxWeight and meanEntropyNats, so the lesson's, the d_k lab's and the
// model's numbers are one definition.

#include "attention.h"
#include "decoder_model.h"
#include "expected.h"
#include "matrix.h"

#include <array>
#include <vector>

namespace attn {

enum class ScoreRangeKind { ScoreVariance, ScaledScoreVariance, MeanMaxWeight, MeanEntropy };
inline constexpr int kScoreRangeKinds = 4;
inline constexpr std::array<ScoreRangeKind, kScoreRangeKinds> kAllScoreRangeKinds = {
    ScoreRangeKind::ScoreVariance, ScoreRangeKind::ScaledScoreVariance, ScoreRangeKind::MeanMaxWeight,
    ScoreRangeKind::MeanEntropy};

// The readout's key in files: "score_variance", "scaled_score_variance",
// "mean_max_weight", "mean_entropy".
const char* scoreRangeName(ScoreRangeKind kind);

struct ScoreRangeReadouts {
    double scoreVariance = 0.0;
    double scaledScoreVariance = 0.0;
    double meanMaxWeight = 0.0;
    double meanEntropy = 0.0;  // nats

    double operator[](ScoreRangeKind kind) const;
};

// One head's readouts from its result (computeStatistics).
ScoreRangeReadouts scoreRangeReadouts(const AttentionResult& head);

// Every head's, layer-major.
struct ScoreRangeTable {
    int layers = 0;
    int heads = 0;
    std::vector<ScoreRangeReadouts> values;  // values[layer * heads + head]

    bool empty() const { return values.empty(); }
    const ScoreRangeReadouts& at(int layer, int head) const
    {
        return values[std::size_t(layer) * std::size_t(heads) + std::size_t(head)];
    }
    // One readout of every head as a (layers, heads) matrix.
    Matrix matrix(ScoreRangeKind kind) const;
};

// The readouts of every head of `result`: from its kept maps, or each head
// recomputed through model.head for a pass run without keepMaps. Errors: a
// result of another model, a recomputation's.
Expected<ScoreRangeTable> scoreRangeTable(const DecoderModel& model, const DecoderResult& result);

}  // namespace attn
