// SPDX-License-Identifier: GPL-3.0-or-later
#include "head_scores.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

namespace attn {

namespace {

// The mean of the rows' values, or nothing without rows.
std::optional<double> meanOf(double sum, int rows)
{
    if (rows == 0)
        return std::nullopt;
    return sum / rows;
}

// The scores through `weight(i, j)`, which reads A[i, j].
template <typename Weight>
HeadTypeScores scoresOf(const HeadScoreKeys& keys, const Weight& weight)
{
    const int n = keys.tokens;
    HeadTypeScores s;
    double previous = 0.0, first = 0.0;
    for (int i = 1; i < n; ++i) {
        previous += weight(i, i - 1);
        first += weight(i, 0);
    }
    s.previousToken = meanOf(previous, n - 1);
    s.firstToken = meanOf(first, n - 1);

    const auto keyed = [&](const std::vector<int>& start, const std::vector<int>& keyList) {
        double total = 0.0;
        int rows = 0;
        for (int i = 0; i < n; ++i) {
            const int begin = start[std::size_t(i)], end = start[std::size_t(i) + 1];
            if (begin == end)
                continue;
            double row = 0.0;
            for (int k = begin; k < end; ++k)
                row += weight(i, keyList[std::size_t(k)]);
            total += row;
            ++rows;
        }
        return meanOf(total, rows);
    };
    s.duplicateToken = keyed(keys.duplicateStart, keys.duplicateKeys);
    s.induction = keyed(keys.inductionStart, keys.inductionKeys);
    return s;
}

// ln sum_j exp(logits_j / temperature - top) and top = max logits / temperature.
struct LogNormaliser {
    double top = 0.0;
    double logSum = 0.0;
    double probability(double logit, double temperature) const
    {
        return std::exp(logit / temperature - top - logSum);
    }
};

LogNormaliser normaliserOf(const RowVector& logits, double temperature)
{
    LogNormaliser z;
    z.top = logits.size() ? logits.maxCoeff() / temperature : 0.0;
    double sum = 0.0;
    for (Eigen::Index j = 0; j < logits.size(); ++j)
        sum += std::exp(logits[j] / temperature - z.top);
    z.logSum = std::log(sum);
    return z;
}

}  // namespace

const char* headScoreName(HeadScoreKind kind)
{
    switch (kind) {
    case HeadScoreKind::PreviousToken: return "previous_token";
    case HeadScoreKind::DuplicateToken: return "duplicate_token";
    case HeadScoreKind::Induction: return "induction";
    case HeadScoreKind::FirstToken: break;
    }
    return "first_token";
}

const std::optional<double>& HeadTypeScores::operator[](HeadScoreKind kind) const
{
    switch (kind) {
    case HeadScoreKind::PreviousToken: return previousToken;
    case HeadScoreKind::DuplicateToken: return duplicateToken;
    case HeadScoreKind::Induction: return induction;
    case HeadScoreKind::FirstToken: break;
    }
    return firstToken;
}

HeadScoreKeys headScoreKeys(const std::vector<int>& tokenIds)
{
    HeadScoreKeys k;
    const int n = int(tokenIds.size());
    k.tokens = n;
    k.duplicateStart.assign(std::size_t(n) + 1, 0);
    k.inductionStart.assign(std::size_t(n) + 1, 0);
    // Where each id occurred so far, in order.
    std::unordered_map<int, std::vector<int>> seen;
    for (int i = 0; i < n; ++i) {
        const int t = tokenIds[std::size_t(i)];
        const auto at = seen.find(t);
        if (at != seen.end()) {
            // Duplicates: every earlier j with t_j = t_i.
            k.duplicateKeys.insert(k.duplicateKeys.end(), at->second.begin(), at->second.end());
            // Induction: j = p + 1 for every earlier p with t_p = t_i and
            // p + 1 <= i - 1.
            for (const int p : at->second)
                if (p + 1 <= i - 1)
                    k.inductionKeys.push_back(p + 1);
        }
        k.duplicateStart[std::size_t(i) + 1] = int(k.duplicateKeys.size());
        k.inductionStart[std::size_t(i) + 1] = int(k.inductionKeys.size());
        seen[t].push_back(i);
    }
    return k;
}

HeadTypeScores headTypeScores(const Matrix& weights, const HeadScoreKeys& keys)
{
    return scoresOf(keys, [&](int i, int j) { return weights(i, j); });
}

HeadTypeScores headTypeScores(const AttentionResult& head, const HeadScoreKeys& keys)
{
    return scoresOf(keys, [&](int i, int j) { return head.weights(i, j); });
}

Expected<HeadScoreTable> headScores(const DecoderModel& model, const DecoderResult& result)
{
    const DecoderConfig& c = model.config();
    if (int(result.layers.size()) != c.layers)
        return Error{"The result is not one of this model's passes."};
    HeadScoreTable table;
    table.layers = c.layers;
    table.heads = c.heads;
    table.values.reserve(std::size_t(c.layers) * std::size_t(c.heads));
    const HeadScoreKeys keys = headScoreKeys(result.tokenIds);
    for (int l = 0; l < c.layers; ++l) {
        const DecoderLayer& layer = result.layers[std::size_t(l)];
        for (int h = 0; h < c.heads; ++h) {
            if (int(layer.heads.size()) == c.heads) {
                const AttentionResult& head = layer.heads[std::size_t(h)];
                if (head.tokens() != keys.tokens)
                    return Error{"The result is not one of this model's passes."};
                table.values.push_back(headTypeScores(head, keys));
                continue;
            }
            const Expected<AttentionResult> head = model.head(result, l, h);
            if (!head)
                return head.error();
            table.values.push_back(headTypeScores(head.value(), keys));
        }
    }
    return table;
}

std::vector<HeadIndex> rankHeads(const HeadScoreTable& table, HeadScoreKind kind)
{
    std::vector<HeadIndex> heads;
    for (int l = 0; l < table.layers; ++l)
        for (int h = 0; h < table.heads; ++h)
            if (table.at(l, h)[kind])
                heads.push_back({l, h});
    std::stable_sort(heads.begin(), heads.end(), [&](const HeadIndex& a, const HeadIndex& b) {
        return *table.at(a.layer, a.head)[kind] > *table.at(b.layer, b.head)[kind];
    });
    return heads;
}

TokenIdRange repeatProbeIdRange(int vocabSize)
{
    const int v = std::max(vocabSize, 0);
    return {std::min(1000, v / 4), std::min(20000, v - v / 4)};
}

std::uint64_t SplitMix64::next()
{
    state_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

Expected<std::vector<int>> repeatedSpanIds(int span, std::uint64_t seed, TokenIdRange range)
{
    if (span < 2)
        return Error{"The repeated span is " + std::to_string(span) + " tokens; it takes at least 2."};
    if (span > range.size())
        return Error{"The repeated span is " + std::to_string(span) + " tokens; this vocabulary gives "
                     + std::to_string(std::max(range.size(), 0)) + " distinct ids to draw them from (ids "
                     + std::to_string(range.low) + " to " + std::to_string(range.high - 1) + ")."};
    SplitMix64 rng(seed);
    std::vector<int> ids;
    ids.reserve(std::size_t(span) * 2);
    while (int(ids.size()) < span) {
        const double u = double(rng.next() >> 11) * 0x1.0p-53;
        const int id = range.low + int(std::floor(u * range.size()));
        if (std::find(ids.begin(), ids.end(), id) == ids.end())
            ids.push_back(id);
    }
    ids.insert(ids.end(), ids.begin(), ids.end());
    return ids;
}

Expected<std::vector<double>> nextTokenLosses(const DecoderModel& model, const DecoderResult& result,
                                              int threads)
{
    const int n = result.tokens();
    if (n < 2)
        return Error{"A loss on the next token needs at least 2 tokens."};
    const bool haveLogits = result.logits.rows() == n;
    if (!haveLogits && (result.layers.empty() || result.layers.back().hidden.rows() != n))
        return Error{"The pass kept neither every position's logits nor the residual stream."};
    std::vector<double> losses;
    losses.reserve(std::size_t(n) - 1);
    constexpr int kRows = 64;
    for (int begin = 0; begin < n - 1; begin += kRows) {
        const int rows = std::min(kRows, n - 1 - begin);
        Matrix chunk;
        if (haveLogits) {
            chunk = result.logits.middleRows(begin, rows);
        } else {
            Expected<Matrix> read =
                model.readOut(result.layers.back().hidden.middleRows(begin, rows), threads);
            if (!read)
                return read.error();
            chunk = std::move(read).value();
        }
        for (int r = 0; r < rows; ++r) {
            const RowVector logits = chunk.row(r);
            const LogNormaliser z = normaliserOf(logits, 1.0);
            const int next = result.tokenIds[std::size_t(begin + r) + 1];
            losses.push_back(z.top + z.logSum - logits[next]);
        }
    }
    return losses;
}

Expected<RepeatLoss> repeatLoss(const std::vector<double>& losses, int span)
{
    if (span < 2 || losses.size() != std::size_t(2 * span - 1))
        return Error{"The losses are not those of a span of " + std::to_string(span) + " repeated twice."};
    RepeatLoss r;
    // losses[i] is the loss on token i + 1: offsets 1..span-1 of the first
    // repeat are tokens 1..span-1, of the second span+1..2span-1.
    double first = 0.0, second = 0.0;
    for (int offset = 1; offset < span; ++offset) {
        first += losses[std::size_t(offset) - 1];
        second += losses[std::size_t(span + offset) - 1];
    }
    r.first = first / (span - 1);
    r.second = second / (span - 1);
    return r;
}

std::vector<NextTokenChange> compareNextTokens(const RowVector& intact, const RowVector& ablated, int k,
                                               double temperature)
{
    std::vector<int> ids;
    for (const RowVector* logits : {&intact, &ablated})
        for (const TopToken& top : topTokens(*logits, k, temperature))
            if (std::find(ids.begin(), ids.end(), top.id) == ids.end())
                ids.push_back(top.id);
    const LogNormaliser zi = normaliserOf(intact, temperature);
    const LogNormaliser za = normaliserOf(ablated, temperature);
    std::vector<NextTokenChange> out;
    out.reserve(ids.size());
    for (const int id : ids)
        out.push_back({id, intact[id], zi.probability(intact[id], temperature), ablated[id],
                       za.probability(ablated[id], temperature)});
    std::sort(out.begin(), out.end(), [](const NextTokenChange& a, const NextTokenChange& b) {
        return a.intactProbability > b.intactProbability
               || (a.intactProbability == b.intactProbability && a.id < b.id);
    });
    return out;
}

double tokenProbability(const RowVector& logits, int id, double temperature)
{
    return normaliserOf(logits, temperature).probability(logits[id], temperature);
}

Expected<double> logitDifference(const RowVector& logits, int a, int b)
{
    for (const int id : {a, b})
        if (id < 0 || id >= logits.size())
            return Error{"Token id " + std::to_string(id) + " is outside the vocabulary (ids 0 to "
                         + std::to_string(logits.size() - 1) + ")."};
    return logits[a] - logits[b];
}

}  // namespace attn
