// SPDX-License-Identifier: GPL-3.0-or-later
// The Llama family's pass (core/llama.h) against the same pass written again
// as plain float64 loops from Hugging Face's definitions (RMSNorm, RoPE by
// rotate_half with llama3's rescaling written as transformers writes it,
// grouped-query attention by index arithmetic, Qwen3's q/k norms, Qwen2's
// biases, Mistral's sliding window, SwiGLU), on random weights of many
// shapes: every head's scores, weights and context, the K and V a head
// reads, and the last position's logits. Then what the plain loops cannot
// see: RoPE makes a score depend on the distance between the tokens only,
// threads and recomputed heads change no bit, and bad weights are refused
// by name.

#include "kernels.h"
#include "llama.h"
#include "randomllama.h"
#include "rotary_head.h"
#include "score_range.h"
#include "statistics.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace {

#define VERIFY_WITHIN(diff, tolerance, what) \
    QVERIFY2((diff) <= (tolerance),          \
             qPrintable(QStringLiteral("%1: %2 > %3").arg(what).arg(diff).arg(tolerance)))

using attn::Matrix;
using Rows = std::vector<std::vector<double>>;

double at(const attn::FloatTensor& t, int r, int c)
{
    return double(t.data[std::size_t(r) * std::size_t(t.cols) + std::size_t(c)]);
}

// x W^T + b for W (out, in), row by row.
Rows plainLinear(const Rows& x, const attn::FloatTensor& W, const attn::FloatTensor& b)
{
    Rows y(x.size(), std::vector<double>(std::size_t(W.rows), 0.0));
    for (std::size_t i = 0; i < x.size(); ++i)
        for (int o = 0; o < W.rows; ++o) {
            double s = b.empty() ? 0.0 : at(b, 0, o);
            for (int c = 0; c < W.cols; ++c)
                s += x[i][std::size_t(c)] * at(W, o, c);
            y[i][std::size_t(o)] = s;
        }
    return y;
}

std::vector<double> plainRms(const std::vector<double>& v, const attn::FloatTensor& w, double eps)
{
    double ss = 0;
    for (double x : v)
        ss += x * x;
    const double inv = 1.0 / std::sqrt(ss / double(v.size()) + eps);
    std::vector<double> out(v.size());
    for (std::size_t j = 0; j < v.size(); ++j)
        out[j] = at(w, 0, int(j)) * (v[j] * inv);
    return out;
}

// transformers' default inverse frequencies and _compute_llama3_parameters,
// as torch.where masks.
std::vector<double> plainInverseFrequencies(const attn::LlamaConfig& c)
{
    const int d = c.headDim;
    std::vector<double> inv;
    for (int i = 0; i < d; i += 2)
        inv.push_back(1.0 / std::pow(c.ropeTheta, double(i) / double(d)));
    if (!c.ropeScaling.enabled)
        return inv;
    const attn::Llama3RopeScaling& s = c.ropeScaling;
    const double lowWavelen = s.originalMaxPositions / s.lowFreqFactor;
    const double highWavelen = s.originalMaxPositions / s.highFreqFactor;
    std::vector<double> out(inv.size());
    for (std::size_t j = 0; j < inv.size(); ++j) {
        const double wavelen = 2 * M_PI / inv[j];
        double f = wavelen > lowWavelen ? inv[j] / s.factor : inv[j];
        const double smooth =
            (s.originalMaxPositions / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        const double smoothed = (1 - smooth) * f / s.factor + smooth * f;
        const bool medium = !(wavelen < highWavelen) && !(wavelen > lowWavelen);
        out[j] = medium ? smoothed : f;
    }
    return out;
}

// q * cos + rotate_half(q) * sin with emb = cat(freqs, freqs).
std::vector<double> plainRope(const std::vector<double>& x, const std::vector<double>& inv, int position)
{
    const std::size_t d = x.size(), half = d / 2;
    std::vector<double> rotated(d), out(d);
    for (std::size_t j = 0; j < half; ++j) {
        rotated[j] = -x[j + half];
        rotated[j + half] = x[j];
    }
    for (std::size_t j = 0; j < d; ++j) {
        const double angle = double(position) * inv[j % half];
        out[j] = x[j] * std::cos(angle) + rotated[j] * std::sin(angle);
    }
    return out;
}

struct PlainHead {
    Matrix K, V, scores, weights, context;
    Matrix seen;          // 1 where query i sees key j, else 0
    Matrix scoresBefore;  // q.k before the rotation
};

// score_range.h's readouts written again from a plain head: the population
// variance of the seen raw scores (and of them / divisor), the mean over
// the rows of the largest weight and of -sum w ln w.
attn::ScoreRangeReadouts plainReadouts(const PlainHead& p, double divisor)
{
    const Eigen::Index n = p.scores.rows();
    double sum = 0, count = 0;
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j)
            if (p.seen(i, j) > 0) {
                sum += p.scores(i, j);
                ++count;
            }
    attn::ScoreRangeReadouts r;
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j)
            if (p.seen(i, j) > 0)
                r.scoreVariance += (p.scores(i, j) - sum / count) * (p.scores(i, j) - sum / count) / count;
    r.scaledScoreVariance = r.scoreVariance / (divisor * divisor);
    for (Eigen::Index i = 0; i < n; ++i) {
        double top = 0, h = 0;
        for (Eigen::Index j = 0; j < n; ++j) {
            const double w = p.weights(i, j);
            top = std::max(top, w);
            if (w > 0)
                h -= w * std::log(w);
        }
        r.meanMaxWeight += top / double(n);
        r.meanEntropy += h / double(n);
    }
    return r;
}

struct PlainPass {
    std::vector<std::vector<PlainHead>> heads;  // [layer][head]
    std::vector<double> lastLogits;
};

// Whether query i sees key j; empty: the model's own mask (causal, with
// Mistral's sliding window).
using Seen = std::function<bool(int i, int j)>;

PlainPass plainForward(const attn::LlamaWeights& w, const std::vector<int>& ids, double divisor,
                       const Seen& whatIf = {}, bool skipQkNorm = false)
{
    const attn::LlamaConfig& c = w.config;
    const int n = int(ids.size()), hd = c.headDim, group = c.heads / c.kvHeads;
    const std::vector<double> inv = plainInverseFrequencies(c);
    Rows h(std::size_t(n), std::vector<double>(std::size_t(c.width)));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < c.width; ++j)
            h[std::size_t(i)][std::size_t(j)] = at(w.embed, ids[std::size_t(i)], j);
    PlainPass out;
    for (const attn::LlamaBlock& b : w.blocks) {
        Rows a(h.size());
        for (std::size_t i = 0; i < h.size(); ++i)
            a[i] = plainRms(h[i], b.inputNorm, c.rmsNormEps);
        const Rows q = plainLinear(a, b.q, b.qBias), k = plainLinear(a, b.k, b.kBias),
                   v = plainLinear(a, b.v, b.vBias);
        // A head's rows of q or k (normed and rotated), or of v (neither);
        // `turn` false: normed, not rotated (RoPE's input).
        auto headRows = [&](const Rows& m, int head, const attn::FloatTensor& norm, bool rotate,
                            bool turn = true) {
            Rows r(static_cast<std::size_t>(n));
            for (int i = 0; i < n; ++i) {
                std::vector<double> x(m[std::size_t(i)].begin() + head * hd,
                                      m[std::size_t(i)].begin() + (head + 1) * hd);
                if (rotate && c.qkNorm && !skipQkNorm)
                    x = plainRms(x, norm, c.rmsNormEps);
                r[std::size_t(i)] = rotate && turn ? plainRope(x, inv, i) : x;
            }
            return r;
        };
        Rows contexts(std::size_t(n), std::vector<double>(std::size_t(c.heads * hd), 0.0));
        std::vector<PlainHead> layerHeads;
        for (int head = 0; head < c.heads; ++head) {
            const int kv = head / group;
            const Rows qh = headRows(q, head, b.qNorm, true), kh = headRows(k, kv, b.kNorm, true),
                       vh = headRows(v, kv, b.kNorm, false);
            PlainHead p;
            const Rows qBefore = headRows(q, head, b.qNorm, true, false),
                       kBefore = headRows(k, kv, b.kNorm, true, false);
            p.scoresBefore.resize(n, n);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    double s = 0;
                    for (int d = 0; d < hd; ++d)
                        s +=
                            qBefore[std::size_t(i)][std::size_t(d)] * kBefore[std::size_t(j)][std::size_t(d)];
                    p.scoresBefore(i, j) = s;
                }
            p.K.resize(n, hd);
            p.V.resize(n, hd);
            p.scores.resize(n, n);
            p.weights = Matrix::Zero(n, n);
            p.seen = Matrix::Zero(n, n);
            p.context = Matrix::Zero(n, hd);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < hd; ++j) {
                    p.K(i, j) = kh[std::size_t(i)][std::size_t(j)];
                    p.V(i, j) = vh[std::size_t(i)][std::size_t(j)];
                }
            for (int i = 0; i < n; ++i) {
                for (int j = 0; j < n; ++j) {
                    double s = 0;
                    for (int d = 0; d < hd; ++d)
                        s += qh[std::size_t(i)][std::size_t(d)] * kh[std::size_t(j)][std::size_t(d)];
                    p.scores(i, j) = s;
                }
                std::vector<double> e(std::size_t(n), 0.0);
                double top = -std::numeric_limits<double>::infinity(), sum = 0;
                auto seen = [&](int j) {
                    if (whatIf)
                        return whatIf(i, j);
                    return j <= i && (c.slidingWindow == 0 || j > i - c.slidingWindow);
                };
                for (int j = 0; j < n; ++j)
                    if (seen(j)) {
                        top = std::max(top, p.scores(i, j) / divisor);
                        p.seen(i, j) = 1;
                    }
                for (int j = 0; j < n; ++j)
                    if (seen(j))
                        sum += e[std::size_t(j)] = std::exp(p.scores(i, j) / divisor - top);
                for (int j = 0; j < n; ++j)
                    p.weights(i, j) = e[std::size_t(j)] / sum;
                for (int d = 0; d < hd; ++d) {
                    for (int j = 0; j < n; ++j)
                        p.context(i, d) += p.weights(i, j) * vh[std::size_t(j)][std::size_t(d)];
                    contexts[std::size_t(i)][std::size_t(head * hd + d)] = p.context(i, d);
                }
            }
            layerHeads.push_back(std::move(p));
        }
        out.heads.push_back(std::move(layerHeads));
        const Rows o = plainLinear(contexts, b.o, b.oBias);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < c.width; ++j)
                h[std::size_t(i)][std::size_t(j)] += o[std::size_t(i)][std::size_t(j)];
        Rows m(h.size());
        for (std::size_t i = 0; i < h.size(); ++i)
            m[i] = plainRms(h[i], b.postNorm, c.rmsNormEps);
        const attn::FloatTensor none;
        Rows g = plainLinear(m, b.gate, none);
        const Rows u = plainLinear(m, b.up, none);
        for (std::size_t i = 0; i < g.size(); ++i)
            for (std::size_t j = 0; j < g[i].size(); ++j)
                g[i][j] = g[i][j] / (1.0 + std::exp(-g[i][j])) * u[i][j];
        const Rows down = plainLinear(g, b.down, none);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < c.width; ++j)
                h[std::size_t(i)][std::size_t(j)] += down[std::size_t(i)][std::size_t(j)];
    }
    const Rows last{plainRms(h.back(), w.norm, c.rmsNormEps)};
    out.lastLogits = plainLinear(last, w.lmHead, attn::FloatTensor())[0];
    return out;
}

double relDiff(const Matrix& a, const Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return INFINITY;
    double worst = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j)
            worst = std::max(worst, std::abs(a(i, j) - b(i, j)) / std::max(std::abs(b(i, j)), 1.0));
    return worst;
}

attn::LlamaConfig config(const char* family, int heads, int kvHeads, int headDim, int width)
{
    attn::LlamaConfig c;
    c.family = family;
    c.layers = 2;
    c.heads = heads;
    c.kvHeads = kvHeads;
    c.headDim = headDim;
    c.width = width;
    c.intermediate = 40;
    c.vocabSize = 61;
    c.maxPositions = 64;
    c.rmsNormEps = 1e-5;
    return c;
}

}  // namespace

class TestLlama : public QObject {
    Q_OBJECT

private slots:
    void againstPlainLoops_data();
    void againstPlainLoops();
    void ropeDependsOnDistanceOnly();
    void llama3Frequencies();
    void slidingWindowHidesEarlyKeys();
    void threadsAndRecomputedHeads();
    void badWeights();
};

void TestLlama::againstPlainLoops_data()
{
    QTest::addColumn<int>("shape");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<double>("divisor");  // 0: sqrt(head_dim)
    QTest::addColumn<QString>("mask");    // the what-if (DecoderRunOptions::mask), empty: the model's own
    QTest::addColumn<bool>("noQkNorm");   // the what-if DecoderRunOptions::skipQkNorm
    const QString own;
    QTest::newRow("llama 4/2 tied") << 0 << 7 << 0.0 << own << false;
    QTest::newRow("llama 4/2 unscaled") << 0 << 7 << 1.0 << own << false;
    QTest::newRow("qwen2 6/2 biases untied") << 1 << 9 << 0.0 << own << false;
    QTest::newRow("qwen3 4/1 head_dim 16 over 24, qk norm, o bias") << 2 << 6 << 0.0 << own << false;
    QTest::newRow("mistral 4/4 window 3") << 3 << 9 << 0.0 << own << false;
    QTest::newRow("llama3 rope scaling") << 4 << 12 << 0.0 << own << false;
    QTest::newRow("one token") << 2 << 1 << 0.0 << own << false;
    // The mask what-if: every layer's heads with another mask.
    QTest::newRow("llama what-if sliding:3") << 0 << 9 << 0.0 << QStringLiteral("sliding:3") << false;
    QTest::newRow("qwen2 what-if sink:1,window:2")
        << 1 << 11 << 0.0 << QStringLiteral("sink:1,window:2") << false;
    QTest::newRow("qwen3 what-if sink:3,window:1")
        << 2 << 8 << 0.0 << QStringLiteral("sink:3,window:1") << false;
    QTest::newRow("mistral window 3, what-if causal") << 3 << 9 << 0.0 << QStringLiteral("causal") << false;
    QTest::newRow("mistral window 3, what-if sliding:5")
        << 3 << 10 << 0.0 << QStringLiteral("sliding:5") << false;
    // Qwen3 without q_norm and k_norm (issue 38's what-if), with the scale
    // what-if too.
    QTest::newRow("qwen3 what-if no qk norm") << 2 << 8 << 0.0 << own << true;
    QTest::newRow("qwen3 no qk norm, unscaled") << 2 << 5 << 1.0 << own << true;
}

void TestLlama::againstPlainLoops()
{
    QFETCH(int, shape);
    QFETCH(int, tokens);
    QFETCH(double, divisor);
    QFETCH(QString, mask);
    QFETCH(bool, noQkNorm);
    attn::LlamaConfig c;
    switch (shape) {
    case 0: c = config("llama", 4, 2, 8, 32), c.tieWordEmbeddings = true; break;
    case 1: c = config("qwen2", 6, 2, 4, 24), c.qkvBias = true; break;
    case 2:
        c = config("qwen3", 4, 1, 16, 24), c.qkNorm = c.oBias = c.qkvBias = true, c.ropeTheta = 1e6;
        break;
    case 3: c = config("mistral", 4, 4, 8, 32), c.slidingWindow = 3; break;
    default:
        c = config("llama", 2, 1, 16, 16);
        c.ropeScaling = {true, 8.0, 1.0, 4.0, 64};
        c.ropeTheta = 10000;
        break;
    }
    const attn::LlamaWeights w = randomllama::randomWeights(c, 7u + unsigned(shape));
    auto model = attn::LlamaDecoderModel::create(w);
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    std::vector<int> ids;
    for (int i = 0; i < tokens; ++i)
        ids.push_back((i * 37 + 5) % c.vocabSize);
    attn::DecoderRunOptions options;
    options.topK = 3;
    if (divisor > 0) {
        options.divisors = (*model)->standardDivisors();
        QVERIFY(options.divisors.set(attn::ScaleMode::None, 1.0, c.headDim).ok());
    }
    // The what-if's keys written out from the masks' definitions (issue
    // 40): sliding:W sees i - W < j <= i; sink:S,window:W also j < S.
    Seen seen;
    if (!mask.isEmpty()) {
        const auto parsed = attn::parseAttentionMask(mask.toStdString());
        QVERIFY(parsed.ok());
        options.mask = parsed.value();
        const QStringList parts = mask.split(QRegularExpression(QStringLiteral("[:,]")));
        if (parts[0] == QLatin1String("causal"))
            seen = [](int i, int j) { return j <= i; };
        else if (parts[0] == QLatin1String("sliding"))
            seen = [w = parts[1].toInt()](int i, int j) { return j <= i && j > i - w; };
        else
            seen = [s = parts[1].toInt(), w = parts[3].toInt()](int i, int j) {
                return j <= i && (j < s || j > i - w);
            };
    }
    options.skipQkNorm = noQkNorm;
    const PlainPass plain =
        plainForward(w, ids, divisor > 0 ? divisor : std::sqrt(double(c.headDim)), seen, noQkNorm);

    for (const bool fused : {true, false}) {
        attn::kernels::setEnabled(fused);
        const auto r = (*model)->run(ids, options);
        attn::kernels::setEnabled(true);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(r->qkNormSkipped, noQkNorm);
        QCOMPARE(QString::fromStdString(r->mask.name()),
                 !mask.isEmpty()       ? mask
                 : c.slidingWindow > 0 ? QStringLiteral("sliding:%1").arg(c.slidingWindow)
                                       : QStringLiteral("causal"));
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                const attn::AttentionResult& got = r->layers[std::size_t(l)].heads[std::size_t(h)];
                const PlainHead& want = plain.heads[std::size_t(l)][std::size_t(h)];
                const QString where = QStringLiteral("layer %1 head %2").arg(l).arg(h);
                VERIFY_WITHIN(relDiff(got.K, want.K), 1e-12, where + " K of kv head");
                VERIFY_WITHIN(relDiff(got.V, want.V), 1e-12, where + " V of kv head");
                VERIFY_WITHIN(relDiff(got.scores, want.scores), 1e-11, where + " scores");
                VERIFY_WITHIN(relDiff(got.weightsMatrix(), want.weights), 1e-12, where + " weights");
                VERIFY_WITHIN(relDiff(got.context, want.context), 1e-12, where + " context");
                // How the head keeps its scores in range (score_range.h).
                const attn::ScoreRangeReadouts readouts = attn::scoreRangeReadouts(got);
                const attn::ScoreRangeReadouts plainReadout = plainReadouts(want, got.divisor);
                for (const attn::ScoreRangeKind kind : attn::kAllScoreRangeKinds)
                    VERIFY_WITHIN(std::abs(readouts[kind] - plainReadout[kind])
                                      / std::max(std::abs(plainReadout[kind]), 1.0),
                                  1e-10, where + " " + attn::scoreRangeName(kind));
            }
        // RoPE made visible: the scores before and after the rotation and
        // its angles, against the plain loops.
        const std::vector<double> inv = plainInverseFrequencies(c);
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                const auto rotary = (*model)->rotaryHead(*r, l, h);
                QVERIFY2(rotary.ok(), rotary.ok() ? "" : rotary.error().message.c_str());
                const PlainHead& want = plain.heads[std::size_t(l)][std::size_t(h)];
                const QString where = QStringLiteral("layer %1 head %2 RoPE").arg(l).arg(h);
                QCOMPARE(rotary->kvHead, h / (c.heads / c.kvHeads));
                VERIFY_WITHIN(relDiff(rotary->scoresBefore, want.scoresBefore), 1e-11, where + " q.k");
                VERIFY_WITHIN(relDiff(rotary->scoresAfter, want.scores), 1e-11, where + " q_rot.k_rot");
                // Bit for bit the pass's (with the product path it ran on).
                if (fused)
                    QCOMPARE(rotary->scoresAfter, r->layers[std::size_t(l)].heads[std::size_t(h)].scores);
                QCOMPARE(int(rotary->angles.rows()), tokens);
                QCOMPARE(int(rotary->angles.cols()), c.headDim / 2);
                for (int p = 0; p < tokens; ++p)
                    for (int i = 0; i < c.headDim / 2; ++i)
                        VERIFY_WITHIN(std::abs(rotary->angles(p, i) - p * inv[std::size_t(i)]),
                                      1e-14 * std::max(1.0, p * inv[std::size_t(i)]), where + " angle");
            }
        const auto table = attn::scoreRangeTable(**model, *r);
        QVERIFY(table.ok());
        QCOMPARE(table->matrix(attn::ScoreRangeKind::MeanEntropy)(c.layers - 1, c.heads - 1),
                 attn::scoreRangeReadouts(r->layers.back().heads.back()).meanEntropy);
        Matrix plainLogits(1, c.vocabSize);
        for (int t = 0; t < c.vocabSize; ++t)
            plainLogits(0, t) = plain.lastLogits[std::size_t(t)];
        VERIFY_WITHIN(relDiff(Matrix(r->lastLogits), plainLogits), 1e-11, QStringLiteral("last logits"));
    }
}

void TestLlama::ropeDependsOnDistanceOnly()
{
    // q_m . k_n after the rotation depends on m - n alone: the same two
    // vectors t positions later give the same score; another distance
    // gives another score.
    attn::LlamaConfig c = config("llama", 1, 1, 8, 8);
    const std::vector<double> inv = attn::llamaInverseFrequencies(c);
    std::mt19937 rng(3);
    std::normal_distribution<double> dist;
    Matrix q(1, 8), k(1, 8);
    for (int j = 0; j < 8; ++j) {
        q(0, j) = dist(rng);
        k(0, j) = dist(rng);
    }
    auto score = [&](int m, int n) {
        Matrix qm = q, kn = k;
        attn::applyRope(inv, &qm, m);
        attn::applyRope(inv, &kn, n);
        return qm.row(0).dot(kn.row(0));
    };
    for (const int t : {1, 5, 40, 1000})
        QVERIFY(std::abs(score(7, 3) - score(7 + t, 3 + t)) <= 1e-12 * std::abs(score(7, 3)) + 1e-12);
    QVERIFY(std::abs(score(7, 3) - score(7, 2)) > 1e-3);
    // Position 0 is no rotation: the raw dot product.
    QCOMPARE(score(0, 0), q.row(0).dot(k.row(0)));
    // A rotation keeps lengths.
    Matrix q9 = q;
    attn::applyRope(inv, &q9, 9);
    QVERIFY(std::abs(q9.norm() - q.norm()) <= 1e-12 * q.norm());
}

void TestLlama::llama3Frequencies()
{
    // head_dim 16, theta 10000: wavelengths 2 pi 10000^(j/8) = 6.3, 19.9,
    // 62.8, 199, ... With original context 64, low 1, high 4: below 16 kept,
    // above 64 divided by the factor 8, between blended. Worked by hand for
    // j = 1: wavelength 2 pi 10^0.5 = 19.869; smooth = (64 / 19.869 - 1) / 3
    // = 0.740357; f = 10^-0.5 (0.259643 / 8 + 0.740357) = 0.2443846.
    attn::LlamaConfig c = config("llama", 1, 1, 16, 16);
    c.ropeScaling = {true, 8.0, 1.0, 4.0, 64};
    const std::vector<double> inv = attn::llamaInverseFrequencies(c);
    QCOMPARE(int(inv.size()), 8);
    QCOMPARE(inv[0], 1.0);
    QVERIFY(std::abs(inv[1] - 0.2443846) < 1e-7);
    for (int j = 3; j < 8; ++j)
        QVERIFY(std::abs(inv[std::size_t(j)] - std::pow(10000.0, -j / 8.0) / 8.0) < 1e-15);
    const std::vector<double> plain = plainInverseFrequencies(c);
    for (int j = 0; j < 8; ++j)
        QVERIFY(std::abs(inv[std::size_t(j)] - plain[std::size_t(j)]) <= 1e-15 * plain[std::size_t(j)]);
}

void TestLlama::slidingWindowHidesEarlyKeys()
{
    attn::LlamaConfig c = config("mistral", 2, 1, 8, 16);
    c.slidingWindow = 4;
    auto model = attn::LlamaDecoderModel::create(randomllama::randomWeights(c, 5u));
    QVERIFY(model.ok());
    const auto r = (*model)->run({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    QVERIFY(r.ok());
    const attn::AttentionResult& head = r->layers[1].heads[1];
    QVERIFY(head.mask == attn::AttentionMask::sliding(4));
    const Matrix a = head.weightsMatrix();
    for (int i = 0; i < 10; ++i) {
        QCOMPARE(head.visible(i).from, std::max(0, i - 3));
        double sum = 0;
        for (int j = 0; j < 10; ++j) {
            const bool seen = j <= i && j > i - 4;
            QCOMPARE(head.isMasked(i, j), !seen);
            QCOMPARE(a(i, j) > 0, seen);
            QCOMPARE(head.weights(i, j), a(i, j));
            sum += a(i, j);
        }
        QVERIFY(std::abs(sum - 1) < 1e-14);
    }
    // The statistics read the window's keys only: the mean largest weight
    // and entropy of the rows as the weights above give them.
    const attn::AttentionStats stats = attn::computeStatistics(head);
    double maxWeight = 0, entropy = 0;
    for (int i = 0; i < 10; ++i) {
        maxWeight += a.row(i).maxCoeff() / 10;
        for (int j = 0; j < 10; ++j)
            entropy -= a(i, j) > 0 ? a(i, j) * std::log(a(i, j)) / 10 : 0.0;
    }
    QVERIFY(std::abs(stats.meanMaxWeight - maxWeight) < 1e-14);
    QVERIFY(std::abs(stats.meanEntropyNats - entropy) < 1e-13);
    // Without the window the same model reads every earlier key.
    c.slidingWindow = 0;
    auto all = attn::LlamaDecoderModel::create(randomllama::randomWeights(c, 5u));
    const auto r0 = (*all)->run({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    QVERIFY(r0->layers[1].heads[1].weightsMatrix()(9, 0) > 0);
    QCOMPARE(r0->layers[0].heads[0].scores, r->layers[0].heads[0].scores);
}

void TestLlama::threadsAndRecomputedHeads()
{
    attn::LlamaConfig c = config("qwen3", 6, 2, 8, 40);
    c.qkNorm = true;
    c.vocabSize = 5000;  // logits in two blocks
    c.intermediate = 300;
    auto model = attn::LlamaDecoderModel::create(randomllama::randomWeights(c, 11u));
    QVERIFY(model.ok());
    const std::vector<int> ids{3, 999, 4500, 17, 17, 2};
    for (const bool fused : {true, false}) {
        attn::kernels::setEnabled(fused);
        attn::DecoderRunOptions one, three, masked;
        three.threads = 3;
        masked.mask = attn::AttentionMask::sinkWindow(1, 2);
        const auto a = (*model)->run(ids, one);
        const auto b = (*model)->run(ids, three);
        const auto m = (*model)->run(ids, masked);
        QVERIFY(a.ok() && b.ok() && m.ok());
        QCOMPARE(a->lastLogits, b->lastLogits);
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                const attn::AttentionResult& kept = a->layers[std::size_t(l)].heads[std::size_t(h)];
                QCOMPARE(b->layers[std::size_t(l)].heads[std::size_t(h)].scores, kept.scores);
                const auto again = (*model)->head(*a, l, h);
                QVERIFY(again.ok());
                QCOMPARE(again->Q, kept.Q);
                QCOMPARE(again->K, kept.K);
                QCOMPARE(again->V, kept.V);
                QCOMPARE(again->scores, kept.scores);
                QCOMPARE(again->context, kept.context);
                // A what-if's head is recomputed with the what-if's mask.
                const attn::AttentionResult& keptMasked = m->layers[std::size_t(l)].heads[std::size_t(h)];
                const auto recomputed = (*model)->head(*m, l, h);
                QVERIFY(recomputed.ok());
                QVERIFY(recomputed->mask == attn::AttentionMask::sinkWindow(1, 2));
                QCOMPARE(recomputed->context, keptMasked.context);
                QCOMPARE(recomputed->weightsMatrix(), keptMasked.weightsMatrix());
            }
        // Without QK-norm (the what-if): recomputed heads bit for bit too,
        // other scores than the normed pass's.
        attn::DecoderRunOptions bare;
        bare.skipQkNorm = true;
        const auto n = (*model)->run(ids, bare);
        QVERIFY(n.ok());
        QVERIFY(n->qkNormSkipped);
        const auto bareHead = (*model)->head(*n, 1, 4);
        QVERIFY(bareHead.ok());
        QCOMPARE(bareHead->scores, n->layers[1].heads[4].scores);
        QCOMPARE(bareHead->context, n->layers[1].heads[4].context);
        QVERIFY(n->layers[0].heads[0].scores != a->layers[0].heads[0].scores);
        QCOMPARE(n->layers[0].heads[0].V, a->layers[0].heads[0].V);
        // The what-if changes what the queries after the window see.
        QVERIFY(m->layers[0].heads[0].weightsMatrix()(5, 2) == 0.0);
        QVERIFY(a->layers[0].heads[0].weightsMatrix()(5, 2) > 0.0);
        QVERIFY(m->lastLogits != a->lastLogits);
        // Heads 0-2 share key/value head 0, heads 3-5 head 1.
        QCOMPARE(a->layers[0].heads[2].K, a->layers[0].heads[0].K);
        QCOMPARE(a->layers[0].heads[5].V, a->layers[0].heads[3].V);
        QVERIFY(a->layers[0].heads[3].K != a->layers[0].heads[0].K);
        // The logit lens of the last block is the pass's logits.
        const auto read = (*model)->readOut(Matrix(a->finalHidden.bottomRows(1)));
        QVERIFY(read.ok());
    }
    attn::kernels::setEnabled(true);
}

void TestLlama::badWeights()
{
    {
        // The QK-norm what-if on a model without QK-norm is refused by name.
        auto llama =
            attn::LlamaDecoderModel::create(randomllama::randomWeights(config("llama", 2, 1, 8, 16), 3u));
        QVERIFY(llama.ok());
        attn::DecoderRunOptions bare;
        bare.skipQkNorm = true;
        const auto r = (*llama)->run({1, 2}, bare);
        QVERIFY(!r.ok());
        QVERIFY(QString::fromStdString(r.error().message).contains(QStringLiteral("QK-norm")));
    }
    const auto message = [](const attn::LlamaWeights& w) {
        const attn::Status s = attn::validateLlamaWeights(w);
        return s.ok() ? std::string() : s.error().message;
    };
    attn::LlamaConfig c = config("llama", 4, 2, 8, 32);
    attn::LlamaWeights w = randomllama::randomWeights(c, 1u);
    QCOMPARE(message(w), std::string());
    w.config.kvHeads = 3;
    QCOMPARE(message(w),
             std::string("Llama config: num_attention_heads 4 is not a multiple of num_key_value_heads 3."));
    w.config = c;
    w.config.headDim = 7;
    QCOMPARE(message(w), std::string("Llama config: head_dim 7 is odd; RoPE rotates pairs of dimensions."));
    w = randomllama::randomWeights(c, 1u);
    w.blocks[1].k.rows = 8;
    QCOMPARE(message(w), std::string("Llama weights: the tensor model.layers.1.self_attn.k_proj.weight is (8 "
                                     "x 32); the config needs (16 x 32)."));
    w = randomllama::randomWeights(c, 1u);
    w.blocks[0].postNorm = {};
    QCOMPARE(message(w),
             std::string("Llama weights: the tensor model.layers.0.post_attention_layernorm.weight "
                         "is missing."));
    w = randomllama::randomWeights(c, 1u);
    w.blocks[0].qNorm = w.blocks[0].inputNorm;
    QCOMPARE(message(w), std::string("Llama weights: the tensor model.layers.0.self_attn.q_norm.weight is "
                                     "given but the config has none."));
    QVERIFY(!attn::LlamaDecoderModel::create(w).ok());
}

QTEST_APPLESS_MAIN(TestLlama)
#include "tst_llama.moc"
