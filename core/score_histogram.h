// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How the scores of one attention result are spread: the raw q_i . k_j and
// the scaled q_i . k_j / sqrt(d_k) over all unmasked query-key pairs, counted
// in the same bins so that the two widths compare directly (the picture most
// courses use for "the dot products spread with d_k").
//
// The bins split [-limit, limit] into equal intervals, each closed on the
// left (the last one on both sides). limit is the largest |raw score| of the
// unmasked pairs rounded up to 1, 2 or 5 times a power of ten, so that the
// axis changes in steps as d_k moves; nothing falls outside, as
// |scaled| <= |raw| for d_k >= 1.
//
// Above maxPairs unmasked pairs the queries are sampled: every stride-th row
// from the first (stride = ceil(pairs / maxPairs)) with all its unmasked
// keys, so that a histogram stays a fraction of a millisecond per 10^5 pairs
// at thousands of tokens.

#include "attention.h"

#include <vector>

namespace attn {

inline constexpr long long kScoreHistogramMaxPairs = 1LL << 18;
inline constexpr int kScoreHistogramBins = 40;

struct ScoreHistogram {
    int dK = 0;
    double divisor = 1.0;           // sqrt(d_k)
    double limit = 1.0;             // the bins span [-limit, limit]
    std::vector<long long> raw;     // counts per bin of q . k
    std::vector<long long> scaled;  // counts per bin of q . k / sqrt(d_k)
    long long pairs = 0;            // pairs counted, in each of the two
    long long totalPairs = 0;       // unmasked pairs of the result
    int rowStride = 1;              // 1: every query counted
    double meanRaw = 0, sdRaw = 0;  // of the counted pairs (population)
    double meanScaled = 0, sdScaled = 0;

    int bins() const { return int(raw.size()); }
    double binWidth() const { return bins() > 0 ? 2.0 * limit / bins() : 0.0; }
    double binLower(int bin) const { return -limit + bin * binWidth(); }
    bool sampled() const { return rowStride > 1; }
};

// 1, 2 or 5 times a power of ten, the smallest not below `value`; 1 for
// values <= 0 or not finite.
double niceCeiling(double value);
// The bin of `value` among `bins` equal bins over [-limit, limit], clamped
// to 0..bins-1.
int histogramBin(double value, double limit, int bins);

// bins >= 1; maxPairs >= 1.
ScoreHistogram scoreHistogram(const AttentionResult& result, int bins = kScoreHistogramBins,
                              long long maxPairs = kScoreHistogramMaxPairs);

}  // namespace attn
