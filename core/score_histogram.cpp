// SPDX-License-Identifier: GPL-3.0-or-later
#include "score_histogram.h"

#include <algorithm>
#include <cmath>

namespace attn {

double niceCeiling(double value)
{
    if (!(value > 0) || !std::isfinite(value))
        return 1.0;
    const double power = std::pow(10.0, std::floor(std::log10(value)));
    for (const double step : {1.0, 2.0, 5.0, 10.0}) {
        // The relative margin keeps 2 from becoming 5 through rounding of the power.
        if (value <= step * power * (1 + 1e-12))
            return step * power;
    }
    return 10.0 * power;
}

int histogramBin(double value, double limit, int bins)
{
    const double position = (value + limit) / (2.0 * limit) * bins;
    if (!(position > 0))
        return 0;
    return std::min(bins - 1, int(position));
}

ScoreHistogram scoreHistogram(const AttentionResult& result, int bins, long long maxPairs)
{
    ScoreHistogram h;
    bins = std::max(1, bins);
    maxPairs = std::max(1LL, maxPairs);
    const int n = result.tokens();
    h.dK = int(result.Q.cols());
    h.divisor = std::sqrt(double(std::max(1, h.dK)));
    h.limit = niceCeiling(result.maxAbsKeptScore);
    h.raw.assign(std::size_t(bins), 0);
    h.scaled.assign(std::size_t(bins), 0);
    for (int i = 0; i < n; ++i)
        h.totalPairs += result.keys(i);
    h.rowStride = int(std::max(1LL, (h.totalPairs + maxPairs - 1) / maxPairs));

    // Sums about the first score, which keeps the variance exact for
    // scores far from 0 (the article's weights are not centred).
    const double shift = n > 0 ? result.scores(0, 0) : 0.0;
    double sum = 0, sumSquares = 0;
    for (int i = 0; i < n; i += h.rowStride) {
        const double* row = result.scores.row(i).data();
        const VisibleKeys vis = result.visible(i);
        const int keys = vis.count();
        for (int c = 0; c < keys; ++c) {
            const double s = row[vis.key(c)];
            ++h.raw[std::size_t(histogramBin(s, h.limit, bins))];
            ++h.scaled[std::size_t(histogramBin(s / h.divisor, h.limit, bins))];
            sum += s - shift;
            sumSquares += (s - shift) * (s - shift);
        }
        h.pairs += keys;
    }
    if (h.pairs > 0) {
        const double mean = sum / double(h.pairs);
        h.meanRaw = shift + mean;
        h.sdRaw = std::sqrt(std::max(0.0, sumSquares / double(h.pairs) - mean * mean));
        h.meanScaled = h.meanRaw / h.divisor;
        h.sdScaled = h.sdRaw / h.divisor;
    }
    return h;
}

}  // namespace attn
