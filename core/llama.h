// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Llama family's forward pass (Hugging Face's LlamaForCausalLM, and
// Qwen2, Qwen3 and Mistral, which differ from it in the options of
// LlamaConfig) over the weights of llama_weights.h, as a DecoderModel
// (decoder_model.h): the shared pass runs the steps below.
//
//   h = embed[ids]                                                 (n, E)
//   per block:  a = RMSNorm(h, input_layernorm)
//     q = a W_q^T (+ b_q)  (n, H hd);  k, v = a W_k^T, a W_v^T (+ b)  (n, KV hd)
//     head i reads key/value head i / (H / KV) (grouped-query attention)
//     Qwen3: q and k RMSNorm'd over each head's hd (q_norm, k_norm)
//     q, k rotated by position (RoPE, rotate_half):
//       for j < hd/2, angle = pos inv_freq[j], inv_freq[j] = theta^(-2j/hd)
//       x'[j] = x[j] cos - x[j + hd/2] sin;  x'[j + hd/2] = x[j + hd/2] cos + x[j] sin
//       (rope_scaling llama3 rescales inv_freq: llamaInverseFrequencies)
//     S = q_rot k_rot^T;  A = softmax(S / divisor(layer, i), causal [, window]);  ctx_i = A v
//     h += [ctx_1 | ... | ctx_H] W_o^T (+ b_o)
//     h += (silu(m W_gate^T) * (m W_up^T)) W_down^T,  m = RMSNorm(h, post_attention_layernorm)
//   logits = RMSNorm(h, norm) lm_head^T
//   RMSNorm(x, w) = x / sqrt(mean(x^2) + eps) * w;  silu(x) = x / (1 + e^-x)
//
// Precision as GPT-2's (gpt2.h): float32 weights converted exactly as they
// are used, double activations and sums (gpt2_kernels.h's transposed
// product for every nn.Linear), so the pass is a float64 computation of
// the stored checkpoint, as the reference files (../shared/reference/llama)
// are.

#include "attention.h"
#include "decoder_model.h"
#include "expected.h"
#include "llama_weights.h"
#include "matrix.h"

#include <memory>
#include <vector>

namespace attn {

// The config's numbers and every tensor's shape, naming the tensor (as
// Hugging Face does: model.layers.3.self_attn.q_proj.weight) and both
// shapes; a missing tensor is named.
Status validateLlamaWeights(const LlamaWeights& weights);

// inv_freq of RoPE for head_dim `headDim` (headDim / 2 of them), with
// llama3's rescaling when it is enabled.
std::vector<double> llamaInverseFrequencies(const LlamaConfig& config);

// x (n, hd) rotated in place as position p = firstPosition + row.
void applyRope(const std::vector<double>& inverseFrequencies, Matrix* x, int firstPosition = 0);

// RMSNorm row by row over x's columns with weight w (1, cols).
Matrix rmsNorm(const Matrix& x, const FloatTensor& weight, double eps);

double silu(double x);

class LlamaDecoderModel final : public DecoderModel {
public:
    // An error from validateLlamaWeights, else the model; it keeps the
    // weights (and their storage) alive.
    static Expected<std::unique_ptr<LlamaDecoderModel>> create(LlamaWeights weights);

    const DecoderConfig& config() const override { return config_; }
    const LlamaWeights& weights() const { return weights_; }
    const std::vector<double>& rotaryFrequencies() const override { return inverseFrequencies_; }

protected:
    std::unique_ptr<DecoderSteps> steps(int threads) const override;

private:
    explicit LlamaDecoderModel(LlamaWeights weights);

    LlamaWeights weights_;
    DecoderConfig config_;
    std::vector<double> inverseFrequencies_;
};

}  // namespace attn
