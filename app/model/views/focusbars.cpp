// SPDX-License-Identifier: GPL-3.0-or-later
#include "focusbars.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attnlab {

int focusBarGroup(int n, int maxBars)
{
    return n < 1 ? 1 : (n + std::max(1, maxBars) - 1) / std::max(1, maxBars);
}

FocusBars focusBars(const double* scores, const double* weights, int n, int maxBars)
{
    FocusBars bars;
    if (n < 1)
        return bars;
    bars.group = focusBarGroup(n, maxBars);
    const int count = (n + bars.group - 1) / bars.group;
    bars.keys.resize(std::size_t(count));
    bars.scores.resize(std::size_t(count));
    bars.weights.resize(std::size_t(count));
    for (int b = 0; b < count; ++b) {
        const int first = b * bars.group;
        const int last = std::min(n, first + bars.group);
        double score = scores[first];
        double weight = weights[first];
        for (int j = first + 1; j < last; ++j) {
            if (std::abs(scores[j]) > std::abs(score))
                score = scores[j];
            weight = std::max(weight, weights[j]);
        }
        bars.keys[std::size_t(b)] = (first + 1 + last) / 2.0;
        bars.scores[std::size_t(b)] = score;
        bars.weights[std::size_t(b)] = weight;
    }
    return bars;
}

FocusMixture focusMixture(const double* weights, int keys, double weightSum, int maxTerms)
{
    FocusMixture mix;
    mix.keys.resize(std::size_t(std::max(keys, 0)));
    std::iota(mix.keys.begin(), mix.keys.end(), 0);
    if (keys <= maxTerms)
        return mix;
    std::partial_sort(mix.keys.begin(), mix.keys.begin() + maxTerms, mix.keys.end(),
                      [&](int a, int b) { return weights[a] > weights[b]; });
    mix.keys.resize(std::size_t(maxTerms));
    double shown = 0.0;
    for (const int j : mix.keys)
        shown += weights[j];
    mix.otherKeys = keys - maxTerms;
    mix.otherWeight = std::max(0.0, weightSum - shown);
    return mix;
}

FocusExtremes focusExtremes(const double* scores, const double* weights, int n)
{
    const double inf = std::numeric_limits<double>::infinity();
    FocusExtremes e;
    e.tinyScore = inf;
    e.tinyWeight = inf;
    for (int j = 0; j < n; ++j) {
        const double s = scores[j];
        e.lowScore = std::min(e.lowScore, s);
        e.highScore = std::max(e.highScore, s);
        if (s != 0.0 && std::abs(s) < std::abs(e.tinyScore))
            e.tinyScore = s;
        if (weights[j] > 0.0)
            e.tinyWeight = std::min(e.tinyWeight, weights[j]);
    }
    return e;
}

double weightRowSum(const attn::AttentionResult& result, int query)
{
    const int n = result.tokens();
    if (query < 0 || query >= n)
        return 0.0;
    Eigen::VectorXd row(n);
    result.weightsRow(query, row.data());
    return row.sum();
}

}  // namespace attnlab
