// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Text generation with the key/value cache (issue 40): the prompt's
// prefill, then one decode step per new token (kv_cache.h), each token
// chosen from the last row's logits:
//
//   greedy   the largest logit (ties: the smaller id)
//   sample   p = softmax(logits / T) over the whole vocabulary; with top-k
//            the K most likely tokens only (ties: the smaller id), their p
//            renormalised; one uniform u in [0, 1) per token from
//            PyTorch's generator seeded with the seed (torch_random.h: the
//            low 53 bits of two mt19937 draws, as torch's uniform double),
//            and the first token, most likely first, whose cumulative
//            probability exceeds u x their sum
//
// A token's `probability` is softmax(logits / T) of it over the whole
// vocabulary (T = the temperature, 1 unless given), whichever way it was
// chosen. Sampling with top-k 1 chooses as greedy does.
//
// With heads ablated (the head lab's, issue 39) every step runs without
// them, so that the tokens are those of the ablated model the next-token
// panel shows: each token is chosen from the last row of the whole pass
// over the text so far with ablationHook(heads, kind).
//   zero   the decode step zeroes the heads' new rows (DecodeOptions::
//          ablated); a row never reads a later one, so the cache is the
//          whole ablated pass's and the step equals it (within rounding)
//   mean   each ablated head's context rows are replaced by their mean
//          over the positions so far, the prompt's and the new token's
//          included: the whole ablated pass over the same tokens. That
//          mean moves with every new token and so does every later
//          layer's earlier row, which no cache can hold: each step is a
//          whole pass over the text (generationStep), O(n) rows a step
//          instead of one

#include "decoder_model.h"
#include "expected.h"
#include "kv_cache.h"
#include "matrix.h"
#include "torch_random.h"

#include <atomic>
#include <optional>
#include <cstdint>
#include <functional>
#include <vector>

namespace attn {

// The most tokens one generation may add (a sentence's limit, kMaxTokens,
// binds first for every model read so far).
inline constexpr int kMaxGeneratedTokens = 4096;
// The largest top-k accepted; larger than a vocabulary means all of it.
inline constexpr int kMaxTopK = 1 << 30;

struct GenerationOptions {
    int maxNewTokens = 1;  // N >= 1; prompt + N within the model's positions
    bool sample = false;
    double temperature = 1.0;  // [kMinTemperature, kMaxTemperature]
    int topK = 0;              // with sample: 0 for the whole vocabulary, else 1..kMaxTopK
    std::uint64_t seed = 0;    // with sample
    HeadDivisors divisors;     // empty: HeadDivisors::standard
    // The what-ifs of every step (DecodeOptions's): the mask and QK-norm.
    std::optional<AttentionMask> mask;
    bool skipQkNorm = false;
    // The heads every step runs without, and how (above); empty: none.
    std::vector<HeadIndex> ablated;
    HeadAblation ablation = HeadAblation::Zero;
    int threads = 1;
    // Keep each step's attention rows (DecodeResult::attention): 8 x layers
    // x heads x position bytes per step.
    bool keepAttention = false;
    const std::atomic<bool>* cancel = nullptr;
};

struct GeneratedToken {
    int id = 0;
    double probability = 0.0;  // softmax(logits / T) of id, whole vocabulary
    int position = 0;          // the position the token takes in the text
    // The cache after the step that chose the token: the tokens before it
    // (prompt and earlier tokens), its bytes and the same with one K/V per
    // query head (KvCache). Chosen by a whole pass (wholePass: heads
    // mean-ablated), cacheTokens is the tokens that pass read and the
    // bytes are 0: no cache was kept.
    int cacheTokens = 0;
    std::int64_t cacheBytes = 0;
    std::int64_t cacheBytesOneKvPerQueryHead = 0;
    bool wholePass = false;
    // With keepAttention: the row that chose the token, per layer and head
    // (DecodeResult::attentionRow), over keys 0..cacheTokens - 1.
    DecodeResult step;
};

struct Generation {
    std::vector<int> promptIds;
    std::vector<GeneratedToken> tokens;

    std::vector<int> generatedIds() const;
    std::vector<int> allIds() const;  // prompt then generated
};

// The options against the model and the prompt: N from 1 with prompt + N
// within its positions (and kMaxTokens), the temperature's range, top-k
// from 0, the prompt's ids in the vocabulary. The error says which.
Status checkGeneration(const DecoderConfig& config, const std::vector<int>& promptIds,
                       const GenerationOptions& options);

struct TokenChoice {
    int id = 0;
    double probability = 0.0;
};

// The choice above from one row of logits; `uniform` in [0, 1) is read
// only when sampling.
TokenChoice chooseToken(const RowVector& logits, bool sample, double temperature, int topK, double uniform);

// A uniform in [0, 1): the low 53 bits of two mt19937 draws (PyTorch's
// generator seeded with `seed`, first draw in the high word) times 2^-53;
// the draws of one generation, in order.
class GenerationRandom {
public:
    explicit GenerationRandom(std::uint64_t seed) : generator_(seed) {}
    double next() { return double(generator_.random64() & ((std::uint64_t(1) << 53) - 1)) * 0x1p-53; }

private:
    TorchGenerator generator_;
};

// The step that chooses the token after `text` (the prompt, then the tokens
// chosen so far) in a generation whose cache is `cache`:
//   - a decode step over the ids of `text` the cache does not hold yet (all
//     of them at first: the prefill), the cache extended by them;
//   - with heads mean-ablated (options.ablated, HeadAblation::Mean), a
//     whole pass over `text` with ablationHook(heads, Mean), the cache left
//     as it is (empty): its last logits and, with keepAttention, every
//     head's last row, marked wholePass.
// Errors as decode's and run's, and a cache holding more than `text`.
Expected<DecodeResult> generationStep(const DecoderModel& model, const std::vector<int>& text, KvCache* cache,
                                      const DecodeOptions& options);

// Called after each token (from the thread that generates); return false to
// stop there (the tokens so far are the result).
using GenerationObserver = std::function<bool(const GeneratedToken& token, const KvCache& cache)>;

// Up to maxNewTokens tokens after the prompt, one decode step each.
Expected<Generation> generate(const DecoderModel& model, const std::vector<int>& promptIds,
                              const GenerationOptions& options, const GenerationObserver& observe = {});

}  // namespace attn
