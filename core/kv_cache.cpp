// SPDX-License-Identifier: GPL-3.0-or-later
#include "kv_cache.h"

#include "decoder_steps.h"
#include "parallel.h"
#include "size_limits.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

namespace attn {
namespace {

bool isCancelled(const DecodeOptions& options)
{
    return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

std::string shapeOf(int layers, int kvHeads, int headDim)
{
    return std::to_string(layers) + " layers x " + std::to_string(kvHeads) + " key/value heads x head_dim "
           + std::to_string(headDim);
}

Status checkStep(const DecoderConfig& c, const std::vector<int>& ids, const KvCache& cache,
                 const DecodeOptions& options, HeadDivisors* divisors)
{
    if (c.layers < 1 || c.heads < 1 || c.kvHeads < 1 || c.headDim < 1 || c.heads % c.kvHeads != 0
        || c.vocabSize < 1 || c.maxPositions < 1)
        return Error{"The model's configuration has no layers, heads or positions to decode with."};
    if (!cache.fits(c))
        return Error{"The key/value cache is for " + shapeOf(cache.layers(), cache.kvHeads(), cache.headDim())
                     + "; the model has " + shapeOf(c.layers, c.kvHeads, c.headDim) + "."};
    const int n = int(ids.size());
    if (n < 1)
        return Error{"A decode step needs at least one new token."};
    const int maxTokens = std::min(c.maxPositions, kMaxTokens);
    if (n > maxTokens - cache.tokens())
        return Error{"The cache holds " + std::to_string(cache.tokens()) + " tokens and the step adds "
                     + std::to_string(n) + "; this model takes at most " + std::to_string(maxTokens) + "."};
    for (int i = 0; i < n; ++i)
        if (ids[std::size_t(i)] < 0 || ids[std::size_t(i)] >= c.vocabSize)
            return Error{"Token " + std::to_string(i + 1) + " has id " + std::to_string(ids[std::size_t(i)])
                         + ", outside the vocabulary (0 to " + std::to_string(c.vocabSize - 1) + ")."};
    *divisors = options.divisors.empty() ? HeadDivisors::standard(c) : options.divisors;
    if (Status s = divisors->check(c); !s)
        return s;
    if (Status s = checkAblatedHeads(c, options.ablated); !s)
        return s;
    if (!options.ablated.empty() && options.ablation == HeadAblation::Mean)
        return Error{
            "A decode step cannot mean-ablate a head: the mean over the positions changes every "
            "earlier row with each new token; run a whole pass over the text instead."};
    return checkDecoderWhatIfs(c, options.mask, options.skipQkNorm);
}

Error notFinite(int layer, int head)
{
    return Error{"Layer " + std::to_string(layer) + ", head " + std::to_string(head)
                 + ": the attention is not finite. The checkpoint holds values too large or not numbers."};
}

// One query row q (hd) against the cached keys it sees, `keys` (the mask's
// one or two runs up to its own position): its context row, and its
// weights over keys 0..its position (0 where hidden) when given. False if a
// number is not finite.
bool attendRow(const Eigen::Ref<const RowVector>& q, const Matrix& K, const Matrix& V,
               const VisibleKeys& keys, double divisor, Eigen::Ref<RowVector> context, RowVector* weights)
{
    const int count = keys.count();
    RowVector a(count);
    for (int c = 0; c < count; ++c)
        a[c] = q.dot(K.row(keys.key(c))) / divisor;
    const double top = a.maxCoeff();
    a = (a.array() - top).exp();
    a /= a.sum();
    // The two runs as products: [0, head) and [from, to).
    const int tail = keys.to - keys.from;
    context.noalias() = a.tail(tail) * V.middleRows(keys.from, tail);
    if (keys.head > 0)
        context.noalias() += a.head(keys.head) * V.topRows(keys.head);
    if (weights) {
        weights->setZero(keys.to);
        for (int c = 0; c < count; ++c)
            (*weights)[keys.key(c)] = a[c];
    }
    return std::isfinite(top) && context.allFinite();
}

}  // namespace

KvCache::KvCache(const DecoderConfig& config)
    : layers_(std::max(config.layers, 0)),
      kvHeads_(std::max(config.kvHeads, 0)),
      heads_(std::max(config.heads, 0)),
      headDim_(std::max(config.headDim, 0)),
      keys_(std::size_t(layers_) * std::size_t(kvHeads_), Matrix(0, std::max(config.headDim, 0))),
      values_(std::size_t(layers_) * std::size_t(kvHeads_), Matrix(0, std::max(config.headDim, 0)))
{
}

bool KvCache::fits(const DecoderConfig& config) const
{
    return layers_ == config.layers && kvHeads_ == config.kvHeads && heads_ == config.heads
           && headDim_ == config.headDim && layers_ > 0 && kvHeads_ > 0;
}

Eigen::Block<const Matrix> KvCache::keys(int layer, int kvHead) const
{
    return Eigen::Block<const Matrix>(keys_[index(layer, kvHead)], 0, 0, tokens_, headDim_);
}

Eigen::Block<const Matrix> KvCache::values(int layer, int kvHead) const
{
    return Eigen::Block<const Matrix>(values_[index(layer, kvHead)], 0, 0, tokens_, headDim_);
}

std::int64_t KvCache::bytesFor(int tokens, int kvHeads) const
{
    return std::int64_t(2) * layers_ * kvHeads * headDim_ * std::int64_t(tokens) * kBytesPerNumber;
}

std::int64_t KvCache::bytes(const DecoderConfig& config, int tokens)
{
    return config.kvCacheNumbersPerToken() * std::int64_t(tokens) * kBytesPerNumber;
}

std::int64_t KvCache::bytesOneKvPerQueryHead(const DecoderConfig& config, int tokens)
{
    return config.kvCacheNumbersPerTokenUnshared() * std::int64_t(tokens) * kBytesPerNumber;
}

void KvCache::reserve(int tokens)
{
    if (tokens <= capacity_)
        return;
    for (std::vector<Matrix>* store : {&keys_, &values_})
        for (Matrix& m : *store) {
            Matrix grown(tokens, headDim_);
            if (tokens_ > 0)
                grown.topRows(tokens_) = m.topRows(tokens_);
            m.swap(grown);
        }
    capacity_ = tokens;
}

Expected<DecodeResult> runDecodeStep(const DecoderConfig& c, DecoderSteps& steps,
                                     const std::vector<int>& newIds, KvCache* cache,
                                     const DecodeOptions& options)
{
    if (!cache)
        return Error{"A decode step needs a key/value cache."};
    HeadDivisors divisors;
    if (Status s = checkStep(c, newIds, *cache, options, &divisors); !s)
        return s.error();
    const int t = cache->tokens();
    const int m = int(newIds.size());
    const int hd = c.headDim;
    const int group = c.heads / c.kvHeads;
    const int threads = std::max(options.threads, 1);
    if (t + m > cache->capacity_)
        cache->reserve(std::max(t + m, std::min(2 * cache->capacity_, std::min(c.maxPositions, kMaxTokens))));

    DecodeResult r;
    r.firstPosition = t;
    r.newTokens = m;
    r.heads = c.heads;
    if (options.keepAttention)
        r.attention.resize(std::size_t(c.layers) * std::size_t(c.heads));
    const AttentionMask mask = options.mask ? *options.mask : c.ownMask();
    steps.setSkipQkNorm(options.skipQkNorm);
    steps.setFirstPosition(t);
    Matrix h = steps.embed(newIds);
    std::vector<AttentionResult> heads(std::size_t(c.heads));
    std::vector<char> finite(std::size_t(c.heads), 1);
    Matrix contexts(m, c.contextWidth());
    for (int l = 0; l < c.layers; ++l) {
        if (isCancelled(options))
            return cancelledError(kDecoderCancelled);
        steps.beginLayer(l, h);
        forEachIndex(c.heads, threads, [&](int i) { steps.headInputs(l, i, &heads[std::size_t(i)]); });
        // The new rows of each key/value head after the cached ones (the
        // cache's count moves only once the step has succeeded).
        for (int g = 0; g < c.kvHeads; ++g) {
            const AttentionResult& first = heads[std::size_t(g) * std::size_t(group)];
            cache->keyStore(l, g).middleRows(t, m) = first.K;
            cache->valueStore(l, g).middleRows(t, m) = first.V;
        }
        forEachIndex(c.heads, threads, [&](int i) {
            AttentionResult& head = heads[std::size_t(i)];
            const double divisor = divisors.at(l, i);
            RowVector* kept = options.keepAttention ? &r.attention[std::size_t(l) * c.heads + i] : nullptr;
            auto context = contexts.middleCols(Eigen::Index(i) * hd, hd);
            if (t == 0) {
                finite[std::size_t(i)] = bool(attendDecoderHead(mask, divisor, &head));
                if (!finite[std::size_t(i)])
                    return;
                context = head.context;
                if (kept) {
                    kept->resize(m);
                    head.weightsRow(m - 1, kept->data());
                }
                return;
            }
            const Matrix& K = cache->keyStore(l, c.kvHeadOf(i));
            const Matrix& V = cache->valueStore(l, c.kvHeadOf(i));
            for (int row = 0; row < m; ++row) {
                const int p = t + row;
                if (!attendRow(head.Q.row(row), K, V, mask.visible(p, p + 1), divisor, context.row(row),
                               row == m - 1 ? kept : nullptr))
                    finite[std::size_t(i)] = 0;
            }
        });
        for (int i = 0; i < c.heads; ++i)
            if (!finite[std::size_t(i)])
                return notFinite(l, i);
        // Zero ablation, row by row: the new rows of each ablated head.
        for (const HeadIndex& a : options.ablated)
            if (a.layer == l)
                contexts.middleCols(Eigen::Index(a.head) * hd, hd).setZero();
        steps.endLayer(l, contexts, &h);
    }
    if (isCancelled(options))
        return cancelledError(kDecoderCancelled);
    const Matrix logits = steps.unembed(steps.finalNorm(Matrix(h.bottomRows(1))));
    r.logits = logits.row(0);
    if (!r.logits.allFinite())
        return Error{"The logits are not finite (the checkpoint holds values too large or not numbers)."};
    cache->tokens_ = t + m;
    return r;
}

// DecoderModel's member, here beside the step it runs.
Expected<DecodeResult> DecoderModel::decode(const std::vector<int>& newIds, KvCache* cache,
                                            const DecodeOptions& options) const
{
    const std::unique_ptr<DecoderSteps> s = steps(std::max(options.threads, 1));
    return runDecodeStep(config(), *s, newIds, cache, options);
}

}  // namespace attn
