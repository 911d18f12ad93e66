// SPDX-License-Identifier: GPL-3.0-or-later
// The score histogram by a hand-worked 2 x 2 case (with and without the
// causal mask) and against a plain loop over a random result, sampled and not.

#include "score_histogram.h"

#include <QtTest>

#include <cmath>
#include <numeric>
#include <random>

namespace {

attn::AttentionResult identityAttention(const attn::Matrix& X, bool causal)
{
    const attn::Matrix I = attn::Matrix::Identity(X.cols(), X.cols());
    attn::AttentionOptions options;
    options.causal = causal;
    return attn::computeAttention(X, I, I, I, options).value();
}

}  // namespace

class TestScoreHistogram : public QObject {
    Q_OBJECT
private slots:
    void niceCeiling_data();
    void niceCeiling();
    void binEdges();
    void handWorked();
    void handWorkedCausal();
    void matchesPlainLoop_data();
    void matchesPlainLoop();
};

void TestScoreHistogram::niceCeiling_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<double>("nice");
    QTest::newRow("9") << 9.0 << 10.0;
    QTest::newRow("10") << 10.0 << 10.0;
    QTest::newRow("10.5") << 10.5 << 20.0;
    QTest::newRow("2") << 2.0 << 2.0;
    QTest::newRow("2.01") << 2.01 << 5.0;
    QTest::newRow("0.3") << 0.3 << 0.5;
    QTest::newRow("150") << 150.0 << 200.0;
    QTest::newRow("0") << 0.0 << 1.0;
    QTest::newRow("inf") << std::numeric_limits<double>::infinity() << 1.0;
}

void TestScoreHistogram::niceCeiling()
{
    QFETCH(double, value);
    QFETCH(double, nice);
    QCOMPARE(attn::niceCeiling(value), nice);
}

void TestScoreHistogram::binEdges()
{
    // Four bins over [-10, 10]: [-10, -5) [-5, 0) [0, 5) [5, 10].
    QCOMPARE(attn::histogramBin(-10.0, 10.0, 4), 0);
    QCOMPARE(attn::histogramBin(-5.5, 10.0, 4), 0);
    QCOMPARE(attn::histogramBin(-5.0, 10.0, 4), 1);
    QCOMPARE(attn::histogramBin(-0.1, 10.0, 4), 1);
    QCOMPARE(attn::histogramBin(0.0, 10.0, 4), 2);
    QCOMPARE(attn::histogramBin(5.0, 10.0, 4), 3);
    QCOMPARE(attn::histogramBin(10.0, 10.0, 4), 3);
    QCOMPARE(attn::histogramBin(-11.0, 10.0, 4), 0);
}

void TestScoreHistogram::handWorked()
{
    // Q = K = X, so S = X Xᵀ = [[5, 3], [3, 9]]; d_k = 2, scaled S / √2 =
    // [[3.54, 2.12], [2.12, 6.36]]. The largest |score| 9 gives limit 10;
    // four bins of width 5.
    attn::Matrix X(2, 2);
    X << 1, 2, 3, 0;
    const attn::ScoreHistogram h = attn::scoreHistogram(identityAttention(X, false), 4);
    QCOMPARE(h.dK, 2);
    QCOMPARE(h.divisor, std::sqrt(2.0));
    QCOMPARE(h.limit, 10.0);
    QCOMPARE(h.binWidth(), 5.0);
    QCOMPARE(h.binLower(3), 5.0);
    QCOMPARE(h.raw, (std::vector<long long>{0, 0, 2, 2}));
    QCOMPARE(h.scaled, (std::vector<long long>{0, 0, 3, 1}));
    QCOMPARE(h.pairs, 4LL);
    QCOMPARE(h.totalPairs, 4LL);
    QVERIFY(!h.sampled());
    // Mean 20 / 4 = 5; squared deviations 0, 4, 4, 16: variance 6.
    QCOMPARE(h.meanRaw, 5.0);
    QVERIFY(std::abs(h.sdRaw - std::sqrt(6.0)) < 1e-14);
    QVERIFY(std::abs(h.sdScaled - std::sqrt(3.0)) < 1e-14);
    QVERIFY(std::abs(h.meanScaled - 5.0 / std::sqrt(2.0)) < 1e-14);
}

void TestScoreHistogram::handWorkedCausal()
{
    // The masked pair (0, 1), score 3, is left out: 5, 3, 9 remain.
    attn::Matrix X(2, 2);
    X << 1, 2, 3, 0;
    const attn::ScoreHistogram h = attn::scoreHistogram(identityAttention(X, true), 4);
    QCOMPARE(h.raw, (std::vector<long long>{0, 0, 1, 2}));
    QCOMPARE(h.scaled, (std::vector<long long>{0, 0, 2, 1}));
    QCOMPARE(h.pairs, 3LL);
    QCOMPARE(h.totalPairs, 3LL);
    QVERIFY(std::abs(h.meanRaw - 17.0 / 3) < 1e-14);
}

void TestScoreHistogram::matchesPlainLoop_data()
{
    QTest::addColumn<bool>("causal");
    QTest::addColumn<long long>("maxPairs");
    QTest::addColumn<int>("stride");
    QTest::newRow("every pair") << false << attn::kScoreHistogramMaxPairs << 1;
    QTest::newRow("every pair, causal") << true << attn::kScoreHistogramMaxPairs << 1;
    // 57 x 57 = 3249 pairs at most 1000: every 4th query.
    QTest::newRow("sampled") << false << 1000LL << 4;
    // 57 * 58 / 2 = 1653 pairs at most 500: every 4th query.
    QTest::newRow("sampled, causal") << true << 500LL << 4;
}

void TestScoreHistogram::matchesPlainLoop()
{
    QFETCH(bool, causal);
    QFETCH(long long, maxPairs);
    QFETCH(int, stride);
    const int n = 57, dModel = 8, dK = 13;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(0.3, 1.0);
    auto draw = [&](int rows, int cols) {
        attn::Matrix m(rows, cols);
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                m(i, j) = normal(rng);
        return m;
    };
    const attn::Matrix X = draw(n, dModel), Wq = draw(dModel, dK), Wk = draw(dModel, dK),
                       Wv = draw(dModel, 3);
    attn::AttentionOptions options;
    options.causal = causal;
    const attn::AttentionResult r = attn::computeAttention(X, Wq, Wk, Wv, options).value();
    const int bins = 17;
    const attn::ScoreHistogram h = attn::scoreHistogram(r, bins, maxPairs);
    QCOMPARE(h.rowStride, stride);

    // The plain loop: q_i . k_j from Q and K, its bin by the interval test.
    double largest = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < (causal ? i + 1 : n); ++j)
            largest = std::max(largest, std::abs(r.Q.row(i).dot(r.K.row(j))));
    QVERIFY(std::abs(h.limit - attn::niceCeiling(largest)) < 1e-12 * h.limit);
    std::vector<long long> raw(bins, 0), scaled(bins, 0);
    long long pairs = 0;
    double sum = 0;
    std::vector<double> values;
    const double width = 2 * h.limit / bins;
    auto binOf = [&](double v) {
        for (int b = 0; b < bins; ++b) {
            const double lo = -h.limit + b * width, hi = lo + width;
            if (v >= lo && (v < hi || b == bins - 1))
                return b;
        }
        return -1;
    };
    for (int i = 0; i < n; i += stride)
        for (int j = 0; j < (causal ? i + 1 : n); ++j) {
            const double s = r.Q.row(i).dot(r.K.row(j));
            ++raw[std::size_t(binOf(s))];
            ++scaled[std::size_t(binOf(s / std::sqrt(double(dK))))];
            ++pairs;
            sum += s;
            values.push_back(s);
        }
    QCOMPARE(h.raw, raw);
    QCOMPARE(h.scaled, scaled);
    QCOMPARE(h.pairs, pairs);
    QCOMPARE(h.totalPairs, causal ? n * (n + 1LL) / 2 : n * 1LL * n);
    const double mean = sum / double(pairs);
    double squares = 0;
    for (double v : values)
        squares += (v - mean) * (v - mean);
    QVERIFY(std::abs(h.meanRaw - mean) < 1e-12 * (1 + std::abs(mean)));
    QVERIFY(std::abs(h.sdRaw - std::sqrt(squares / double(pairs))) < 1e-10);
    QCOMPARE(std::accumulate(h.raw.begin(), h.raw.end(), 0LL), pairs);
}

QTEST_APPLESS_MAIN(TestScoreHistogram)
#include "tst_score_histogram.moc"
