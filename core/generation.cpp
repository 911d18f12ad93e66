// SPDX-License-Identifier: GPL-3.0-or-later
#include "generation.h"

#include "size_limits.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>

namespace attn {

std::vector<int> Generation::generatedIds() const
{
    std::vector<int> ids;
    ids.reserve(tokens.size());
    for (const GeneratedToken& t : tokens)
        ids.push_back(t.id);
    return ids;
}

std::vector<int> Generation::allIds() const
{
    std::vector<int> ids = promptIds;
    for (const GeneratedToken& t : tokens)
        ids.push_back(t.id);
    return ids;
}

Status checkGeneration(const DecoderConfig& config, const std::vector<int>& promptIds,
                       const GenerationOptions& options)
{
    if (options.maxNewTokens < 1 || options.maxNewTokens > kMaxGeneratedTokens)
        return Error{"The number of tokens to generate must be from 1 to "
                     + std::to_string(kMaxGeneratedTokens) + "; got " + std::to_string(options.maxNewTokens)
                     + "."};
    const int prompt = int(promptIds.size());
    if (prompt < 1)
        return Error{"The prompt has no tokens; generation needs at least one."};
    const int maxTokens = std::min(config.maxPositions, kMaxTokens);
    if (options.maxNewTokens > maxTokens - prompt)
        return Error{"The prompt's " + std::to_string(prompt) + " tokens and "
                     + std::to_string(options.maxNewTokens) + " new ones make "
                     + std::to_string(prompt + std::int64_t(options.maxNewTokens))
                     + " tokens; this model takes at most " + std::to_string(maxTokens) + "."};
    if (!std::isfinite(options.temperature) || options.temperature < kMinTemperature
        || options.temperature > kMaxTemperature) {
        std::ostringstream msg;
        msg << "The temperature must be a number from " << kMinTemperature << " to " << kMaxTemperature
            << "; got " << options.temperature << ".";
        return Error{msg.str()};
    }
    if (options.topK < 0 || options.topK > kMaxTopK)
        return Error{"Top-k must be from 1 to " + std::to_string(kMaxTopK)
                     + " (0: the whole vocabulary); got " + std::to_string(options.topK) + "."};
    return checkDecoderWhatIfs(config, options.mask, options.skipQkNorm);
}

TokenChoice chooseToken(const RowVector& logits, bool sample, double temperature, int topK, double uniform)
{
    const Eigen::Index v = logits.size();
    if (v < 1)
        return {};
    const double top = logits.maxCoeff() / temperature;
    double sum = 0.0;
    for (Eigen::Index j = 0; j < v; ++j)
        sum += std::exp(logits[j] / temperature - top);
    const auto probability = [&](int id) { return std::exp(logits[id] / temperature - top) / sum; };
    const auto before = [&](int a, int b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    };
    if (!sample) {
        int best = 0;
        for (int j = 1; j < int(v); ++j)
            if (before(j, best))
                best = j;
        return {best, probability(best)};
    }
    const int k = topK <= 0 || topK > v ? int(v) : topK;
    std::vector<int> ids(static_cast<std::size_t>(v));
    std::iota(ids.begin(), ids.end(), 0);
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), before);
    std::vector<double> weight(static_cast<std::size_t>(k));
    double total = 0.0;
    for (int i = 0; i < k; ++i) {
        weight[std::size_t(i)] = std::exp(logits[ids[std::size_t(i)]] / temperature - top);
        total += weight[std::size_t(i)];
    }
    const double target = uniform * total;
    double cumulative = 0.0;
    for (int i = 0; i < k; ++i) {
        cumulative += weight[std::size_t(i)];
        if (cumulative > target)
            return {ids[std::size_t(i)], probability(ids[std::size_t(i)])};
    }
    // Rounding left u x total at the sum: the last token with any weight.
    int last = k - 1;
    while (last > 0 && weight[std::size_t(last)] == 0.0)
        --last;
    return {ids[std::size_t(last)], probability(ids[std::size_t(last)])};
}

Expected<Generation> generate(const DecoderModel& model, const std::vector<int>& promptIds,
                              const GenerationOptions& options, const GenerationObserver& observe)
{
    const DecoderConfig& config = model.config();
    if (Status s = checkGeneration(config, promptIds, options); !s)
        return s.error();
    Generation out;
    out.promptIds = promptIds;
    KvCache cache(config);
    cache.reserve(int(promptIds.size()) + options.maxNewTokens - 1);
    GenerationRandom random(options.seed);
    DecodeOptions decode;
    decode.divisors = options.divisors;
    decode.mask = options.mask;
    decode.skipQkNorm = options.skipQkNorm;
    decode.threads = options.threads;
    decode.keepAttention = options.keepAttention;
    decode.cancel = options.cancel;
    std::vector<int> next = promptIds;
    for (int k = 0; k < options.maxNewTokens; ++k) {
        Expected<DecodeResult> step = model.decode(next, &cache, decode);
        if (!step)
            return step.error();
        const double u = options.sample ? random.next() : 0.0;
        const TokenChoice choice =
            chooseToken(step->logits, options.sample, options.temperature, options.topK, u);
        GeneratedToken token;
        token.id = choice.id;
        token.probability = choice.probability;
        token.position = int(promptIds.size()) + k;
        token.cacheTokens = cache.tokens();
        token.cacheBytes = cache.bytes();
        token.cacheBytesOneKvPerQueryHead = cache.bytesOneKvPerQueryHead();
        if (options.keepAttention)
            token.step = std::move(step).value();
        out.tokens.push_back(std::move(token));
        if (observe && !observe(out.tokens.back(), cache))
            break;
        next.assign(1, choice.id);
    }
    return out;
}

}  // namespace attn
