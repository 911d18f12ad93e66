// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// GPT-2 weights built in memory (random, of any shape) and GPT-2's pass
// written again as plain float64 loops from the formulas of core/gpt2.h,
// with a head's context ablated and the logit lens, for the core's tests of
// the pass (tst_gpt2) and of the interface over it (tst_decoder_model).

#include "attention.h"
#include "gpt2.h"
#include "kernels.h"
#include "matrix.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <vector>

// In a Qt Test slot: fails, naming `what` and both numbers, when `diff`
// is over `tolerance`.
#define VERIFY_WITHIN(diff, tolerance, what) \
    QVERIFY2(                                \
        (diff) <= (tolerance),               \
        qPrintable(                          \
            QStringLiteral("%1: max |diff| %2 > %3").arg(QStringLiteral(what)).arg(diff).arg(tolerance)))

namespace plaingpt2 {

// Runs `f` with the AVX2 products (where the processor has them) and with
// Eigen's, the choice restored after.
template <typename F>
void withBothProducts(const F& f)
{
    for (const bool fused : {true, false}) {
        attn::kernels::setEnabled(fused);
        f();
        attn::kernels::setEnabled(true);
        if (QTest::currentTestFailed())
            return;
    }
}

// Weights owned by their `storage`, as a reader's are.
class WeightsBuilder {
public:
    explicit WeightsBuilder(const attn::Gpt2Config& config) : store_(std::make_shared<Store>())
    {
        weights_.config = config;
        weights_.storage = store_;
    }

    attn::FloatTensor tensor(int rows, int cols, const std::vector<float>& values)
    {
        store_->push_back(values);
        store_->back().resize(std::size_t(rows) * std::size_t(cols));
        return {store_->back().data(), rows, cols};
    }
    attn::FloatTensor random(int rows, int cols, std::mt19937& rng, float scale, float offset = 0.0f)
    {
        std::normal_distribution<float> dist(0.0f, scale);
        std::vector<float> v(std::size_t(rows) * std::size_t(cols));
        for (float& x : v)
            x = offset + dist(rng);
        return tensor(rows, cols, v);
    }

    attn::Gpt2Weights& weights() { return weights_; }

private:
    // Each tensor's own vector: moving the outer one keeps their buffers.
    using Store = std::vector<std::vector<float>>;
    std::shared_ptr<Store> store_;
    attn::Gpt2Weights weights_;
};

inline attn::Gpt2Weights randomWeights(int nLayer, int nHead, int nEmbd, int nPositions, int vocab,
                                       unsigned seed, bool tied = true)
{
    attn::Gpt2Config c;
    c.nLayer = nLayer;
    c.nHead = nHead;
    c.nEmbd = nEmbd;
    c.nPositions = nPositions;
    c.vocabSize = vocab;
    c.layerNormEpsilon = 1e-5;
    WeightsBuilder b(c);
    std::mt19937 rng(seed);
    const int e = nEmbd;
    attn::Gpt2Weights& w = b.weights();
    w.wte = b.random(vocab, e, rng, 0.5f);
    w.wpe = b.random(nPositions, e, rng, 0.2f);
    for (int l = 0; l < nLayer; ++l) {
        attn::Gpt2Block k;
        k.ln1Weight = b.random(1, e, rng, 0.1f, 1.0f);
        k.ln1Bias = b.random(1, e, rng, 0.1f);
        k.attnWeight = b.random(e, 3 * e, rng, 0.6f);
        k.attnBias = b.random(1, 3 * e, rng, 0.1f);
        k.attnProjWeight = b.random(e, e, rng, 0.3f);
        k.attnProjBias = b.random(1, e, rng, 0.1f);
        k.ln2Weight = b.random(1, e, rng, 0.1f, 1.0f);
        k.ln2Bias = b.random(1, e, rng, 0.1f);
        k.fcWeight = b.random(e, 4 * e, rng, 0.4f);
        k.fcBias = b.random(1, 4 * e, rng, 0.1f);
        k.mlpProjWeight = b.random(4 * e, e, rng, 0.2f);
        k.mlpProjBias = b.random(1, e, rng, 0.1f);
        w.blocks.push_back(k);
    }
    w.lnFWeight = b.random(1, e, rng, 0.1f, 1.0f);
    w.lnFBias = b.random(1, e, rng, 0.1f);
    w.lmHeadTied = tied;
    w.lmHead = tied ? w.wte : b.random(vocab, e, rng, 0.5f);
    return w;
}

inline std::vector<int> randomIds(int n, int vocab, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(0, vocab - 1);
    std::vector<int> ids(static_cast<std::size_t>(n));
    for (int& id : ids)
        id = dist(rng);
    return ids;
}

// The plain pass: float64 loops over the float32 weights, from the formulas.

inline double at(const attn::FloatTensor& t, int i, int j)
{
    return double(t.data[std::size_t(i) * std::size_t(t.cols) + std::size_t(j)]);
}

// x W + b for a Conv1D weight W (in, out).
inline attn::Matrix plainConv1D(const attn::Matrix& x, const attn::FloatTensor& W, const attn::FloatTensor& b)
{
    attn::Matrix y(x.rows(), W.cols);
    for (int i = 0; i < x.rows(); ++i)
        for (int o = 0; o < W.cols; ++o) {
            double sum = at(b, 0, o);
            for (int p = 0; p < W.rows; ++p)
                sum += x(i, p) * at(W, p, o);
            y(i, o) = sum;
        }
    return y;
}

inline attn::Matrix plainLayerNorm(const attn::Matrix& x, const attn::FloatTensor& w,
                                   const attn::FloatTensor& b, double eps)
{
    attn::Matrix y(x.rows(), x.cols());
    const int e = int(x.cols());
    for (int i = 0; i < x.rows(); ++i) {
        double mean = 0;
        for (int j = 0; j < e; ++j)
            mean += x(i, j);
        mean /= e;
        double var = 0;
        for (int j = 0; j < e; ++j)
            var += (x(i, j) - mean) * (x(i, j) - mean);
        var /= e;
        for (int j = 0; j < e; ++j)
            y(i, j) = (x(i, j) - mean) / std::sqrt(var + eps) * at(w, 0, j) + at(b, 0, j);
    }
    return y;
}

inline double plainGelu(double x)
{
    const double pi = std::acos(-1.0);
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
}

struct PlainHead {
    attn::Matrix q, k, v, scores, weights;
};

struct PlainPass {
    std::vector<std::vector<PlainHead>> heads;  // [layer][head]
    attn::Matrix embedded;                      // wte[ids] + wpe
    std::vector<attn::Matrix> hidden;           // each block's output
    attn::Matrix finalHidden, logits;           // logits (n, vocab)
};

// A head whose context is replaced before c_proj: by zeros, or by each
// column's mean over the positions.
struct PlainAblation {
    int layer = -1;
    int head = -1;
    bool mean = false;
};

// logits (rows, vocab) = LN_f(h) lm_head^T.
inline attn::Matrix plainReadOut(const attn::Gpt2Weights& w, const attn::Matrix& h)
{
    const attn::Gpt2Config& c = w.config;
    const attn::Matrix normed = plainLayerNorm(h, w.lnFWeight, w.lnFBias, c.layerNormEpsilon);
    attn::Matrix logits(h.rows(), c.vocabSize);
    for (int i = 0; i < h.rows(); ++i)
        for (int t = 0; t < c.vocabSize; ++t) {
            double s = 0;
            for (int j = 0; j < c.nEmbd; ++j)
                s += normed(i, j) * at(w.lmHead, t, j);
            logits(i, t) = s;
        }
    return logits;
}

// Whether query i sees key j (a mask written as a rule); empty: causal.
using PlainSeen = std::function<bool(int i, int j)>;

inline PlainPass plainPass(const attn::Gpt2Weights& w, const std::vector<int>& ids,
                           const attn::Gpt2Divisors& div, const PlainAblation& ablation = {},
                           const PlainSeen& mask = {})
{
    const PlainSeen seen = mask ? mask : PlainSeen([](int i, int j) { return j <= i; });
    const attn::Gpt2Config& c = w.config;
    const int n = int(ids.size()), e = c.nEmbd, hd = e / c.nHead;
    PlainPass out;
    attn::Matrix h(n, e);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < e; ++j)
            h(i, j) = at(w.wte, ids[std::size_t(i)], j) + at(w.wpe, i, j);
    out.embedded = h;
    for (int l = 0; l < c.nLayer; ++l) {
        const attn::Gpt2Block& b = w.blocks[std::size_t(l)];
        const attn::Matrix a = plainLayerNorm(h, b.ln1Weight, b.ln1Bias, c.layerNormEpsilon);
        const attn::Matrix qkv = plainConv1D(a, b.attnWeight, b.attnBias);
        attn::Matrix concat(n, e);
        out.heads.emplace_back();
        for (int hh = 0; hh < c.nHead; ++hh) {
            PlainHead p;
            p.q = qkv.middleCols(hh * hd, hd);
            p.k = qkv.middleCols(e + hh * hd, hd);
            p.v = qkv.middleCols(2 * e + hh * hd, hd);
            p.scores.resize(n, n);
            p.weights = attn::Matrix::Zero(n, n);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    double s = 0;
                    for (int d = 0; d < hd; ++d)
                        s += p.q(i, d) * p.k(j, d);
                    p.scores(i, j) = s;
                }
            const double divisor = div.values[std::size_t(l * c.nHead + hh)];
            for (int i = 0; i < n; ++i) {
                double largest = -INFINITY;
                for (int j = 0; j < n; ++j)
                    if (seen(i, j))
                        largest = std::max(largest, p.scores(i, j) / divisor);
                double sum = 0;
                for (int j = 0; j < n; ++j)
                    if (seen(i, j))
                        sum += p.weights(i, j) = std::exp(p.scores(i, j) / divisor - largest);
                for (int j = 0; j < n; ++j)
                    p.weights(i, j) /= sum;
            }
            for (int i = 0; i < n; ++i)
                for (int d = 0; d < hd; ++d) {
                    double z = 0;
                    for (int j = 0; j < n; ++j)
                        z += p.weights(i, j) * p.v(j, d);
                    concat(i, hh * hd + d) = z;
                }
            out.heads.back().push_back(p);
            if (l == ablation.layer && hh == ablation.head)
                for (int d = 0; d < hd; ++d) {
                    double mean = 0;
                    for (int i = 0; i < n; ++i)
                        mean += concat(i, hh * hd + d);
                    mean /= n;
                    for (int i = 0; i < n; ++i)
                        concat(i, hh * hd + d) = ablation.mean ? mean : 0.0;
                }
        }
        h += plainConv1D(concat, b.attnProjWeight, b.attnProjBias);
        attn::Matrix m =
            plainConv1D(plainLayerNorm(h, b.ln2Weight, b.ln2Bias, c.layerNormEpsilon), b.fcWeight, b.fcBias);
        for (Eigen::Index i = 0; i < m.size(); ++i)
            m.data()[i] = plainGelu(m.data()[i]);
        h += plainConv1D(m, b.mlpProjWeight, b.mlpProjBias);
        out.hidden.push_back(h);
    }
    out.finalHidden = plainLayerNorm(h, w.lnFWeight, w.lnFBias, c.layerNormEpsilon);
    out.logits = plainReadOut(w, h);
    return out;
}

// Largest |a - b| over the largest |b| (at least 1).
inline double relativeDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return INFINITY;
    return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

inline double absDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return INFINITY;
    return (a - b).cwiseAbs().maxCoeff();
}

// The same shape and bits (a row vector taken as a matrix).
inline bool sameBits(const attn::Matrix& a, const attn::Matrix& b)
{
    return attn::sameBits(a, b);
}

inline bool sameHead(const attn::AttentionResult& a, const attn::AttentionResult& b)
{
    return sameBits(a.Q, b.Q) && sameBits(a.K, b.K) && sameBits(a.V, b.V) && sameBits(a.scores, b.scores)
           && sameBits(a.context, b.context) && sameBits(a.weightsMatrix(), b.weightsMatrix())
           && sameBits(a.scaledMatrix(), b.scaledMatrix()) && a.divisor == b.divisor && a.causal == b.causal;
}

}  // namespace plaingpt2
