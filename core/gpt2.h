// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// GPT-2's forward pass (Radford et al. 2019; Hugging Face's GPT2LMHeadModel)
// over the weights of gpt2_weights.h, with every head's attention kept for
// display (tests/data/gpt2/*/reference.json `forward` states the same), as
// the first family of decoder_model.h (Gpt2DecoderModel; runGpt2 is the
// same pass over weights not yet checked):
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
#include "decoder_model.h"
#include "expected.h"
#include "gpt2_weights.h"
#include "matrix.h"

#include <memory>
#include <vector>

namespace attn {

// GPT-2's names for the types of decoder_model.h, which were GPT-2's alone
// before the interface: the divisor table (Gpt2Divisors::standard takes a
// Gpt2Config, which converts), the options, the result and its parts.
using Gpt2Divisors = HeadDivisors;
using Gpt2Options = DecoderRunOptions;
using Gpt2TopToken = TopToken;
using Gpt2Layer = DecoderLayer;  // attentionInput is LN1(h)
using Gpt2Result = DecoderResult;

// The message of a pass stopped by Gpt2Options::cancel.
inline constexpr const char* kGpt2Cancelled = kDecoderCancelled;

// Shapes of every tensor against the config (E divisible by n_head, n_layer
// blocks, no missing tensor); the error names the tensor and both shapes.
Status validateGpt2Weights(const Gpt2Weights& weights);

// The pass (runDecoderPass over GPT-2's steps, as Gpt2DecoderModel::run).
// Errors: invalid weights, then those of DecoderModel::run.
Expected<Gpt2Result> runGpt2(const Gpt2Weights& weights, const std::vector<int>& tokenIds,
                             const Gpt2Options& options = {});

// Head `head` of layer `layer` computed again from
// result.layers[layer].attentionInput with the same products, bias
// additions and attention pass: bit for bit the AttentionResult the pass
// kept (or would have kept), as long as the product path
// (kernels::available()) has not changed in between.
Expected<AttentionResult> gpt2Head(const Gpt2Weights& weights, const Gpt2Result& result, int layer, int head);

// GPT-2 as a DecoderModel: its weights, checked once, and the pass above.
class Gpt2DecoderModel final : public DecoderModel {
public:
    // An error from validateGpt2Weights, else the model; it keeps the
    // weights (and their storage) alive.
    static Expected<std::unique_ptr<Gpt2DecoderModel>> create(Gpt2Weights weights);

    const DecoderConfig& config() const override { return config_; }
    const Gpt2Weights& weights() const { return weights_; }

protected:
    std::unique_ptr<DecoderSteps> steps(int threads) const override;

private:
    explicit Gpt2DecoderModel(Gpt2Weights weights);

    Gpt2Weights weights_;
    DecoderConfig config_;
};

// The pieces, exposed for tests and the views.
// LN(x) row by row, (x - mean) / sqrt(biased var + eps) * w + b.
Matrix gpt2LayerNorm(const Matrix& x, const FloatTensor& weight, const FloatTensor& bias, double eps);
double geluNew(double x);

}  // namespace attn
