// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// GPT-2's forward pass (Radford et al. 2019; Hugging Face's GPT2LMHeadModel)
// over the weights of gpt2_weights.h, with every head's attention kept for
// display (tests/data/gpt2/*/reference.json `forward` states the same):
//
//   h = wte[ids] + wpe[0..n-1]                                     (n, E)
//   per block:  a = LN1(h);  qkv = a c_attn.W + c_attn.b           (n, 3E)
//     head i: q, k, v = columns i*hd .. (i+1)*hd-1 of qkv's three E-wide parts
//     S = q k^T;  A = softmax(S / divisor(layer, i), causal);  ctx_i = A v
//     h += [ctx_1 | ... | ctx_H] c_proj.W + c_proj.b
//     h += gelu_new(LN2(h) c_fc.W + c_fc.b) mlp.c_proj.W + mlp.c_proj.b
//   h = LN_f(h);  logits = h lm_head^T                             (n, vocab)
//   LN(x) = (x - mean) / sqrt(var + eps) * w + b   (biased variance)
//   gelu_new(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//
// Precision: the weights are float32 and are read where they lie (mapped,
// never copied); every activation is double and every sum is taken in
// double. Product by product:
//   a c_attn.W, ctx c_proj.W, LN2(h) c_fc.W, gelu mlp.c_proj.W: double
//     activations times each float32 weight converted to double (exact),
//     one fused multiply-add chain per entry in order over the inner
//     dimension (gpt2_kernels.h, blocks of 256 x 64 weights converted into
//     a per-thread buffer; Eigen's double product over converted column
//     blocks where the processor lacks AVX2);
//   q k^T and A v: attention.h's double products (kernels.h);
//   logits h lm_head^T: double, four chains per entry (gpt2_kernels.h);
//   LayerNorm, softmax, gelu_new, biases and residuals: double.
// The pass is then a float64 computation of the float32 checkpoint, which
// is what the reference files hold: weights within 4e-15, scores within
// 3e-12 relative (tst_gpt2reference), where issue 17 asks 1e-5 and 1e-4.
// Eigen's float32 products instead left up to 3e-6 on random tiny models
// (a margin of three on the weights) and ran slower here than the kernels.

#include "attention.h"
#include "expected.h"
#include "gpt2_weights.h"
#include "matrix.h"

#include <Eigen/Core>

#include <atomic>
#include <vector>

namespace attn {

// The score divisor of every (layer, head): the what-if controls (scale
// mode for every layer, one layer or one head) are edits of this table.
struct Gpt2Divisors {
    int nLayer = 0;
    int nHead = 0;
    std::vector<double> values;  // layer-major: values[layer * nHead + head]

    // sqrt(head_dim) everywhere, as GPT-2 was trained.
    static Gpt2Divisors standard(const Gpt2Config& config);
    double at(int layer, int head) const { return values[std::size_t(layer) * nHead + head]; }
    bool empty() const { return values.empty(); }

    // Sets the divisor `mode` names (sqrt(head_dim), 1, or customDivisor) on
    // every layer (layer = -1) or one, every head (head = -1) or one. An
    // error for a layer or head out of range or a custom divisor outside
    // [kMinCustomDivisor, kMaxCustomDivisor]; the table is unchanged then.
    Status set(ScaleMode mode, double customDivisor, int headDim, int layer = -1, int head = -1);
};

struct Gpt2Options {
    Gpt2Divisors divisors;     // empty: Gpt2Divisors::standard
    double temperature = 1.0;  // next-token probabilities = softmax(logits / temperature)
    int topK = 10;             // entries in Gpt2Result::top
    // Keep every head's AttentionResult (Q, K, V, raw scores, context and
    // the softmax's row scales; scaled and weights are read from them bit
    // for bit). Cost per head: 8 n^2 bytes of scores and 32 n hd bytes of
    // Q, K, V, context; GPT-2 small (144 heads, hd 64) at n = 32 about
    // 10 MiB, at n = 1024 about 1.4 GiB. Without it only the per-layer
    // LayerNorm outputs stay (8 n E bytes a layer, 72 MiB at n = 1024 for
    // GPT-2 small) and gpt2Head recomputes a head on demand.
    bool keepMaps = true;
    // Every position's logits (8 n vocab bytes: 411 MB at n = 1024 for
    // GPT-2's 50257), not only the last one's.
    bool allLogits = false;
    // Each block's output h (8 n E bytes a layer).
    bool keepHidden = false;
    // The heads of a layer and the products' column blocks are shared among
    // this many threads (the calling one included); the numbers do not
    // depend on it.
    int threads = 1;
    // A stop flag another thread may set (a newer request superseding this
    // pass): checked before each layer, each head and the logits, the pass
    // then ends with the error kGpt2Cancelled. Null, or never set: the pass
    // runs to its end, its numbers untouched by the checks.
    const std::atomic<bool>* cancel = nullptr;
};

// The message of a pass stopped by Gpt2Options::cancel.
inline constexpr char kGpt2Cancelled[] = "cancelled";

// Largest and smallest temperature accepted (the custom divisor's range).
inline constexpr double kMinTemperature = kMinCustomDivisor;
inline constexpr double kMaxTemperature = kMaxCustomDivisor;

struct Gpt2TopToken {
    int id = 0;
    double logit = 0.0;
    double probability = 0.0;  // softmax(logits / temperature) over the whole vocabulary
};

struct Gpt2Layer {
    Matrix ln1;                          // (n, E) LN1(h), exactly what c_attn multiplied
    std::vector<AttentionResult> heads;  // n_head of them with keepMaps, else empty
    Matrix hidden;                       // (n, E) h after the block, with keepHidden
};

struct Gpt2Result {
    std::vector<int> tokenIds;
    Gpt2Divisors divisors;  // the table the pass used
    double temperature = 1.0;
    std::vector<Gpt2Layer> layers;  // n_layer
    Matrix finalHidden;             // (n, E) LN_f(h)
    RowVector lastLogits;           // (vocab) the last position's logits
    Matrix logits;                  // (n, vocab) with allLogits, else empty
    std::vector<Gpt2TopToken> top;  // the topK largest logits, largest first (ties: smaller id)

    int tokens() const { return int(tokenIds.size()); }
};

// Shapes of every tensor against the config (E divisible by n_head, n_layer
// blocks, no missing tensor); the error names the tensor and both shapes.
Status validateGpt2Weights(const Gpt2Weights& weights);

// The pass. Errors: invalid weights, no tokens, more than n_positions, an
// id outside the vocabulary, a divisor table of another shape or with a
// divisor out of range, a temperature out of range, topK < 1.
Expected<Gpt2Result> runGpt2(const Gpt2Weights& weights, const std::vector<int>& tokenIds,
                             const Gpt2Options& options = {});

// Head `head` of layer `layer` computed again from result.layers[layer].ln1
// with the same products, bias additions and attention pass: bit for bit
// the AttentionResult the pass kept (or would have kept), as long as the
// product path (kernels::available()) has not changed in between.
Expected<AttentionResult> gpt2Head(const Gpt2Weights& weights, const Gpt2Result& result, int layer, int head);

// The largest `k` of `logits`, largest first, with softmax(logits /
// temperature) probabilities (double, over every entry).
std::vector<Gpt2TopToken> topTokens(const RowVector& logits, int k, double temperature);

// The pieces, exposed for tests and the views.
// LN(x) row by row, (x - mean) / sqrt(biased var + eps) * w + b.
Matrix gpt2LayerNorm(const Matrix& x, const FloatTensor& weight, const FloatTensor& bias, double eps);
double geluNew(double x);

}  // namespace attn
