// SPDX-License-Identifier: GPL-3.0-or-later
// Statistics by hand-worked 2x2 and 3x3 cases, and the Jacobian norm
// against the explicit matrix diag(p) - p p^T.

#include "size_limits.h"
#include "statistics.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

class TestStatistics : public QObject {
    Q_OBJECT
private slots:
    void extremeInputsAtTheDivisorFloorStayFinite();
    void rows_data();
    void rows();
    void jacobianNormMatchesExplicitMatrix();
    void jacobianNormOfNearlyOneHotRow();
    void jacobianNormWithTheLargestInside();
    void engineRowMatchesWeightsOnly_data();
    void engineRowMatchesWeightsOnly();
    void scoreMomentsTwoByTwo();
    void scoreMomentsSkipMaskedEntries();
    void scoreMomentsMatchTwoPassLoops_data();
    void scoreMomentsMatchTwoPassLoops();
};

void TestStatistics::rows_data()
{
    QTest::addColumn<QVector<double>>("p");
    QTest::addColumn<double>("maxWeight");
    QTest::addColumn<int>("argMax");
    QTest::addColumn<double>("entropyNats");
    QTest::addColumn<double>("effective");
    QTest::addColumn<double>("jacobian");
    const double ln2 = std::log(2.0);
    QTest::newRow("half half") << QVector<double>{0.5, 0.5} << 0.5 << 0 << ln2 << 2.0 << 0.5;
    QTest::newRow("one-hot") << QVector<double>{0.0, 1.0} << 1.0 << 1 << 0.0 << 1.0 << 0.0;
    QTest::newRow("uniform of 3") << QVector<double>{1.0 / 3, 1.0 / 3, 1.0 / 3} << 1.0 / 3 << 0
                                  << std::log(3.0) << 3.0 << std::sqrt(2.0) / 3;
    // H = 0.5 ln 2 + 2 * 0.25 ln 4 = 1.5 ln 2; ||J||^2 = 0.25^2 + 2 * 0.1875^2
    // + 2 * (2 * 0.125^2 + 0.0625^2) = 0.203125.
    QTest::newRow("half quarter quarter") << QVector<double>{0.5, 0.25, 0.25} << 0.5 << 0 << 1.5 * ln2
                                          << std::pow(2.0, 1.5) << std::sqrt(0.203125);
}

void TestStatistics::rows()
{
    QFETCH(QVector<double>, p);
    QFETCH(double, maxWeight);
    QFETCH(int, argMax);
    QFETCH(double, entropyNats);
    QFETCH(double, effective);
    QFETCH(double, jacobian);
    const attn::RowStats s = attn::rowStatistics(p.data(), int(p.size()));
    QCOMPARE(s.maxWeight, maxWeight);
    QCOMPARE(s.argMax, argMax);
    QVERIFY(std::abs(s.entropyNats - entropyNats) < 1e-15);
    QVERIFY(std::abs(s.entropyBits - entropyNats / std::log(2.0)) < 1e-15);
    QVERIFY(std::abs(s.effectiveTokens - effective) < 1e-14);
    QVERIFY(std::abs(s.jacobianNorm - jacobian) < 1e-15);
}

void TestStatistics::jacobianNormMatchesExplicitMatrix()
{
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int n : {1, 2, 5, 17, 64}) {
        Eigen::VectorXd p(n);
        for (int i = 0; i < n; ++i)
            p(i) = std::pow(u(rng), 3.0);
        p /= p.sum();
        const Eigen::MatrixXd j = Eigen::MatrixXd(p.asDiagonal()) - p * p.transpose();
        QVERIFY(std::abs(attn::softmaxJacobianNorm(p.data(), n) - j.norm()) < 1e-15);
    }
}

void TestStatistics::jacobianNormOfNearlyOneHotRow()
{
    // p = (1 - 2e-20, 1e-20, 1e-20) as the softmax stores it: p_0 rounds to
    // exactly 1. By hand: diagonal entries p_i (1 - p_i) are 2e-20, 1e-20,
    // 1e-20; off-diagonal p_0 p_j = 1e-20 (four of them), p_1 p_2 = 1e-40.
    // ||J||^2 = 4e-40 + 1e-40 + 1e-40 + 4e-40 = 1e-39.
    const double p[3] = {1.0, 1e-20, 1e-20};
    const double norm = attn::softmaxJacobianNorm(p, 3);
    QVERIFY2(std::abs(norm - std::sqrt(1e-39)) < 1e-30, qPrintable(QString::number(norm)));
}

void TestStatistics::jacobianNormWithTheLargestInside()
{
    // The largest weight split off in the middle, first of two equal ones,
    // and two dominant weights: the explicit matrix's norm in each case.
    const std::vector<std::vector<double>> rows = {
        {0.1, 0.2, 0.6, 0.05, 0.05},
        {0.1, 0.4, 0.4, 0.1},
        {0.5, 0.5 - 3e-17, 1e-17, 2e-17},
        {1e-300, 0.25, 0.75, 0.0},
    };
    for (const std::vector<double>& row : rows) {
        const int n = int(row.size());
        const Eigen::Map<const Eigen::VectorXd> p(row.data(), n);
        const Eigen::MatrixXd j = Eigen::MatrixXd(p.asDiagonal()) - p * p.transpose();
        QVERIFY(std::abs(attn::softmaxJacobianNorm(row.data(), n) - j.norm()) < 1e-15);
    }
}

void TestStatistics::engineRowMatchesWeightsOnly_data()
{
    QTest::addColumn<QVector<double>>("scores");
    QTest::addColumn<int>("keys");
    QTest::addColumn<double>("divisor");
    QTest::newRow("spread") << QVector<double>{0.3, -1.2, 2.5, 0.0, 1.1, -0.4, 0.9} << 7 << 1.0;
    QTest::newRow("scaled") << QVector<double>{3.0, -8.0, 12.5, 1.0, 4.4} << 5 << std::sqrt(24.0);
    QTest::newRow("causal, three of six kept") << QVector<double>{1.0, 2.0, -0.5, 9.0, 9.0, 9.0} << 3 << 1.0;
    QTest::newRow("nearly one-hot") << QVector<double>{0.0, -40.0, -45.0, -50.0} << 4 << 1.0;
    QTest::newRow("underflowing weights") << QVector<double>{0.0, -800.0, -1.0, -2000.0} << 4 << 1.0;
    QTest::newRow("one key") << QVector<double>{5.0} << 1 << 1.0;
}

void TestStatistics::engineRowMatchesWeightsOnly()
{
    // The engine's statistics (entropy as ln Z + sum p (m - s)) against the
    // ones from the weights alone (-sum p ln p), over the kept keys.
    QFETCH(QVector<double>, scores);
    QFETCH(int, keys);
    QFETCH(double, divisor);
    const int n = int(scores.size());
    std::vector<double> scaled(std::size_t(n), 0.0), weights(std::size_t(n), 0.0);
    const attn::SoftmaxRowScale scale =
        attn::scaledSoftmaxRow(scores.data(), divisor, scaled.data(), weights.data(), keys);
    const attn::RowStats fromEngine =
        attn::rowStatistics(attn::WeightRow{weights.data(), scores.data(), scaled.data(), keys, n, scale});
    const attn::RowStats fromWeights = attn::rowStatistics(weights.data(), n);
    QCOMPARE(fromEngine.argMax, fromWeights.argMax);
    QCOMPARE(fromEngine.maxWeight, fromWeights.maxWeight);
    QCOMPARE(fromEngine.jacobianNorm, fromWeights.jacobianNorm);
    // H = -sum p ln p by plain loops in long double (64-bit mantissa), with
    // p_j = e_j / z, e_j = exp(x_j - max) over the kept keys, and
    // ln p_j = (x_j - max) - ln z. ln z = log1p(sum of the e_j other than
    // the largest's 1): for the nearly one-hot row z - 1 ~ 4e-18 sits
    // within 40 ulps of 1 even in long double, and p ln p from a rounded
    // p_0 = 1 / z would be a percent off.
    int a = 0;
    for (int j = 1; j < keys; ++j)
        if (scores[j] > scores[a])
            a = j;
    const long double m = static_cast<long double>(scores[a]) / divisor;
    long double rest = 0.0L, h = 0.0L;
    for (int j = 0; j < keys; ++j)
        if (j != a)
            rest += std::exp(static_cast<long double>(scores[j]) / divisor - m);
    const long double lnZ = std::log1p(rest);
    for (int j = 0; j < keys; ++j) {
        const long double x = static_cast<long double>(scores[j]) / divisor - m;
        h += std::exp(x) / (1.0L + rest) * (lnZ - x);
    }
    const double want = double(h);
    QVERIFY2(
        std::abs(fromEngine.entropyNats - want) <= 1e-14 * want,
        qPrintable(
            QStringLiteral("%1 against %2").arg(fromEngine.entropyNats, 0, 'g', 17).arg(want, 0, 'g', 17)));
    QVERIFY2(
        std::abs(fromWeights.entropyNats - want) <= 1e-14 * want,
        qPrintable(
            QStringLiteral("%1 against %2").arg(fromWeights.entropyNats, 0, 'g', 17).arg(want, 0, 'g', 17)));
    QVERIFY(std::abs(fromEngine.effectiveTokens - std::exp(want)) <= 1e-14 * std::exp(want));
}

void TestStatistics::scoreMomentsTwoByTwo()
{
    // Scores [1 2; 3 4] divided by 2: rows (0.5, 1) and (1.5, 2) differ by
    // 0.5, so both have the weights (a, b) with a = 1 / (1 + e^0.5), b = 1 - a.
    // For two weights J = [ab -ab; -ab ab], so ||J||_F = 2ab.
    attn::AttentionResult r;
    r.scores.resize(2, 2);
    r.scores << 1, 2, 3, 4;
    r.divisor = 2.0;
    r.Q.resize(2, 1);
    const attn::AttentionStats st = attn::computeStatistics(r);
    QCOMPARE(st.rawMean, 2.5);
    QCOMPARE(st.rawVariance, 1.25);  // (2.25 + 0.25 + 0.25 + 2.25) / 4
    QCOMPARE(st.scaledMean, 1.25);
    QCOMPARE(st.scaledVariance, 0.3125);
    QCOMPARE(int(st.rows.size()), 2);
    const double a = 1.0 / (1.0 + std::exp(0.5));
    const double b = std::exp(0.5) / (1.0 + std::exp(0.5));
    QVERIFY(std::abs(st.meanMaxWeight - b) < 1e-15);
    QCOMPARE(st.rows[1].argMax, 1);
    QVERIFY(std::abs(st.meanEntropyNats - (-a * std::log(a) - b * std::log(b))) < 1e-15);
    QVERIFY(std::abs(st.meanJacobianNorm - 2 * a * b) < 1e-15);
}

void TestStatistics::scoreMomentsSkipMaskedEntries()
{
    attn::AttentionResult r;
    r.causal = true;
    r.scores.resize(2, 2);
    r.scores << 1, 2, 3, 4;  // divisor 1; (0, 1) is masked
    r.Q.resize(2, 1);
    const attn::AttentionStats st = attn::computeStatistics(r);
    // Query 0 sees only itself: weight 1, entropy 0.
    QCOMPARE(st.rows[0].maxWeight, 1.0);
    QCOMPARE(st.rows[0].entropyNats, 0.0);
    QCOMPARE(st.rows[0].jacobianNorm, 0.0);
    // Unmasked entries 1, 3, 4: mean 8/3, variance (25 + 1 + 16) / 27.
    QVERIFY(std::abs(st.rawMean - 8.0 / 3) < 1e-15);
    QVERIFY(std::abs(st.rawVariance - 42.0 / 27) < 1e-15);
    QVERIFY(std::isfinite(st.scaledVariance));
    QVERIFY(std::abs(st.scaledVariance - 42.0 / 27) < 1e-15);
}

void TestStatistics::scoreMomentsMatchTwoPassLoops_data()
{
    QTest::addColumn<double>("offset");
    QTest::addColumn<bool>("causal");
    for (double offset : {0.0, 1e6})
        for (bool causal : {false, true})
            QTest::newRow(qPrintable(QStringLiteral("offset %1%2").arg(offset).arg(causal ? ", causal" : "")))
                << offset << causal;
}

void TestStatistics::scoreMomentsMatchTwoPassLoops()
{
    // The moments combined from each row's against two passes over every
    // unmasked cell in long double; an offset of 1e6 on unit-spread scores
    // would cost a one-pass sum of squares most of its digits.
    const int n = 97;
    std::mt19937 rng(5);
    std::normal_distribution<double> normal(0.0, 1.0);
    attn::AttentionResult r;
    r.divisor = 3.0;
    r.Q.resize(n, 1);
    r.scores.resize(n, n);
    QFETCH(double, offset);
    QFETCH(bool, causal);
    r.causal = causal;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            r.scores(i, j) = offset + normal(rng) * (1.0 + 0.1 * i);
    long double sum = 0.0L, sq = 0.0L;
    long long count = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < r.keys(i); ++j, ++count)
            sum += r.scores(i, j);
    const long double mean = sum / count;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < r.keys(i); ++j)
            sq += (r.scores(i, j) - mean) * (r.scores(i, j) - mean);
    const double variance = double(sq / count);
    const attn::AttentionStats st = attn::computeStatistics(r);
    QVERIFY(std::abs(st.rawMean - double(mean)) <= 1e-15 * std::abs(double(mean)) + 1e-15);
    QVERIFY2(std::abs(st.rawVariance - variance) <= 1e-12 * variance,
             qPrintable(QString::number(st.rawVariance - variance)));
    QVERIFY(std::abs(st.scaledVariance - variance / 9.0) <= 1e-12 * variance / 9.0);
}

QTEST_APPLESS_MAIN(TestStatistics)
// The largest inputs validation accepts (|entry| = 1e30) at the largest
// widths, divided by the smallest custom divisor: every score, weight and
// statistic is finite (the bound kMinCustomDivisor documents). Rows 0 and 2
// of X are equal, row 1 alternates in sign so that its q and k are 0 (to
// rounding): rows 0 and 2 split their weight between keys 0 and 2.
void TestStatistics::extremeInputsAtTheDivisorFloorStayFinite()
{
    // The widest X with the largest d_k its weight budget leaves:
    // d_model 2048, 2 d_k + d_v <= 1536, so d_k = 767 beside d_v = 2 (d_k
    // d_model^2 is largest there, the bound of kMinCustomDivisor's comment).
    const int n = 3, d = attn::kMaxDModel, dV = 2;
    const int dK = int((attn::kMaxHeadWeightEntries / d - dV) / 2);
    QCOMPARE(dK, 767);
    const double big = attn::kMaxInputMagnitude;
    attn::Matrix X(n, d), Wq(d, dK), Wk(d, dK), Wv(d, dV);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < d; ++c)
            X(i, c) = (i == 1 && c % 2) ? -big : big;
    Wq.setConstant(big);
    Wk.setConstant(big);
    Wv.setConstant(1.0);
    attn::AttentionOptions o;
    o.scale = attn::ScaleMode::Custom;
    o.customDivisor = attn::kMinCustomDivisor;
    attn::AttentionResult result;
    attn::AttentionStats stats;
    QVERIFY(attn::computeAttentionWithStatistics(X, Wq, Wk, Wv, o, &result, &stats));
    // Rows 0 and 2 give q = k = d * 1e60 in every column: s = d_k (d 1e60)^2.
    const double q = double(d) * big * big;
    QCOMPARE(result.scores(0, 0), double(dK) * q * q);
    QVERIFY(result.scores.allFinite());
    QVERIFY(result.context.allFinite());
    const attn::Matrix scaled = result.scaledMatrix(), weights = result.weightsMatrix();
    QVERIFY(scaled.allFinite());
    QVERIFY(weights.allFinite());
    QVERIFY(std::isfinite(stats.scaledMean) && std::isfinite(stats.scaledVariance));
    QVERIFY(stats.scaledVariance > 0);
    for (const attn::RowStats& row : stats.rows)
        QVERIFY(std::isfinite(row.entropyNats) && std::isfinite(row.jacobianNorm));
    QVERIFY(std::abs(result.scores(0, 1)) < 1e-15 * result.scores(0, 0));  // 0 up to the sums' rounding
    for (int i : {0, 2}) {
        QCOMPARE(weights(i, 0), 0.5);
        QCOMPARE(weights(i, 1), 0.0);
        QCOMPARE(weights(i, 2), 0.5);
        QCOMPARE(stats.rows[std::size_t(i)].entropyNats, std::log(2.0));
    }
    QCOMPARE(weights.row(1).sum(), 1.0);
}

#include "tst_statistics.moc"
