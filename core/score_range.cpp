// SPDX-License-Identifier: GPL-3.0-or-later
#include "score_range.h"

#include "statistics.h"

namespace attn {

const char* scoreRangeName(ScoreRangeKind kind)
{
    switch (kind) {
    case ScoreRangeKind::ScoreVariance: return "score_variance";
    case ScoreRangeKind::ScaledScoreVariance: return "scaled_score_variance";
    case ScoreRangeKind::MeanMaxWeight: return "mean_max_weight";
    case ScoreRangeKind::MeanEntropy: break;
    }
    return "mean_entropy";
}

double ScoreRangeReadouts::operator[](ScoreRangeKind kind) const
{
    switch (kind) {
    case ScoreRangeKind::ScoreVariance: return scoreVariance;
    case ScoreRangeKind::ScaledScoreVariance: return scaledScoreVariance;
    case ScoreRangeKind::MeanMaxWeight: return meanMaxWeight;
    case ScoreRangeKind::MeanEntropy: break;
    }
    return meanEntropy;
}

ScoreRangeReadouts scoreRangeReadouts(const AttentionResult& head)
{
    const AttentionStats st = computeStatistics(head);
    ScoreRangeReadouts r;
    r.scoreVariance = st.rawVariance;
    r.scaledScoreVariance = st.scaledVariance;
    r.meanMaxWeight = st.meanMaxWeight;
    r.meanEntropy = st.meanEntropyNats;
    return r;
}

Matrix ScoreRangeTable::matrix(ScoreRangeKind kind) const
{
    Matrix m(layers, heads);
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            m(l, h) = at(l, h)[kind];
    return m;
}

Expected<ScoreRangeTable> scoreRangeTable(const DecoderModel& model, const DecoderResult& result)
{
    const DecoderConfig& c = model.config();
    if (int(result.layers.size()) != c.layers)
        return Error{"The result is not one of this model's passes."};
    ScoreRangeTable table;
    table.layers = c.layers;
    table.heads = c.heads;
    table.values.reserve(std::size_t(c.layers) * std::size_t(c.heads));
    for (int l = 0; l < c.layers; ++l) {
        const std::vector<AttentionResult>& kept = result.layers[std::size_t(l)].heads;
        for (int h = 0; h < c.heads; ++h) {
            if (int(kept.size()) == c.heads) {
                table.values.push_back(scoreRangeReadouts(kept[std::size_t(h)]));
                continue;
            }
            const Expected<AttentionResult> head = model.head(result, l, h);
            if (!head)
                return head.error();
            table.values.push_back(scoreRangeReadouts(*head));
        }
    }
    return table;
}

}  // namespace attn
