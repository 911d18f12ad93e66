// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The small maths of the focused query's panel, on plain rows: its bars (one
// per key, or one per run of keys at thousands of tokens), the largest
// terms of its context vector z_i = Σ_j a_ij v_j, and the extremes that
// decide how wide its numbers print.

#include "attention.h"

#include <vector>

namespace attnlab {

// One bar per key up to `maxBars` keys; beyond, each bar stands for a run
// of `group` keys and shows the largest score by magnitude (its sign kept)
// and the largest weight among them, so that no peak is lost at any size
// while thousands of sub-pixel bars are not drawn.
struct FocusBars {
    int group = 1;             // keys per bar
    std::vector<double> keys;  // each bar's centre on the key axis (key j at j + 1)
    std::vector<double> scores;
    std::vector<double> weights;
};
inline constexpr int kMaxFocusBars = 512;
FocusBars focusBars(const double* scores, const double* weights, int n, int maxBars = kMaxFocusBars);
// The keys a bar stands for when n keys share at most maxBars bars.
int focusBarGroup(int n, int maxBars);

// The keys that z_i mixes, largest weights first when there are more than
// `maxTerms`, else all in the sentence's
// order; and what the others add up to (weightSum less the shown weights,
// never below 0).
struct FocusMixture {
    std::vector<int> keys;
    int otherKeys = 0;
    double otherWeight = 0.0;
};
inline constexpr int kMaxMixingTerms = 8;
// weights: the `keys` attended weights of the query; weightSum: their sum
// (weightRowSum).
FocusMixture focusMixture(const double* weights, int keys, double weightSum, int maxTerms = kMaxMixingTerms);
// The sum of query `query`'s weights in `result`: 1 up to rounding, 0 for
// a query out of range.
double weightRowSum(const attn::AttentionResult& result, int query);

// A query row's extremes for the widths of its printed numbers: the lowest
// and highest score (with 0), the non-zero score smallest in magnitude and
// the smallest positive weight (infinity when there is none).
struct FocusExtremes {
    double lowScore = 0.0;
    double highScore = 0.0;
    double tinyScore = 0.0;
    double tinyWeight = 0.0;
};
FocusExtremes focusExtremes(const double* scores, const double* weights, int n);

}  // namespace attnlab
