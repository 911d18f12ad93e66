// SPDX-License-Identifier: GPL-3.0-or-later
// The direct pass (attention.h) under every mask (attention_mask.h) against
// an independent plain loop written here: the projections, the scores, the
// scaled scores (-inf where hidden), the softmax over the keys the mask's
// formula lets each query see (0 elsewhere) and the context, on several
// shapes, scale modes and thread counts, within 1e-12; the weights read
// back one by one and row by row equal to the engine's; the statistics
// (the engine's visitor and computeStatistics) against plain ones; masks
// that reduce to causal give causal's numbers bit for bit; a bad mask is
// refused.

#include "attention.h"
#include "attention_mask.h"
#include "score_histogram.h"
#include "statistics.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using attn::AttentionMask;
using attn::Matrix;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The masks as the issue writes them, apart from AttentionMask.
bool plainHides(const AttentionMask& m, int i, int j)
{
    switch (m.kind) {
    case AttentionMask::Kind::None: return false;
    case AttentionMask::Kind::Causal: return !(j <= i);
    case AttentionMask::Kind::Sliding: return !(i - m.window < j && j <= i);
    case AttentionMask::Kind::SinkWindow: return !(j <= i && (j < m.sink || i - m.window < j));
    }
    return false;
}

Matrix randomMatrix(int rows, int cols, std::mt19937_64& rng, double spread)
{
    std::uniform_real_distribution<double> u(-spread, spread);
    Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = u(rng);
    return m;
}

struct Plain {
    std::vector<std::vector<double>> scores, scaled, weights, context;
    std::vector<double> entropy;
    std::vector<int> argMax;
    double maxAbsKept = 0.0;
};

// Textbook loops: no Eigen product, no kernel, the mask as its formula.
Plain plainAttention(const Matrix& X, const Matrix& Wq, const Matrix& Wk, const Matrix& Wv, double divisor,
                     const AttentionMask& mask)
{
    const int n = int(X.rows()), d = int(X.cols()), dk = int(Wq.cols()), dv = int(Wv.cols());
    auto project = [&](const Matrix& W, int cols) {
        std::vector<std::vector<double>> out(std::size_t(n), std::vector<double>(std::size_t(cols), 0.0));
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < cols; ++c)
                for (int k = 0; k < d; ++k)
                    out[std::size_t(i)][std::size_t(c)] += X(i, k) * W(k, c);
        return out;
    };
    const auto q = project(Wq, dk), k = project(Wk, dk), v = project(Wv, dv);
    Plain p;
    p.scores.assign(std::size_t(n), std::vector<double>(std::size_t(n), 0.0));
    p.scaled = p.weights = p.scores;
    p.context.assign(std::size_t(n), std::vector<double>(std::size_t(dv), 0.0));
    p.entropy.assign(std::size_t(n), 0.0);
    p.argMax.assign(std::size_t(n), 0);
    for (int i = 0; i < n; ++i) {
        double largest = -kInf;
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int c = 0; c < dk; ++c)
                s += q[std::size_t(i)][std::size_t(c)] * k[std::size_t(j)][std::size_t(c)];
            p.scores[std::size_t(i)][std::size_t(j)] = s;
            const bool hidden = plainHides(mask, i, j);
            p.scaled[std::size_t(i)][std::size_t(j)] = hidden ? -kInf : s / divisor;
            if (!hidden) {
                largest = std::max(largest, s / divisor);
                p.maxAbsKept = std::max(p.maxAbsKept, std::abs(s));
            }
        }
        double sum = 0.0;
        for (int j = 0; j < n; ++j)
            if (!plainHides(mask, i, j))
                sum += std::exp(p.scaled[std::size_t(i)][std::size_t(j)] - largest);
        double best = -1.0;
        for (int j = 0; j < n; ++j) {
            const double w = plainHides(mask, i, j)
                                 ? 0.0
                                 : std::exp(p.scaled[std::size_t(i)][std::size_t(j)] - largest) / sum;
            p.weights[std::size_t(i)][std::size_t(j)] = w;
            if (w > 0.0)
                p.entropy[std::size_t(i)] -= w * std::log(w);
            if (!plainHides(mask, i, j) && w > best) {
                best = w;
                p.argMax[std::size_t(i)] = j;
            }
            for (int c = 0; c < dv; ++c)
                p.context[std::size_t(i)][std::size_t(c)] += w * v[std::size_t(j)][std::size_t(c)];
        }
    }
    return p;
}

bool close(double got, double want, double tolerance = 1e-12)
{
    return std::abs(got - want) <= tolerance * std::max(1.0, std::abs(want));
}

std::vector<AttentionMask> masksFor(int n)
{
    return {AttentionMask::none(),           AttentionMask::causal(),         AttentionMask::sliding(1),
            AttentionMask::sliding(2),       AttentionMask::sliding(5),       AttentionMask::sliding(n + 3),
            AttentionMask::sinkWindow(0, 3), AttentionMask::sinkWindow(1, 1), AttentionMask::sinkWindow(2, 3),
            AttentionMask::sinkWindow(4, 2), AttentionMask::sinkWindow(n, 1)};
}

bool bitEqual(const Matrix& a, const Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return false;
    return std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

}  // namespace

class TestAttentionMasks : public QObject {
    Q_OBJECT
private slots:
    void visibleKeysFollowTheFormula();
    void everyMaskAgainstPlainLoops_data();
    void everyMaskAgainstPlainLoops();
    void masksThatAreCausalGiveCausalBitForBit();
    void causalOptionAndCausalMaskAreTheSame();
    void histogramCountsTheVisibleKeys();
    void badMaskIsRefused();
};

void TestAttentionMasks::visibleKeysFollowTheFormula()
{
    for (int n : {1, 2, 7, 20}) {
        for (const AttentionMask& m : masksFor(n)) {
            for (int i = 0; i < n; ++i) {
                const attn::VisibleKeys vis = m.visible(i, n);
                std::vector<int> listed;
                for (int c = 0; c < vis.count(); ++c) {
                    listed.push_back(vis.key(c));
                    QCOMPARE(vis.position(vis.key(c)), c);
                }
                std::vector<int> want;
                for (int j = 0; j < n; ++j)
                    if (!plainHides(m, i, j))
                        want.push_back(j);
                QVERIFY2(listed == want, (m.name() + " row " + std::to_string(i)).c_str());
                QCOMPARE(vis.prefix(),
                         want.empty() || (want.front() == 0 && int(want.size()) == want.back() + 1));
            }
        }
    }
    // Hand-worked: sink:2,window:3 at query 6 sees 0, 1 and 4, 5, 6.
    const attn::VisibleKeys v = AttentionMask::sinkWindow(2, 3).visible(6, 10);
    QCOMPARE(v.head, 2);
    QCOMPARE(v.from, 4);
    QCOMPARE(v.to, 7);
    QCOMPARE(v.count(), 5);
}

void TestAttentionMasks::everyMaskAgainstPlainLoops_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("dModel");
    QTest::addColumn<int>("dK");
    QTest::addColumn<int>("dV");
    QTest::addColumn<int>("scale");  // 0 sqrt(d_k), 1 none, 2 custom 2.5
    QTest::addColumn<int>("threads");
    QTest::newRow("1 token") << 1 << 3 << 2 << 2 << 0 << 1;
    QTest::newRow("article 6x4") << 6 << 4 << 3 << 3 << 0 << 1;
    QTest::newRow("7 tokens, d_v 5, no scale") << 7 << 5 << 4 << 5 << 1 << 1;
    QTest::newRow("13 tokens, custom") << 13 << 8 << 3 << 2 << 2 << 2;
    QTest::newRow("70 tokens across panels") << 70 << 6 << 5 << 3 << 0 << 3;
    QTest::newRow("131 tokens, 2 threads") << 131 << 4 << 8 << 6 << 0 << 2;
}

void TestAttentionMasks::everyMaskAgainstPlainLoops()
{
    QFETCH(int, n);
    QFETCH(int, dModel);
    QFETCH(int, dK);
    QFETCH(int, dV);
    QFETCH(int, scale);
    QFETCH(int, threads);
    std::mt19937_64 rng(std::uint64_t(n * 1000 + dModel * 10 + scale));
    const Matrix X = randomMatrix(n, dModel, rng, 1.5);
    const Matrix Wq = randomMatrix(dModel, dK, rng, 1.0), Wk = randomMatrix(dModel, dK, rng, 1.0),
                 Wv = randomMatrix(dModel, dV, rng, 1.0);
    for (const AttentionMask& mask : masksFor(n)) {
        const std::string label = mask.name();
        attn::AttentionOptions options;
        options.scale = scale == 0   ? attn::ScaleMode::SqrtDk
                        : scale == 1 ? attn::ScaleMode::None
                                     : attn::ScaleMode::Custom;
        options.customDivisor = 2.5;
        options.setMask(mask);
        QVERIFY(options.effectiveMask() == mask);
        const double divisor = scale == 0 ? std::sqrt(double(dK)) : scale == 1 ? 1.0 : 2.5;

        attn::AttentionResult r;
        attn::AttentionStats stats;
        std::vector<std::vector<double>> visitedWeights(static_cast<std::size_t>(n));
        std::vector<int> visitedKeys(std::size_t(n), -1);
        const attn::Status status = attn::computeAttentionWithStatistics(
            X, Wq, Wk, Wv, options, &r, &stats, threads, [&](int i, const attn::WeightRow& row) {
                // The packed arrays are the row's attended entries in key order.
                for (int c = 0; c < row.keys; ++c) {
                    const int j = row.visible.key(c);
                    if (row.keptWeights[c] != row.weights[j] || row.keptScores[c] != row.scores[j])
                        return;
                }
                visitedKeys[std::size_t(i)] = row.keys;
                visitedWeights[std::size_t(i)].assign(row.weights, row.weights + row.n);
            });
        QVERIFY2(status, label.c_str());
        QVERIFY(r.mask == mask);
        QCOMPARE(r.causal, mask.kind == AttentionMask::Kind::Causal);

        const Plain p = plainAttention(X, Wq, Wk, Wv, divisor, mask);
        const Matrix scaled = r.scaledMatrix(), weights = r.weightsMatrix();
        std::vector<double> row(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            int visible = 0;
            for (int j = 0; j < n; ++j) {
                const bool hidden = plainHides(mask, i, j);
                visible += hidden ? 0 : 1;
                QCOMPARE(r.isMasked(i, j), hidden);
                QVERIFY2(close(r.scores(i, j), p.scores[std::size_t(i)][std::size_t(j)]), label.c_str());
                if (hidden) {
                    QCOMPARE(scaled(i, j), -kInf);
                    QCOMPARE(r.scaled(i, j), -kInf);
                    QCOMPARE(weights(i, j), 0.0);
                    QCOMPARE(r.weights(i, j), 0.0);
                } else {
                    QVERIFY2(close(scaled(i, j), p.scaled[std::size_t(i)][std::size_t(j)]), label.c_str());
                    QVERIFY2(close(weights(i, j), p.weights[std::size_t(i)][std::size_t(j)]), label.c_str());
                    // One entry read back is the row's number, bit for bit.
                    QCOMPARE(r.weights(i, j), weights(i, j));
                    QCOMPARE(r.scaled(i, j), scaled(i, j));
                }
                // The row read back is the one the engine had (and multiplied by V).
                QCOMPARE(weights(i, j), visitedWeights[std::size_t(i)][std::size_t(j)]);
            }
            QCOMPARE(r.keys(i), visible);
            QCOMPARE(visitedKeys[std::size_t(i)], visible);
            for (int c = 0; c < dV; ++c)
                QVERIFY2(close(r.context(i, c), p.context[std::size_t(i)][std::size_t(c)]), label.c_str());
            // The statistics: the largest weight's key and the entropy.
            QCOMPARE(stats.rows[std::size_t(i)].argMax, p.argMax[std::size_t(i)]);
            QVERIFY2(close(stats.rows[std::size_t(i)].entropyNats, p.entropy[std::size_t(i)], 1e-11),
                     label.c_str());
        }
        QVERIFY(close(r.maxAbsKeptScore, p.maxAbsKept));
        // computeStatistics reads the same rows again: the same statistics.
        const attn::AttentionStats again = attn::computeStatistics(r);
        for (int i = 0; i < n; ++i) {
            QCOMPARE(again.rows[std::size_t(i)].argMax, stats.rows[std::size_t(i)].argMax);
            QCOMPARE(again.rows[std::size_t(i)].entropyNats, stats.rows[std::size_t(i)].entropyNats);
            QCOMPARE(again.rows[std::size_t(i)].jacobianNorm, stats.rows[std::size_t(i)].jacobianNorm);
        }
        QCOMPARE(again.rawMean, stats.rawMean);
        QCOMPARE(again.rawVariance, stats.rawVariance);
        // The raw moments over the visible cells.
        double sum = 0.0;
        long long count = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (!plainHides(mask, i, j)) {
                    sum += p.scores[std::size_t(i)][std::size_t(j)];
                    ++count;
                }
        const double mean = sum / double(count);
        double m2 = 0.0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (!plainHides(mask, i, j))
                    m2 += (p.scores[std::size_t(i)][std::size_t(j)] - mean)
                          * (p.scores[std::size_t(i)][std::size_t(j)] - mean);
        QVERIFY2(close(stats.rawMean, mean), label.c_str());
        QVERIFY2(close(stats.rawVariance, m2 / double(count)), label.c_str());

        // The same pass from the projections: the same numbers bit for bit.
        attn::AttentionResult fromProjections;
        fromProjections.Q = r.Q;
        fromProjections.K = r.K;
        fromProjections.V = r.V;
        QVERIFY(attn::computeAttentionFromProjections(options, &fromProjections, {}, 1));
        QVERIFY(bitEqual(fromProjections.context, r.context));
        QVERIFY(bitEqual(fromProjections.weightsMatrix(), weights));
    }
}

void TestAttentionMasks::masksThatAreCausalGiveCausalBitForBit()
{
    // A window as wide as the sentence, or sinks that reach every query's
    // window, see exactly what causal sees: the same numbers, every bit.
    const int n = 37;
    std::mt19937_64 rng(40);
    const Matrix X = randomMatrix(n, 6, rng, 2.0);
    const Matrix Wq = randomMatrix(6, 4, rng, 1.0), Wk = randomMatrix(6, 4, rng, 1.0),
                 Wv = randomMatrix(6, 3, rng, 1.0);
    attn::AttentionOptions causal;
    causal.causal = true;
    const auto reference = attn::computeAttention(X, Wq, Wk, Wv, causal);
    QVERIFY(reference);
    for (const AttentionMask& m : {AttentionMask::sliding(n), AttentionMask::sliding(n + 100),
                                   AttentionMask::sinkWindow(n, 1), AttentionMask::sinkWindow(3, n)}) {
        attn::AttentionOptions o;
        o.setMask(m);
        const auto r = attn::computeAttention(X, Wq, Wk, Wv, o);
        QVERIFY(r);
        QVERIFY2(bitEqual(r->context, reference->context), m.name().c_str());
        QVERIFY2(bitEqual(r->weightsMatrix(), reference->weightsMatrix()), m.name().c_str());
        QVERIFY2(bitEqual(r->scaledMatrix(), reference->scaledMatrix()), m.name().c_str());
        QCOMPARE(r->maxAbsKeptScore, reference->maxAbsKeptScore);
        QCOMPARE(r->maxAbsScore, reference->maxAbsScore);
    }
}

void TestAttentionMasks::causalOptionAndCausalMaskAreTheSame()
{
    attn::AttentionOptions a, b;
    a.causal = true;
    b.setMask(AttentionMask::causal());
    QVERIFY(a == b);  // one canonical form
    QVERIFY(b.effectiveMask() == AttentionMask::causal());
    b.setMask(AttentionMask::sliding(4));
    QVERIFY(!b.causal);
    QVERIFY(b.effectiveMask() == AttentionMask::sliding(4));
    QVERIFY(a != b);
    b.setMask(AttentionMask::none());
    QVERIFY(b == attn::AttentionOptions());
}

void TestAttentionMasks::histogramCountsTheVisibleKeys()
{
    // sliding:2 over 5 tokens: rows see 1, 2, 2, 2, 2 keys.
    const int n = 5;
    std::mt19937_64 rng(7);
    const Matrix X = randomMatrix(n, 3, rng, 1.0);
    const Matrix W = randomMatrix(3, 2, rng, 1.0);
    attn::AttentionOptions o;
    o.setMask(AttentionMask::sliding(2));
    const auto r = attn::computeAttention(X, W, W, W, o);
    QVERIFY(r);
    const attn::ScoreHistogram h = attn::scoreHistogram(*r, 8, 1000);
    QCOMPARE(h.totalPairs, 9LL);
    QCOMPARE(h.pairs, 9LL);
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (!plainHides(AttentionMask::sliding(2), i, j))
                sum += r->scores(i, j);
    QVERIFY(close(h.meanRaw, sum / 9.0));
}

void TestAttentionMasks::badMaskIsRefused()
{
    const Matrix X = Matrix::Ones(3, 2), W = Matrix::Ones(2, 2);
    attn::AttentionOptions o;
    o.setMask(AttentionMask::sliding(0));
    const auto r = attn::computeAttention(X, W, W, W, o);
    QVERIFY(!r);
    QVERIFY(QString::fromStdString(r.error().message).contains(QStringLiteral("window")));
    o.setMask(AttentionMask::sinkWindow(-1, 2));
    QVERIFY(!attn::computeAttention(X, W, W, W, o));
}

QTEST_APPLESS_MAIN(TestAttentionMasks)
#include "tst_attention_masks.moc"
