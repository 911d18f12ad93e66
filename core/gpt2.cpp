// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2.h"

#include "decoder_steps.h"
#include "gpt2_kernels.h"
#include "kernels.h"
#include "parallel.h"
#include "tensor_check.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace attn {
namespace {

// Eigen's products take the columns in blocks of this many, whatever the
// thread count, so that the numbers do not depend on it.
constexpr int kColumnBlock = 256;

Status checkTensor(const std::string& name, const FloatTensor& t, int rows, int cols)
{
    return attn::checkTensor("GPT-2", name, t, rows, cols);
}

// out (rows of in, width) = in W(:, c0 .. c0 + width - 1), leading dimension
// ldo; `packed` is `in` packed for the kernels (when kernels::available()),
// `ahead` the weights multiplied next (a prefetch hint).
void productBlock(const Matrix& in, const kernels::PackedRows& packed, const FloatTensor& W, int c0,
                  int width, double* out, Eigen::Index ldo, const FloatTensor* ahead = nullptr)
{
    if (kernels::available()) {
        kernels::WeightsAhead next;
        if (ahead)
            next = {ahead->data, ahead->cols, ahead->rows, ahead->cols};
        kernels::productFloatWeights(packed, W.data + c0, W.cols, width, out, ldo, next);
        return;
    }
    const Matrix block = W.map().middleCols(c0, width).cast<double>();
    Eigen::Map<Matrix, 0, Eigen::OuterStride<>> o(out, in.rows(), width, Eigen::OuterStride<>(ldo));
    o.noalias() = in * block;
}

kernels::PackedRows packedFor(const Matrix& in)
{
    kernels::PackedRows packed;
    if (kernels::available())
        kernels::packRows(in.data(), in.cols(), int(in.rows()), int(in.cols()), &packed);
    return packed;
}

// out (in.rows(), W.cols()) = in W + bias, in column blocks shared among the
// threads. The kernels' entries do not depend on the block
// (gpt2_kernels.h): one thread takes W whole (its rows read in runs of a
// row, `ahead` prefetched at the end), more take a few blocks each.
// Eigen's may depend on it: blocks of `eigenWidth` whatever the threads.
void affine(const Matrix& in, const FloatTensor& W, const FloatTensor& bias, Matrix* out, int threads,
            const FloatTensor* ahead, int eigenWidth = kColumnBlock)
{
    const FloatTensor::Map b = bias.map();
    const int cols = W.cols;
    out->resize(in.rows(), cols);
    const kernels::PackedRows packed = packedFor(in);
    const int blockWidth = !kernels::available() ? eigenWidth
                           : threads == 1        ? cols
                                                 : std::max(64, (cols / (2 * threads) + 63) / 64 * 64);
    const int blocks = (cols + blockWidth - 1) / blockWidth;
    forEachIndex(blocks, threads, [&](int k) {
        const int c0 = k * blockWidth;
        const int width = std::min(blockWidth, cols - c0);
        productBlock(in, packed, W, c0, width, out->data() + c0, cols, blocks == 1 ? ahead : nullptr);
        out->middleCols(c0, width).rowwise() += b.middleCols(c0, width).row(0).cast<double>();
    });
}

// qkv (n, 3E) = ln1 c_attn.W + c_attn.b. Each head's q, k and v are column
// blocks of head_dim, and gpt2Head computes a head's blocks alone, which
// is the pass's with the kernels whatever the blocks; Eigen takes each
// head's blocks.
void attentionInputs(const Gpt2Block& block, const Matrix& ln1, int headDim, Matrix* qkv, int threads)
{
    affine(ln1, block.attnWeight, block.attnBias, qkv, threads, &block.attnProjWeight, headDim);
}

// GPT-2's numbers for runDecoderPass (decoder_steps.h), with the pass's
// scratch: the layer's qkv, the MLP's hidden layer and a projection.
class Gpt2Steps final : public DecoderSteps {
public:
    Gpt2Steps(const Gpt2Weights& weights, int threads) : w_(weights), threads_(std::max(threads, 1)) {}

    Matrix embed(const std::vector<int>& tokenIds) override
    {
        const int n = int(tokenIds.size());
        const FloatTensor::Map wte = w_.wte.map();
        const FloatTensor::Map wpe = w_.wpe.map();
        Matrix h(n, w_.config.nEmbd);
        for (int i = 0; i < n; ++i)
            h.row(i) =
                wte.row(tokenIds[std::size_t(i)]).cast<double>() + wpe.row(firstPosition_ + i).cast<double>();
        return h;
    }

    Matrix beginLayer(int layer, const Matrix& h) override
    {
        const Gpt2Block& b = w_.blocks[std::size_t(layer)];
        Matrix ln1 = gpt2LayerNorm(h, b.ln1Weight, b.ln1Bias, w_.config.layerNormEpsilon);
        attentionInputs(b, ln1, w_.config.headDim(), &qkv_, threads_);
        return ln1;
    }

    void headInputs(int /*layer*/, int head, AttentionResult* r) const override { headBlocks(qkv_, head, r); }

    void headInputsFrom(int layer, int head, const Matrix& ln1, AttentionResult* r) const override
    {
        // The head's q, k and v blocks of c_attn alone, by the pass's products.
        const Gpt2Block& b = w_.blocks[std::size_t(layer)];
        const int e = w_.config.nEmbd, hd = w_.config.headDim();
        const kernels::PackedRows packed = packedFor(ln1);
        const FloatTensor::Map bias = b.attnBias.map();
        Matrix qkv = Matrix::Zero(ln1.rows(), 3 * e);
        for (int p = 0; p < 3; ++p) {
            const int c0 = p * e + head * hd;
            productBlock(ln1, packed, b.attnWeight, c0, hd, qkv.data() + c0, qkv.cols());
            qkv.middleCols(c0, hd).rowwise() += bias.middleCols(c0, hd).row(0).cast<double>();
        }
        headBlocks(qkv, head, r);
    }

    void endLayer(int layer, const Matrix& contexts, Matrix* h) override
    {
        const Gpt2Block& b = w_.blocks[std::size_t(layer)];
        const double eps = w_.config.layerNormEpsilon;
        affine(contexts, b.attnProjWeight, b.attnProjBias, &projected_, threads_, &b.fcWeight);
        *h += projected_;
        affine(gpt2LayerNorm(*h, b.ln2Weight, b.ln2Bias, eps), b.fcWeight, b.fcBias, &hidden4_, threads_,
               &b.mlpProjWeight);
        hidden4_ = hidden4_.unaryExpr([](double x) { return geluNew(x); });
        affine(hidden4_, b.mlpProjWeight, b.mlpProjBias, &projected_, threads_,
               layer + 1 < w_.config.nLayer ? &w_.blocks[std::size_t(layer) + 1].attnWeight : nullptr);
        *h += projected_;
    }

    Matrix finalNorm(const Matrix& h) const override
    {
        return gpt2LayerNorm(h, w_.lnFWeight, w_.lnFBias, w_.config.layerNormEpsilon);
    }

    // logits = h lm_head^T: lm_head (vocab, E) row-major, its rows read in place.
    Matrix unembed(const Matrix& hidden) const override
    {
        return unembedFloatRows(hidden, w_.lmHead, threads_);
    }

private:
    // Head `head`'s q, k, v: column blocks of qkv's three E-wide parts.
    void headBlocks(const Matrix& qkv, int head, AttentionResult* r) const
    {
        const int e = w_.config.nEmbd, hd = w_.config.headDim();
        Matrix* targets[3] = {&r->Q, &r->K, &r->V};
        for (int p = 0; p < 3; ++p)
            *targets[p] = qkv.middleCols(Eigen::Index(p) * e + Eigen::Index(head) * hd, hd);
    }

    const Gpt2Weights& w_;
    const int threads_;
    Matrix qkv_;        // (n, 3E), c_attn's
    Matrix hidden4_;    // (n, 4E), the MLP's
    Matrix projected_;  // (n, E)
};

}  // namespace

Status validateGpt2Weights(const Gpt2Weights& w)
{
    const Gpt2Config& c = w.config;
    if (c.nLayer < 1 || c.nHead < 1 || c.nEmbd < 1 || c.nPositions < 1 || c.vocabSize < 1)
        return Error{"GPT-2 config: n_layer, n_head, n_embd, n_positions and vocab_size must be positive."};
    if (c.nEmbd % c.nHead != 0)
        return Error{"GPT-2 config: n_embd " + std::to_string(c.nEmbd) + " is not divisible by n_head "
                     + std::to_string(c.nHead) + "."};
    if (!std::isfinite(c.layerNormEpsilon) || c.layerNormEpsilon < 0)
        return Error{"GPT-2 config: layer_norm_epsilon must be a finite number >= 0."};
    if (int(w.blocks.size()) != c.nLayer)
        return Error{"GPT-2 weights: " + std::to_string(w.blocks.size()) + " blocks for n_layer "
                     + std::to_string(c.nLayer) + "."};
    const int e = c.nEmbd;
    const std::pair<const char*, const FloatTensor*> top[] = {{"wte.weight", &w.wte},
                                                              {"wpe.weight", &w.wpe},
                                                              {"ln_f.weight", &w.lnFWeight},
                                                              {"ln_f.bias", &w.lnFBias},
                                                              {"lm_head.weight", &w.lmHead}};
    const int topRows[] = {c.vocabSize, c.nPositions, 1, 1, c.vocabSize};
    for (int i = 0; i < 5; ++i)
        if (Status s = checkTensor(top[i].first, *top[i].second, topRows[i], e); !s)
            return s;
    for (int l = 0; l < c.nLayer; ++l) {
        const Gpt2Block& b = w.blocks[std::size_t(l)];
        const std::string p = "h." + std::to_string(l) + ".";
        const struct {
            const char* name;
            const FloatTensor* t;
            int rows, cols;
        } parts[] = {{"ln_1.weight", &b.ln1Weight, 1, e},
                     {"ln_1.bias", &b.ln1Bias, 1, e},
                     {"attn.c_attn.weight", &b.attnWeight, e, 3 * e},
                     {"attn.c_attn.bias", &b.attnBias, 1, 3 * e},
                     {"attn.c_proj.weight", &b.attnProjWeight, e, e},
                     {"attn.c_proj.bias", &b.attnProjBias, 1, e},
                     {"ln_2.weight", &b.ln2Weight, 1, e},
                     {"ln_2.bias", &b.ln2Bias, 1, e},
                     {"mlp.c_fc.weight", &b.fcWeight, e, 4 * e},
                     {"mlp.c_fc.bias", &b.fcBias, 1, 4 * e},
                     {"mlp.c_proj.weight", &b.mlpProjWeight, 4 * e, e},
                     {"mlp.c_proj.bias", &b.mlpProjBias, 1, e}};
        for (const auto& part : parts)
            if (Status s = checkTensor(p + part.name, *part.t, part.rows, part.cols); !s)
                return s;
    }
    return okStatus();
}

double geluNew(double x)
{
    // 0.5 x (1 + tanh(y)) = x / (1 + e^(-2y)), since 1 + tanh(y) = 2 / (1 +
    // e^(-2y)): one exponential, twice as fast as tanh here (GPT-2 small at
    // 256 tokens takes 9.4 million), and without the cancellation of 1 +
    // tanh(y) near -1 for negative x.
    constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
    return x / (1.0 + std::exp(-2.0 * kSqrt2OverPi * (x + 0.044715 * x * x * x)));
}

Matrix gpt2LayerNorm(const Matrix& x, const FloatTensor& weight, const FloatTensor& bias, double eps)
{
    const Eigen::Index e = x.cols();
    const FloatTensor::Map w = weight.map();
    const FloatTensor::Map b = bias.map();
    Matrix out(x.rows(), e);
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const double mean = x.row(i).sum() / double(e);
        const double var = (x.row(i).array() - mean).square().sum() / double(e);
        const double inv = 1.0 / std::sqrt(var + eps);
        for (Eigen::Index j = 0; j < e; ++j)
            out(i, j) = (x(i, j) - mean) * inv * double(w(0, j)) + double(b(0, j));
    }
    return out;
}

Expected<Gpt2Result> runGpt2(const Gpt2Weights& w, const std::vector<int>& tokenIds,
                             const Gpt2Options& options)
{
    if (Status s = validateGpt2Weights(w); !s)
        return s.error();
    Gpt2Steps steps(w, options.threads);
    return runDecoderPass(w.config, steps, tokenIds, options);
}

Expected<AttentionResult> gpt2Head(const Gpt2Weights& w, const Gpt2Result& result, int layer, int head)
{
    if (int(w.blocks.size()) != w.config.nLayer)
        return Error{"The result is not one of this model's passes."};
    return recomputeHead(w.config, Gpt2Steps(w, 1), result, layer, head);
}

Expected<std::unique_ptr<Gpt2DecoderModel>> Gpt2DecoderModel::create(Gpt2Weights weights)
{
    if (Status s = validateGpt2Weights(weights); !s)
        return s.error();
    return std::unique_ptr<Gpt2DecoderModel>(new Gpt2DecoderModel(std::move(weights)));
}

Gpt2DecoderModel::Gpt2DecoderModel(Gpt2Weights weights)
    : weights_(std::move(weights)), config_(weights_.config)
{
}

std::unique_ptr<DecoderSteps> Gpt2DecoderModel::steps(int threads) const
{
    return std::make_unique<Gpt2Steps>(weights_, threads);
}

}  // namespace attn
