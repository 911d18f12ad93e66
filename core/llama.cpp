// SPDX-License-Identifier: GPL-3.0-or-later
#include "llama.h"

#include "decoder_steps.h"
#include "gpt2_kernels.h"
#include "kernels.h"
#include "parallel.h"
#include "rotary_head.h"
#include "tensor_check.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace attn {
namespace {

// Output features per block of a product, whatever the thread count, so
// that Eigen's numbers (which may depend on the block) do not depend on it.
constexpr int kFeatureBlock = 256;

Status checkTensor(const std::string& name, const FloatTensor& t, int rows, int cols)
{
    return attn::checkTensor("Llama", name, t, rows, cols);
}

// out(:, r0 .. r0 + count - 1) = in W(r0 .. r0 + count - 1, :)^T, W (out, in)
// row-major: each entry as gpt2_kernels.h's transposed product gives it
// (independent of the block), or Eigen's over the converted rows.
void linearBlock(const Matrix& in, const FloatTensor& W, int r0, int count, double* out, Eigen::Index ldo)
{
    if (kernels::available()) {
        const std::size_t first = std::size_t(r0) * std::size_t(W.cols);
        if (W.bf16)
            kernels::productBf16WeightsTransposed(in.data(), in.cols(), int(in.rows()), int(in.cols()),
                                                  W.bf16 + first, W.cols, count, out, ldo);
        else
            kernels::productFloatWeightsTransposed(in.data(), in.cols(), int(in.rows()), int(in.cols()),
                                                   W.data + first, W.cols, count, out, ldo);
        return;
    }
    const Matrix rows = W.rowsAsDouble(r0, count);
    Eigen::Map<Matrix, 0, Eigen::OuterStride<>> o(out, in.rows(), count, Eigen::OuterStride<>(ldo));
    o.noalias() = in * rows.transpose();
}

// out (rows of in, W.rows) = in W^T (+ bias), in blocks of `block` output
// features shared among the threads.
void linear(const Matrix& in, const FloatTensor& W, const FloatTensor& bias, Matrix* out, int threads,
            int block = kFeatureBlock)
{
    const int features = W.rows;
    out->resize(in.rows(), features);
    const int blocks = (features + block - 1) / block;
    forEachIndex(blocks, threads, [&](int k) {
        const int r0 = k * block;
        const int count = std::min(block, features - r0);
        linearBlock(in, W, r0, count, out->data() + r0, features);
        if (!bias.empty())
            out->middleCols(r0, count).rowwise() += bias.map().middleCols(r0, count).row(0).cast<double>();
    });
}

class LlamaSteps final : public DecoderSteps {
public:
    LlamaSteps(const LlamaWeights& weights, const std::vector<double>& inverseFrequencies, int threads)
        : w_(weights), c_(weights.config), inv_(inverseFrequencies), threads_(std::max(threads, 1))
    {
    }

    Matrix embed(const std::vector<int>& tokenIds) override
    {
        const int n = int(tokenIds.size());
        Matrix h(n, c_.width);
        for (int i = 0; i < n; ++i)
            h.row(i) = w_.embed.rowsAsDouble(tokenIds[std::size_t(i)], 1);
        return h;
    }

    Matrix beginLayer(int layer, const Matrix& h) override
    {
        const LlamaBlock& b = w_.blocks[std::size_t(layer)];
        Matrix a = rmsNorm(h, b.inputNorm, c_.rmsNormEps);
        const int hd = c_.headDim;
        // Blocks of one head: a head's projection alone (headInputsFrom) is
        // then the pass's, with Eigen's products too.
        linear(a, b.q, b.qBias, &q_, threads_, hd);
        linear(a, b.k, b.kBias, &k_, threads_, hd);
        linear(a, b.v, b.vBias, &v_, threads_, hd);
        forEachIndex(c_.heads, threads_, [&](int i) { prepare(b.qNorm, &q_, i); });
        forEachIndex(c_.kvHeads, threads_, [&](int i) { prepare(b.kNorm, &k_, i); });
        return a;
    }

    void headInputs(int /*layer*/, int head, AttentionResult* r) const override
    {
        const int hd = c_.headDim;
        const Eigen::Index kv = Eigen::Index(kvHeadOf(head)) * hd;
        r->Q = q_.middleCols(Eigen::Index(head) * hd, hd);
        r->K = k_.middleCols(kv, hd);
        r->V = v_.middleCols(kv, hd);
    }

    void headInputsFrom(int layer, int head, const Matrix& a, AttentionResult* r) const override
    {
        headInputsBeforeRotation(layer, head, a, r);
        applyRope(inv_, &r->Q);
        applyRope(inv_, &r->K);
    }

    void headInputsBeforeRotation(int layer, int head, const Matrix& a, AttentionResult* r) const override
    {
        const LlamaBlock& b = w_.blocks[std::size_t(layer)];
        const int kv = kvHeadOf(head);
        headProjection(a, b.q, b.qBias, head, &r->Q);
        headProjection(a, b.k, b.kBias, kv, &r->K);
        headProjection(a, b.v, b.vBias, kv, &r->V);
        if (normed()) {
            r->Q = rmsNorm(r->Q, b.qNorm, c_.rmsNormEps);
            r->K = rmsNorm(r->K, b.kNorm, c_.rmsNormEps);
        }
    }

    void endLayer(int layer, const Matrix& contexts, Matrix* h) override
    {
        const LlamaBlock& b = w_.blocks[std::size_t(layer)];
        linear(contexts, b.o, b.oBias, &projected_, threads_);
        *h += projected_;
        const Matrix m = rmsNorm(*h, b.postNorm, c_.rmsNormEps);
        const FloatTensor none;
        linear(m, b.gate, none, &gate_, threads_);
        linear(m, b.up, none, &up_, threads_);
        gate_ = gate_.unaryExpr([](double x) { return silu(x); }).cwiseProduct(up_);
        linear(gate_, b.down, none, &projected_, threads_);
        *h += projected_;
    }

    Matrix finalNorm(const Matrix& h) const override { return rmsNorm(h, w_.norm, c_.rmsNormEps); }

    Matrix unembed(const Matrix& hidden) const override
    {
        return unembedFloatRows(hidden, w_.lmHead, threads_);
    }

private:
    // q_norm and k_norm apply: the model has them and the what-if keeps them.
    bool normed() const { return c_.qkNorm && !skipQkNorm_; }

    // DecoderConfig::kvHeadOf.
    int kvHeadOf(int head) const { return head / (c_.heads / c_.kvHeads); }

    // Head `head`'s block of x (n, heads hd): its norm (Qwen3) and rotation.
    void prepare(const FloatTensor& norm, Matrix* x, int head) const
    {
        const int hd = c_.headDim;
        Matrix block = x->middleCols(Eigen::Index(head) * hd, hd);
        if (normed())
            block = rmsNorm(block, norm, c_.rmsNormEps);
        applyRope(inv_, &block, firstPosition_);
        x->middleCols(Eigen::Index(head) * hd, hd) = block;
    }

    // The head's hd features of a W^T (+ b) alone, by the pass's product.
    void headProjection(const Matrix& a, const FloatTensor& W, const FloatTensor& bias, int head,
                        Matrix* out) const
    {
        const int hd = c_.headDim;
        out->resize(a.rows(), hd);
        linearBlock(a, W, head * hd, hd, out->data(), hd);
        if (!bias.empty())
            out->rowwise() += bias.map().middleCols(Eigen::Index(head) * hd, hd).row(0).cast<double>();
    }

    const LlamaWeights& w_;
    const LlamaConfig& c_;
    const std::vector<double>& inv_;
    const int threads_;
    Matrix q_, k_, v_;  // the layer's projections, normed and rotated
    Matrix projected_;  // (n, E)
    Matrix gate_, up_;  // (n, I)
};

}  // namespace

Status validateLlamaWeights(const LlamaWeights& w)
{
    const LlamaConfig& c = w.config;
    if (c.layers < 1 || c.heads < 1 || c.kvHeads < 1 || c.headDim < 1 || c.width < 1 || c.intermediate < 1
        || c.vocabSize < 1 || c.maxPositions < 1)
        return Error{
            "Llama config: layers, heads, key/value heads, head_dim, hidden_size, intermediate_size, "
            "vocab_size and max_position_embeddings must be positive."};
    if (c.heads % c.kvHeads != 0)
        return Error{"Llama config: num_attention_heads " + std::to_string(c.heads)
                     + " is not a multiple of num_key_value_heads " + std::to_string(c.kvHeads) + "."};
    if (c.headDim % 2 != 0)
        return Error{"Llama config: head_dim " + std::to_string(c.headDim)
                     + " is odd; RoPE rotates pairs of dimensions."};
    if (!std::isfinite(c.rmsNormEps) || c.rmsNormEps <= 0)
        return Error{"Llama config: rms_norm_eps must be a finite number above 0."};
    if (!std::isfinite(c.ropeTheta) || c.ropeTheta <= 1)
        return Error{"Llama config: rope_theta must be a finite number above 1."};
    if (c.slidingWindow < 0)
        return Error{"Llama config: sliding_window must be 0 (none) or positive."};
    const Llama3RopeScaling& s = c.ropeScaling;
    if (s.enabled
        && (!std::isfinite(s.factor) || s.factor <= 0 || !std::isfinite(s.lowFreqFactor)
            || !std::isfinite(s.highFreqFactor) || s.lowFreqFactor <= 0 || s.highFreqFactor <= s.lowFreqFactor
            || s.originalMaxPositions < 1))
        return Error{
            "Llama config: rope_scaling llama3 needs factor > 0, 0 < low_freq_factor < high_freq_factor "
            "and original_max_position_embeddings >= 1."};
    if (int(w.blocks.size()) != c.layers)
        return Error{"Llama weights: " + std::to_string(w.blocks.size()) + " blocks for "
                     + std::to_string(c.layers) + " layers."};
    const int e = c.width, qw = c.heads * c.headDim, kw = c.kvHeads * c.headDim, hd = c.headDim;
    if (Status s1 = checkTensor("model.embed_tokens.weight", w.embed, c.vocabSize, e); !s1)
        return s1;
    if (Status s1 = checkTensor("model.norm.weight", w.norm, 1, e); !s1)
        return s1;
    if (Status s1 = checkTensor("lm_head.weight", w.lmHead, c.vocabSize, e); !s1)
        return s1;
    for (int l = 0; l < c.layers; ++l) {
        const LlamaBlock& b = w.blocks[std::size_t(l)];
        const std::string p = "model.layers." + std::to_string(l) + ".";
        struct Part {
            const char* name;
            const FloatTensor* t;
            int rows, cols;
            bool wanted;
        };
        const Part parts[] = {{"input_layernorm.weight", &b.inputNorm, 1, e, true},
                              {"self_attn.q_proj.weight", &b.q, qw, e, true},
                              {"self_attn.k_proj.weight", &b.k, kw, e, true},
                              {"self_attn.v_proj.weight", &b.v, kw, e, true},
                              {"self_attn.q_proj.bias", &b.qBias, 1, qw, c.qkvBias},
                              {"self_attn.k_proj.bias", &b.kBias, 1, kw, c.qkvBias},
                              {"self_attn.v_proj.bias", &b.vBias, 1, kw, c.qkvBias},
                              {"self_attn.o_proj.weight", &b.o, e, qw, true},
                              {"self_attn.o_proj.bias", &b.oBias, 1, e, c.oBias},
                              {"self_attn.q_norm.weight", &b.qNorm, 1, hd, c.qkNorm},
                              {"self_attn.k_norm.weight", &b.kNorm, 1, hd, c.qkNorm},
                              {"post_attention_layernorm.weight", &b.postNorm, 1, e, true},
                              {"mlp.gate_proj.weight", &b.gate, c.intermediate, e, true},
                              {"mlp.up_proj.weight", &b.up, c.intermediate, e, true},
                              {"mlp.down_proj.weight", &b.down, e, c.intermediate, true}};
        for (const Part& part : parts) {
            if (!part.wanted) {
                if (!part.t->empty())
                    return Error{"Llama weights: the tensor " + p + part.name
                                 + " is given but the config has none."};
                continue;
            }
            if (Status s1 = checkTensor(p + part.name, *part.t, part.rows, part.cols); !s1)
                return s1;
        }
    }
    return okStatus();
}

std::vector<double> llamaInverseFrequencies(const LlamaConfig& c)
{
    const int half = c.headDim / 2;
    std::vector<double> inv(std::size_t(std::max(half, 0)));
    for (int j = 0; j < half; ++j)
        inv[std::size_t(j)] = 1.0 / std::pow(c.ropeTheta, double(2 * j) / double(c.headDim));
    const Llama3RopeScaling& s = c.ropeScaling;
    if (!s.enabled)
        return inv;
    // transformers' _compute_llama3_parameters.
    const double oldContext = double(s.originalMaxPositions);
    const double lowFreqWavelen = oldContext / s.lowFreqFactor;
    const double highFreqWavelen = oldContext / s.highFreqFactor;
    constexpr double kPi = 3.14159265358979323846;
    for (double& f : inv) {
        const double wavelen = 2.0 * kPi / f;
        if (wavelen > lowFreqWavelen) {
            f /= s.factor;
        } else if (wavelen >= highFreqWavelen) {
            const double smooth =
                (oldContext / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
            f = (1.0 - smooth) * f / s.factor + smooth * f;
        }
    }
    return inv;
}

void applyRope(const std::vector<double>& inv, Matrix* x, int firstPosition)
{
    const Eigen::Index half = Eigen::Index(inv.size());
    for (Eigen::Index i = 0; i < x->rows(); ++i) {
        for (Eigen::Index j = 0; j < half; ++j) {
            const double angle = ropeAngle(inv, firstPosition + int(i), int(j));
            const double c = std::cos(angle), s = std::sin(angle);
            const double a = (*x)(i, j), b = (*x)(i, j + half);
            (*x)(i, j) = a * c - b * s;
            (*x)(i, j + half) = b * c + a * s;
        }
    }
}

Matrix rmsNorm(const Matrix& x, const FloatTensor& weight, double eps)
{
    const Eigen::Index e = x.cols();
    const FloatTensor::Map w = weight.map();
    Matrix out(x.rows(), e);
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const double inv = 1.0 / std::sqrt(x.row(i).squaredNorm() / double(e) + eps);
        for (Eigen::Index j = 0; j < e; ++j)
            out(i, j) = x(i, j) * inv * double(w(0, j));
    }
    return out;
}

double silu(double x)
{
    return x / (1.0 + std::exp(-x));
}

Expected<std::unique_ptr<LlamaDecoderModel>> LlamaDecoderModel::create(LlamaWeights weights)
{
    if (Status s = validateLlamaWeights(weights); !s)
        return s.error();
    return std::unique_ptr<LlamaDecoderModel>(new LlamaDecoderModel(std::move(weights)));
}

LlamaDecoderModel::LlamaDecoderModel(LlamaWeights weights)
    : weights_(std::move(weights)),
      config_(weights_.config),
      inverseFrequencies_(llamaInverseFrequencies(weights_.config))
{
}

std::unique_ptr<DecoderSteps> LlamaDecoderModel::steps(int threads) const
{
    return std::make_unique<LlamaSteps>(weights_, inverseFrequencies_, threads);
}

}  // namespace attn
