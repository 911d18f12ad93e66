// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Generation's key/value cache and its decode step (issue 40), for every
// family behind DecoderModel (decoder_model.h):
//
//   prefill:      decode(prompt ids, empty cache): every row once, as the
//                 whole pass computes them; each layer's K and V rows of
//                 each key/value head go into the cache
//   decode step:  decode({next id}, cache of t tokens): the new token alone
//                 through every layer, at position t (GPT-2's position
//                 embedding, RoPE's angle); per query head one new row
//                 q_t K^T / divisor over the cached keys (the causal mask
//                 and the model's sliding window: keys t - w < j <= t),
//                 softmax, times the cached V; its K and V rows appended
//
// A key/value head is cached once, whatever the number of query heads that
// read it (grouped-query attention: Llama 3's 32 query heads share 8).
// The cache keeps every token's K and V, even those a sliding window no
// longer shows (a rolling buffer could drop them; this one shows them).
//
// Size: 2 (K and V) x layers x key/value heads x head_dim x tokens numbers,
// at kBytesPerNumber = 8 bytes each (the engine computes in double; a
// float16 cache would take 2). bytesOneKvPerQueryHead() is the same with a
// K and V per query head: what the cache would hold without grouped-query
// attention (GPT-2: the same, its key/value heads are its heads).

#include "decoder_config.h"
#include "decoder_model.h"
#include "expected.h"
#include "matrix.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <cstdint>
#include <vector>

namespace attn {

class DecoderSteps;

struct DecodeOptions {
    HeadDivisors divisors;  // empty: HeadDivisors::standard
    // The heads of a layer and the products' column blocks are shared among
    // this many threads; the numbers do not depend on it.
    int threads = 1;
    // Keep, per layer and query head, the last new row's attention weights.
    bool keepAttention = true;
    // As DecoderRunOptions::cancel: checked before each layer.
    const std::atomic<bool>* cancel = nullptr;
    // The what-ifs, as DecoderRunOptions's: every layer's mask (empty: the
    // model's own) and QK-norm removed. A generation keeps them for all its
    // steps: the cached keys were made with them.
    std::optional<AttentionMask> mask;
    bool skipQkNorm = false;
    // Heads ablated (the head lab's), Zero only: each step sets the new
    // rows of their contexts to 0 before the output projection, as a whole
    // pass with ablationHook(heads, Zero) sets every row (a row never reads
    // a later one, so the cached keys and values stay those of the whole
    // ablated pass). Mean ablation replaces each row by the mean over every
    // position, so a new token changes the earlier rows: a decode step
    // refuses it, and generationStep (generation.h) runs whole passes.
    std::vector<HeadIndex> ablated;
    HeadAblation ablation = HeadAblation::Zero;
};

struct DecodeResult {
    int firstPosition = 0;  // the first new token's position (the tokens cached before)
    int newTokens = 0;
    RowVector logits;  // (vocab) the last new position's
    // With keepAttention, layer-major (layer * heads + head): the last new
    // row's softmax weights over keys 0..its position (0 where masked).
    std::vector<RowVector> attention;
    int heads = 0;
    // Computed by a whole pass over every token, not from a cache
    // (generationStep with heads mean-ablated): firstPosition 0, newTokens
    // all of them.
    bool wholePass = false;

    int lastPosition() const { return firstPosition + newTokens - 1; }
    const RowVector& attentionRow(int layer, int head) const
    {
        return attention[std::size_t(layer) * std::size_t(heads) + std::size_t(head)];
    }
};

class KvCache;

// The step over a family's steps (DecoderModel::decode calls it). The cache
// is changed only when the step succeeds (its new tokens added); on an
// error it is as it was.
Expected<DecodeResult> runDecodeStep(const DecoderConfig& config, DecoderSteps& steps,
                                     const std::vector<int>& newIds, KvCache* cache,
                                     const DecodeOptions& options);

class KvCache {
public:
    static constexpr int kBytesPerNumber = int(sizeof(double));

    KvCache() = default;
    // An empty cache for `config`'s layers, key/value heads and head_dim.
    explicit KvCache(const DecoderConfig& config);

    int layers() const { return layers_; }
    int kvHeads() const { return kvHeads_; }
    int queryHeads() const { return heads_; }
    int headDim() const { return headDim_; }
    int tokens() const { return tokens_; }
    bool fits(const DecoderConfig& config) const;

    // The cached keys and values (tokens(), head_dim) of key/value head
    // `kvHead` of `layer`, rows in position order (RoPE already applied).
    Eigen::Block<const Matrix> keys(int layer, int kvHead) const;
    Eigen::Block<const Matrix> values(int layer, int kvHead) const;

    // 2 x layers x kvHeads x headDim x tokens x kBytesPerNumber, and the same
    // with one K/V per query head (heads instead of kvHeads).
    std::int64_t bytes() const { return bytesFor(tokens_, kvHeads_); }
    std::int64_t bytesOneKvPerQueryHead() const { return bytesFor(tokens_, heads_); }
    // The same for `tokens` tokens of `config`'s model.
    static std::int64_t bytes(const DecoderConfig& config, int tokens);
    static std::int64_t bytesOneKvPerQueryHead(const DecoderConfig& config, int tokens);

    // Room for this many tokens without growing (generation knows its end).
    void reserve(int tokens);
    // Forgets every token (the room stays).
    void clear() { tokens_ = 0; }
    // Forgets the tokens from `tokens` on (a step taken back); no change
    // for a count at or above tokens().
    void truncate(int tokens) { tokens_ = std::clamp(tokens, 0, tokens_); }

private:
    friend Expected<DecodeResult> runDecodeStep(const DecoderConfig&, DecoderSteps&, const std::vector<int>&,
                                                KvCache*, const DecodeOptions&);
    std::int64_t bytesFor(int tokens, int kvHeads) const;
    Matrix& keyStore(int layer, int kvHead) { return keys_[index(layer, kvHead)]; }
    Matrix& valueStore(int layer, int kvHead) { return values_[index(layer, kvHead)]; }
    std::size_t index(int layer, int kvHead) const
    {
        return std::size_t(layer) * std::size_t(kvHeads_) + std::size_t(kvHead);
    }

    int layers_ = 0;
    int kvHeads_ = 0;
    int heads_ = 0;
    int headDim_ = 0;
    int tokens_ = 0;
    int capacity_ = 0;
    // layer-major, (capacity_, headDim_) each; rows tokens_.. are scratch.
    std::vector<Matrix> keys_;
    std::vector<Matrix> values_;
};

}  // namespace attn
