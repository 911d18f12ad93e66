// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Decoder-only transformers behind one interface: a model (DecoderModel)
// runs a pass over token ids with every layer's and head's attention kept
// (or recomputed on demand), lets a hook change a head's output before the
// output projection and keeps the residual stream after each block, whose
// rows readOut turns into logits (the logit lens).
//
//   h = embed(ids)                                                  (n, E)
//   per block l:  a = attention input (a norm of h)                 (n, E)
//     head i: Q, K, V from a (n, head_dim);  A = softmax(Q K^T / divisor(l, i), mask)
//             ctx_i = A V                                           (n, head_dim)
//             ctx_i = hook(l, i, ctx_i)       (DecoderRunOptions::headOutput)
//     h += [ctx_1 | ... | ctx_H] W_o (+ b)   then the rest of the block (the MLP)
//   logits = unembed(final norm(h))                                 (n, vocab)
//
// Models
//
// A family (GPT-2; next Llama, Qwen, Mistral) plugs in with:
//   - core: its weights (gpt2_weights.h) and its pass's numbers as
//     DecoderSteps (decoder_steps.h: embed, the attention input and each
//     head's Q, K, V, the rest of the block, the final norm, the
//     unembedding), and a DecoderModel subclass that holds the checked
//     weights, gives config() and makes the steps (gpt2.h:
//     Gpt2DecoderModel).
//     runDecoderPass holds everything the families share: the checks of
//     the ids and options, the order of the steps, the attention of each
//     head (attention.h, with the model's own mask, DecoderConfig::ownMask:
//     causal, or sliding with its sliding_window; or the what-if's,
//     DecoderRunOptions::mask), the hooks, what is kept, the cancel flag and the
//     top tokens; recomputeHead and readOut likewise.
//   - app/io: the reader of its folder (config.json and the tensors) into
//     those weights, and its tokenizer (a ModelTokenizer, modeltokenizer.h:
//     text to ids and the pieces shown, Qt text, so app/io's; the core
//     takes and gives ids only), given as a ModelFamily (modelfolder.h).
//   - one registration: that ModelFamily's line in app/io's list of the
//     families read (modelFamilies(), modelfamilies.cpp; GPT-2's is
//     gpt2Family(), gpt2folder.h). docs/ARCHITECTURE.md, "Adding a model
//     family", says it step by step.
// Nothing else changes: the views read DecoderConfig and DecoderResult.

#include "attention.h"
#include "decoder_config.h"
#include "expected.h"
#include "matrix.h"

#include <Eigen/Core>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace attn {

class DecoderSteps;
class KvCache;
struct RotaryHead;
struct DecodeOptions;
struct DecodeResult;

// The score divisor of every (layer, head): the what-if controls (scale
// mode for every layer, one layer or one head) are edits of this table.
struct HeadDivisors {
    int nLayer = 0;
    int nHead = 0;
    std::vector<double> values;  // layer-major: values[layer * nHead + head]

    // sqrt(head_dim) everywhere, as the models were trained.
    static HeadDivisors standard(const DecoderConfig& config);
    double at(int layer, int head) const { return values[std::size_t(layer) * nHead + head]; }
    bool empty() const { return values.empty(); }

    // Sets the divisor `mode` names (sqrt(head_dim), 1, or customDivisor) on
    // every layer (layer = -1) or one, every head (head = -1) or one. An
    // error for a layer or head out of range or a custom divisor outside
    // [kMinCustomDivisor, kMaxCustomDivisor]; the table is unchanged then.
    Status set(ScaleMode mode, double customDivisor, int headDim, int layer = -1, int head = -1);

    // A table for `config`'s layers and heads with every divisor in range;
    // the error names the shapes, or the first divisor out of range.
    Status check(const DecoderConfig& config) const;
};

// Called with head `head` of layer `layer`'s context (n, head_dim), a block
// of the heads' contexts side by side that the output projection reads
// next; what the hook leaves there is what the rest of the pass sees. The
// head's AttentionResult (and its context) stays the attention's own.
using HeadOutputHook = std::function<void(int layer, int head, Eigen::Ref<Matrix> context)>;

struct DecoderRunOptions {
    HeadDivisors divisors;  // empty: HeadDivisors::standard
    // The what-if of the mask: every layer's heads attend with this one
    // instead of the model's own (DecoderConfig::ownMask): causal,
    // sliding:W or sink:S,window:W ("what if the model saw only the last
    // 8 tokens?"). Empty: the model's own. None (no mask) is refused.
    std::optional<AttentionMask> mask;
    // The what-if of QK-norm (a model with DecoderConfig::qkNorm, Qwen3):
    // q and k go to the rotation as projected, without q_norm and k_norm,
    // in every layer. An error for a model without QK-norm.
    bool skipQkNorm = false;
    double temperature = 1.0;  // next-token probabilities = softmax(logits / temperature)
    int topK = 10;             // entries in DecoderResult::top
    // Keep every head's AttentionResult (Q, K, V, raw scores, context and
    // the softmax's row scales; scaled and weights are read from them bit
    // for bit). Cost per head: 8 n^2 bytes of scores and 32 n hd bytes of
    // Q, K, V, context; GPT-2 small (144 heads, hd 64) at n = 32 about
    // 10 MiB, at n = 1024 about 1.4 GiB. Without it only the per-layer
    // attention inputs stay (8 n E bytes a layer, 72 MiB at n = 1024 for
    // GPT-2 small) and DecoderModel::head recomputes a head on demand.
    bool keepMaps = true;
    // Every position's logits (8 n vocab bytes: 411 MB at n = 1024 for
    // GPT-2's 50257), not only the last one's.
    bool allLogits = false;
    // The residual stream: h before the first block and after each block
    // (8 n E bytes each), for readOut's logit lens.
    bool keepHidden = false;
    // The heads of a layer and the products' column blocks are shared among
    // this many threads (the calling one included); the numbers do not
    // depend on it.
    int threads = 1;
    // A stop flag another thread may set (a newer request superseding this
    // pass): checked before each layer, each head and the logits, the pass
    // then ends with the error kDecoderCancelled. Null, or never set: the
    // pass runs to its end, its numbers untouched by the checks.
    const std::atomic<bool>* cancel = nullptr;
    // Called on the calling thread for every head of every layer, layer by
    // layer and head by head, once all the layer's heads are computed and
    // before the output projection. Empty: no call, and the numbers are
    // bit for bit those of a pass without hooks.
    HeadOutputHook headOutput;
};

// The message of a pass stopped by DecoderRunOptions::cancel.
inline constexpr char kDecoderCancelled[] = "cancelled";

// Largest and smallest temperature accepted (the custom divisor's range).
inline constexpr double kMinTemperature = kMinCustomDivisor;
inline constexpr double kMaxTemperature = kMaxCustomDivisor;

struct TopToken {
    int id = 0;
    double logit = 0.0;
    double probability = 0.0;  // softmax(logits / temperature) over the whole vocabulary
};

struct DecoderLayer {
    // (n, E) the normed stream the heads' Q, K and V were projected from
    // (GPT-2: LN1(h)), exactly what the projections multiplied.
    Matrix attentionInput;
    std::vector<AttentionResult> heads;  // one per query head with keepMaps, else empty
    Matrix hidden;                       // (n, E) h after the block, with keepHidden
};

struct DecoderResult {
    std::vector<int> tokenIds;
    HeadDivisors divisors;       // the table the pass used
    AttentionMask mask;          // the mask every head attended with (the model's own or the what-if's)
    bool qkNormSkipped = false;  // run without q_norm and k_norm (DecoderRunOptions::skipQkNorm)
    double temperature = 1.0;
    Matrix embedded;                   // (n, E) h before the first block, with keepHidden
    std::vector<DecoderLayer> layers;  // one per block
    Matrix finalHidden;                // (n, E) the final norm of h
    RowVector lastLogits;              // (vocab) the last position's logits
    Matrix logits;                     // (n, vocab) with allLogits, else empty
    std::vector<TopToken> top;         // the topK largest logits, largest first (ties: smaller id)

    int tokens() const { return int(tokenIds.size()); }
};

// A decoder-only model with its weights, for any number of passes at once
// (every member is const and thread-safe: each call makes its own steps).
class DecoderModel {
public:
    DecoderModel() = default;
    DecoderModel(const DecoderModel&) = delete;
    DecoderModel& operator=(const DecoderModel&) = delete;
    virtual ~DecoderModel() = default;

    virtual const DecoderConfig& config() const = 0;

    // The pass. Errors: no tokens, more than maxPositions (or kMaxTokens),
    // an id outside the vocabulary, a divisor table of another shape or with
    // a divisor out of range, a temperature out of range, topK < 1, weights
    // that give values that are not finite, kDecoderCancelled.
    Expected<DecoderResult> run(const std::vector<int>& tokenIds,
                                const DecoderRunOptions& options = {}) const;

    // Head `head` of layer `layer` computed again from the layer's
    // attentionInput with the same products and attention pass: bit for bit
    // the AttentionResult the pass kept (or would have kept), hooks or not,
    // as long as the product path (kernels::available()) has not changed.
    Expected<AttentionResult> head(const DecoderResult& result, int layer, int head) const;

    // logits (rows, vocab) = unembed(final norm(hidden)) for residual-stream
    // rows `hidden` (rows, E): DecoderResult::embedded or a layer's hidden
    // give the logit lens, the last layer's hidden gives the pass's logits
    // bit for bit (all of them; one row: Matrix(row)). An error for another
    // width, no rows, or logits that are not finite.
    Expected<Matrix> readOut(const Matrix& hidden, int threads = 1) const;

    // One step of generation over a key/value cache (kv_cache.h, which
    // defines it): the new tokens after the cached ones (the prompt into an
    // empty cache, then one token at a time), their last row's logits and
    // attention, the cache extended by them. Errors as run's, and a cache of
    // another model's shape, positions beyond the model's.
    Expected<DecodeResult> decode(const std::vector<int>& newIds, KvCache* cache,
                                  const DecodeOptions& options) const;

    // The table of the divisors the model was trained with.
    HeadDivisors standardDivisors() const { return HeadDivisors::standard(config()); }

    // RoPE's frequencies theta_i (head_dim / 2, radians per position) as
    // the model applies them; empty for a model with learned positions
    // (GPT-2). rotary_head.h.
    virtual const std::vector<double>& rotaryFrequencies() const;
    // Head (layer, head) of `result` before and after the rotation, with
    // the rotation's angles (rotary_head.h); an error for a model without
    // RoPE, or as head's.
    Expected<RotaryHead> rotaryHead(const DecoderResult& result, int layer, int head) const;

protected:
    // A new set of the family's steps over these weights for one pass (one
    // head, one read-out), holding its scratch; `threads` as
    // DecoderRunOptions::threads.
    virtual std::unique_ptr<DecoderSteps> steps(int threads) const = 0;
};

// One head's attention in a decoder pass, over the Q, K and V set in `r`:
// The what-ifs a pass or a decode step may take on this model: a mask that
// hides the keys after each query (not none), and removing QK-norm only
// where the model has it. One line naming the problem otherwise.
Status checkDecoderWhatIfs(const DecoderConfig& c, const std::optional<AttentionMask>& mask, bool skipQkNorm);

// attention.h's pass with `mask` (the model's own, DecoderConfig::ownMask,
// or a what-if's) and `divisor`. The whole pass, the head computed again and
// the key/value cache's prefill all call it.
Status attendDecoderHead(const AttentionMask& mask, double divisor, AttentionResult* r);

// The pass over a family's steps, with every check, kept matrix, hook and
// cancel check the families share: what DecoderModel::run and runGpt2 call.
Expected<DecoderResult> runDecoderPass(const DecoderConfig& config, DecoderSteps& steps,
                                       const std::vector<int>& tokenIds, const DecoderRunOptions& options);

// Head (layer, head) of `result` again through `steps` (DecoderModel::head);
// an error for a layer or head out of range or a result of another shape.
Expected<AttentionResult> recomputeHead(const DecoderConfig& config, const DecoderSteps& steps,
                                        const DecoderResult& result, int layer, int head);

// The largest `k` of `logits`, largest first, with softmax(logits /
// temperature) probabilities (double, over every entry).
std::vector<TopToken> topTokens(const RowVector& logits, int k, double temperature);

// Head ablation for the head lab: a hook that sets the context of each of
// `heads` to 0 (Zero) or each of its columns to that column's mean over the
// n positions (Mean; note that every position then reads the later
// positions' contexts too, the last one excepted), every other head left
// as it is.
struct HeadIndex {
    int layer = 0;
    int head = 0;
};
enum class HeadAblation { Zero, Mean };
HeadOutputHook ablationHook(std::vector<HeadIndex> heads, HeadAblation kind);
// Each of `heads` a head of the model (layer and head from 0); the error
// names the first that is not.
Status checkAblatedHeads(const DecoderConfig& config, const std::vector<HeadIndex>& heads);

}  // namespace attn
