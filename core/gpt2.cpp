// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2.h"

#include "gpt2_kernels.h"
#include "kernels.h"
#include "size_limits.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>

namespace attn {
namespace {

// Eigen's products take the columns in blocks of this many, whatever the
// thread count, so that the numbers do not depend on it.
constexpr int kColumnBlock = 256;

template <typename F>
void forEachIndex(int count, int threads, const F& f)
{
    const int t = std::clamp(threads, 1, std::max(count, 1));
    if (t == 1) {
        for (int i = 0; i < count; ++i)
            f(i);
        return;
    }
    std::atomic<int> next{0};
    const auto work = [&] {
        for (int i = next++; i < count; i = next++)
            f(i);
    };
    std::vector<std::thread> pool;
    pool.reserve(std::size_t(t - 1));
    for (int k = 1; k < t; ++k)
        pool.emplace_back(work);
    work();
    for (std::thread& p : pool)
        p.join();
}

std::string shapeText(int rows, int cols)
{
    return "(" + std::to_string(rows) + " x " + std::to_string(cols) + ")";
}

Status checkTensor(const std::string& name, const FloatTensor& t, int rows, int cols)
{
    if (t.empty())
        return Error{"GPT-2 weights: the tensor " + name + " is missing."};
    if (t.rows != rows || t.cols != cols)
        return Error{"GPT-2 weights: the tensor " + name + " is " + shapeText(t.rows, t.cols)
                     + "; the config needs " + shapeText(rows, cols) + "."};
    return okStatus();
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

// Head `head`'s q, k, v from qkv (the product of ln1 with c_attn), then the
// attention pass of attention.h with the causal mask.
Status attendHead(const Matrix& qkv, int embd, int headDim, int head, double divisor, AttentionResult* r)
{
    Matrix* targets[3] = {&r->Q, &r->K, &r->V};
    for (int p = 0; p < 3; ++p)
        *targets[p] = qkv.middleCols(Eigen::Index(p) * embd + Eigen::Index(head) * headDim, headDim);
    AttentionOptions options;
    options.scale = ScaleMode::Custom;
    options.customDivisor = divisor;
    options.causal = true;
    return computeAttentionFromProjections(options, r);
}

bool isCancelled(const Gpt2Options& options)
{
    return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

Status checkDivisors(const Gpt2Divisors& d, const Gpt2Config& config)
{
    if (d.nLayer != config.nLayer || d.nHead != config.nHead
        || d.values.size() != std::size_t(config.nLayer) * std::size_t(config.nHead))
        return Error{"The score divisor table is for " + std::to_string(d.nLayer) + " layers x "
                     + std::to_string(d.nHead) + " heads; the model has " + std::to_string(config.nLayer)
                     + " x " + std::to_string(config.nHead) + "."};
    for (std::size_t i = 0; i < d.values.size(); ++i)
        if (Status s = validateCustomDivisor(d.values[i]); !s)
            return Error{"Layer " + std::to_string(i / std::size_t(config.nHead)) + ", head "
                         + std::to_string(i % std::size_t(config.nHead)) + ": " + s.error().message};
    return okStatus();
}

}  // namespace

Gpt2Divisors Gpt2Divisors::standard(const Gpt2Config& config)
{
    Gpt2Divisors d;
    d.nLayer = config.nLayer;
    d.nHead = config.nHead;
    d.values.assign(std::size_t(std::max(config.nLayer, 0)) * std::size_t(std::max(config.nHead, 0)),
                    std::sqrt(double(config.headDim())));
    return d;
}

Status Gpt2Divisors::set(ScaleMode mode, double customDivisor, int headDim, int layer, int head)
{
    if (layer < -1 || layer >= nLayer)
        return Error{"Layer " + std::to_string(layer) + " does not exist; the model has layers 0 to "
                     + std::to_string(nLayer - 1) + "."};
    if (head < -1 || head >= nHead)
        return Error{"Head " + std::to_string(head) + " does not exist; each layer has heads 0 to "
                     + std::to_string(nHead - 1) + "."};
    AttentionOptions options;
    options.scale = mode;
    options.customDivisor = customDivisor;
    const Expected<double> divisor = scaleDivisor(options, headDim);
    if (!divisor)
        return divisor.error();
    for (int l = 0; l < nLayer; ++l)
        for (int h = 0; h < nHead; ++h)
            if ((layer < 0 || l == layer) && (head < 0 || h == head))
                values[std::size_t(l) * nHead + h] = *divisor;
    return okStatus();
}

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

std::vector<Gpt2TopToken> topTokens(const RowVector& logits, int k, double temperature)
{
    const Eigen::Index v = logits.size();
    k = int(std::clamp<Eigen::Index>(k, 0, v));
    std::vector<int> ids(static_cast<std::size_t>(v));
    std::iota(ids.begin(), ids.end(), 0);
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int a, int b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    });
    const double top = v ? logits.maxCoeff() / temperature : 0.0;
    double sum = 0.0;
    for (Eigen::Index j = 0; j < v; ++j)
        sum += std::exp(logits[j] / temperature - top);
    std::vector<Gpt2TopToken> out;
    out.reserve(std::size_t(k));
    for (int i = 0; i < k; ++i) {
        const int id = ids[std::size_t(i)];
        out.push_back({id, logits[id], std::exp(logits[id] / temperature - top) / sum});
    }
    return out;
}

Expected<Gpt2Result> runGpt2(const Gpt2Weights& w, const std::vector<int>& tokenIds,
                             const Gpt2Options& options)
{
    if (Status s = validateGpt2Weights(w); !s)
        return s.error();
    const Gpt2Config& c = w.config;
    const int n = int(tokenIds.size());
    if (n < 1)
        return Error{"The sentence has no tokens; GPT-2 needs at least one."};
    const int maxTokens = std::min(c.nPositions, kMaxTokens);
    if (n > maxTokens)
        return Error{"The sentence has " + std::to_string(n) + " tokens; this model takes at most "
                     + std::to_string(maxTokens) + "."};
    for (int i = 0; i < n; ++i)
        if (tokenIds[std::size_t(i)] < 0 || tokenIds[std::size_t(i)] >= c.vocabSize)
            return Error{"Token " + std::to_string(i + 1) + " has id "
                         + std::to_string(tokenIds[std::size_t(i)]) + ", outside the vocabulary (0 to "
                         + std::to_string(c.vocabSize - 1) + ")."};
    Gpt2Result r;
    r.divisors = options.divisors.empty() ? Gpt2Divisors::standard(c) : options.divisors;
    if (Status s = checkDivisors(r.divisors, c); !s)
        return s.error();
    if (!std::isfinite(options.temperature) || options.temperature < kMinTemperature
        || options.temperature > kMaxTemperature) {
        std::ostringstream msg;
        msg << "The temperature must be a number from " << kMinTemperature << " to " << kMaxTemperature
            << "; got " << options.temperature << ".";
        return Error{msg.str()};
    }
    if (options.topK < 1)
        return Error{"The number of next tokens to list must be at least 1; got "
                     + std::to_string(options.topK) + "."};
    r.tokenIds = tokenIds;
    r.temperature = options.temperature;
    const int e = c.nEmbd;
    const int hd = c.headDim();
    const int threads = std::max(options.threads, 1);

    const FloatTensor::Map wte = w.wte.map();
    const FloatTensor::Map wpe = w.wpe.map();
    Matrix h(n, e);
    for (int i = 0; i < n; ++i)
        h.row(i) = wte.row(tokenIds[std::size_t(i)]).cast<double>() + wpe.row(i).cast<double>();

    r.layers.resize(std::size_t(c.nLayer));
    std::vector<AttentionResult> scratch(options.keepMaps ? 0 : std::size_t(c.nHead));
    std::vector<Status> headStatus(std::size_t(c.nHead), okStatus());
    Matrix concat(n, e);
    Matrix qkv;        // (n, 3E), c_attn's
    Matrix hidden4;    // (n, 4E), the MLP's
    Matrix projected;  // (n, E)
    for (int l = 0; l < c.nLayer; ++l) {
        if (isCancelled(options))
            return cancelledError(kGpt2Cancelled);
        const Gpt2Block& b = w.blocks[std::size_t(l)];
        Gpt2Layer& layer = r.layers[std::size_t(l)];
        layer.ln1 = gpt2LayerNorm(h, b.ln1Weight, b.ln1Bias, c.layerNormEpsilon);
        std::vector<AttentionResult>& heads = options.keepMaps ? layer.heads : scratch;
        heads.resize(std::size_t(c.nHead));
        attentionInputs(b, layer.ln1, hd, &qkv, threads);
        forEachIndex(c.nHead, threads, [&](int i) {
            if (isCancelled(options))
                return;  // the check after the heads ends the pass
            AttentionResult& head = heads[std::size_t(i)];
            headStatus[std::size_t(i)] = attendHead(qkv, e, hd, i, r.divisors.at(l, i), &head);
            if (headStatus[std::size_t(i)])
                concat.middleCols(Eigen::Index(i) * hd, hd) = head.context;
        });
        if (isCancelled(options))
            return cancelledError(kGpt2Cancelled);
        for (int i = 0; i < c.nHead; ++i)
            if (!headStatus[std::size_t(i)])
                return Error{"Layer " + std::to_string(l) + ", head " + std::to_string(i) + ": "
                             + headStatus[std::size_t(i)].error().message
                             + " The checkpoint holds values too large or not numbers."};
        affine(concat, b.attnProjWeight, b.attnProjBias, &projected, threads, &b.fcWeight);
        h += projected;
        affine(gpt2LayerNorm(h, b.ln2Weight, b.ln2Bias, c.layerNormEpsilon), b.fcWeight, b.fcBias, &hidden4,
               threads, &b.mlpProjWeight);
        hidden4 = hidden4.unaryExpr([](double x) { return geluNew(x); });
        affine(hidden4, b.mlpProjWeight, b.mlpProjBias, &projected, threads,
               l + 1 < c.nLayer ? &w.blocks[std::size_t(l) + 1].attnWeight : nullptr);
        h += projected;
        if (options.keepHidden)
            layer.hidden = h;
    }
    r.finalHidden = gpt2LayerNorm(h, w.lnFWeight, w.lnFBias, c.layerNormEpsilon);
    if (!r.finalHidden.allFinite())
        return Error{
            "The final hidden states are not finite (the checkpoint holds values too large or not "
            "numbers)."};

    if (isCancelled(options))
        return cancelledError(kGpt2Cancelled);
    // logits = h lm_head^T: lm_head (vocab, E) row-major, its rows read in place.
    const int v = c.vocabSize;
    const Matrix hidden = options.allLogits ? r.finalHidden : Matrix(r.finalHidden.bottomRows(1));
    Matrix logits(hidden.rows(), v);
    constexpr int kVocabBlock = 4096;
    const int blocks = (v + kVocabBlock - 1) / kVocabBlock;
    forEachIndex(blocks, threads, [&](int k) {
        const int t0 = k * kVocabBlock;
        const int count = std::min(kVocabBlock, v - t0);
        if (kernels::available()) {
            kernels::productFloatWeightsTransposed(hidden.data(), e, int(hidden.rows()), e,
                                                   w.lmHead.data + std::size_t(t0) * std::size_t(e), e, count,
                                                   logits.data() + t0, v);
            return;
        }
        const Matrix rows = w.lmHead.map().middleRows(t0, count).cast<double>();
        logits.middleCols(t0, count).noalias() = hidden * rows.transpose();
    });
    r.lastLogits = logits.bottomRows(1);
    if (!r.lastLogits.allFinite())
        return Error{"The logits are not finite (the checkpoint holds values too large or not numbers)."};
    if (options.allLogits)
        r.logits = std::move(logits);
    r.top = topTokens(r.lastLogits, options.topK, options.temperature);
    return r;
}

Expected<AttentionResult> gpt2Head(const Gpt2Weights& w, const Gpt2Result& result, int layer, int head)
{
    const Gpt2Config& c = w.config;
    if (layer < 0 || layer >= c.nLayer || layer >= int(result.layers.size()))
        return Error{"Layer " + std::to_string(layer) + " does not exist; the model has layers 0 to "
                     + std::to_string(c.nLayer - 1) + "."};
    if (head < 0 || head >= c.nHead)
        return Error{"Head " + std::to_string(head) + " does not exist; each layer has heads 0 to "
                     + std::to_string(c.nHead - 1) + "."};
    const Matrix& ln1 = result.layers[std::size_t(layer)].ln1;
    if (int(w.blocks.size()) != c.nLayer || ln1.cols() != c.nEmbd || ln1.rows() != result.tokens()
        || result.divisors.nLayer != c.nLayer || result.divisors.nHead != c.nHead)
        return Error{"The result is not one of this model's passes."};
    // The head's q, k and v blocks of c_attn alone, by the pass's products.
    const Gpt2Block& b = w.blocks[std::size_t(layer)];
    const int e = c.nEmbd, hd = c.headDim();
    const kernels::PackedRows packed = packedFor(ln1);
    const FloatTensor::Map bias = b.attnBias.map();
    Matrix qkv = Matrix::Zero(ln1.rows(), 3 * e);
    for (int p = 0; p < 3; ++p) {
        const int c0 = p * e + head * hd;
        productBlock(ln1, packed, b.attnWeight, c0, hd, qkv.data() + c0, qkv.cols());
        qkv.middleCols(c0, hd).rowwise() += bias.middleCols(c0, hd).row(0).cast<double>();
    }
    AttentionResult r;
    if (Status s = attendHead(qkv, e, hd, head, result.divisors.at(layer, head), &r); !s)
        return s.error();
    return r;
}

}  // namespace attn
