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
    if (Status s = checkAblatedHeads(config, options.ablated); !s)
        return s;
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

Expected<DecodeResult> generationStep(const DecoderModel& model, const std::vector<int>& text, KvCache* cache,
                                      const DecodeOptions& options)
{
    if (!cache)
        return Error{"A generation step needs a key/value cache."};
    const int cached = cache->tokens();
    if (cached >= int(text.size()))
        return Error{"The cache holds " + std::to_string(cached) + " tokens of a text of "
                     + std::to_string(text.size()) + "; a step needs at least one new token."};
    if (options.ablated.empty() || options.ablation != HeadAblation::Mean)
        return model.decode(std::vector<int>(text.begin() + cached, text.end()), cache, options);

    // Mean ablation: the whole pass over the text (see generation.h).
    const DecoderConfig& c = model.config();
    if (Status s = checkAblatedHeads(c, options.ablated); !s)
        return s.error();
    DecoderRunOptions run;
    run.divisors = options.divisors;
    run.mask = options.mask;
    run.skipQkNorm = options.skipQkNorm;
    run.threads = options.threads;
    run.cancel = options.cancel;
    run.topK = 1;
    // Only the attention inputs stay (8 n E bytes a layer); each head's last
    // row is read from the head computed again, one at a time.
    run.keepMaps = false;
    run.headOutput = ablationHook(options.ablated, HeadAblation::Mean);
    Expected<DecoderResult> pass = model.run(text, run);
    if (!pass)
        return pass.error();
    DecodeResult r;
    r.firstPosition = 0;
    r.newTokens = pass->tokens();
    r.heads = c.heads;
    r.wholePass = true;
    r.logits = pass->lastLogits;
    if (options.keepAttention) {
        const int last = pass->tokens() - 1;
        r.attention.resize(std::size_t(c.layers) * std::size_t(c.heads));
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                if (options.cancel && options.cancel->load(std::memory_order_relaxed))
                    return cancelledError(kDecoderCancelled);
                Expected<AttentionResult> head = model.head(*pass, l, h);
                if (!head)
                    return head.error();
                RowVector& row = r.attention[std::size_t(l) * std::size_t(c.heads) + std::size_t(h)];
                row.resize(last + 1);
                head->weightsRow(last, row.data());
            }
    }
    return r;
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
    const bool wholePasses = !options.ablated.empty() && options.ablation == HeadAblation::Mean;
    if (!wholePasses)
        cache.reserve(int(promptIds.size()) + options.maxNewTokens - 1);
    GenerationRandom random(options.seed);
    DecodeOptions decode;
    decode.divisors = options.divisors;
    decode.mask = options.mask;
    decode.skipQkNorm = options.skipQkNorm;
    decode.threads = options.threads;
    decode.keepAttention = options.keepAttention;
    decode.cancel = options.cancel;
    decode.ablated = options.ablated;
    decode.ablation = options.ablation;
    std::vector<int> text = promptIds;
    for (int k = 0; k < options.maxNewTokens; ++k) {
        Expected<DecodeResult> step = generationStep(model, text, &cache, decode);
        if (!step)
            return step.error();
        const double u = options.sample ? random.next() : 0.0;
        const TokenChoice choice =
            chooseToken(step->logits, options.sample, options.temperature, options.topK, u);
        GeneratedToken token;
        token.id = choice.id;
        token.probability = choice.probability;
        token.position = int(promptIds.size()) + k;
        token.wholePass = step->wholePass;
        token.cacheTokens = step->wholePass ? int(text.size()) : cache.tokens();
        token.cacheBytes = cache.bytes();
        token.cacheBytesOneKvPerQueryHead = cache.bytesOneKvPerQueryHead();
        if (options.keepAttention)
            token.step = std::move(step).value();
        out.tokens.push_back(std::move(token));
        if (observe && !observe(out.tokens.back(), cache))
            break;
        text.push_back(choice.id);
    }
    return out;
}

}  // namespace attn
