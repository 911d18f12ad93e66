// SPDX-License-Identifier: GPL-3.0-or-later
// The AVX2 product kernels against plain loops: every entry must be exactly
// the fused multiply-add chain over the inner dimension in order
// (std::fma, one rounding per step), over ragged shapes that exercise every
// tile height, partial column blocks and key blocks, and the causal skip.

#include "kernels.h"

#include <QProcess>
#include <QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

std::vector<double> randomValues(std::mt19937& rng, std::size_t count)
{
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<double> v(count);
    for (double& x : v)
        x = normal(rng);
    return v;
}

}  // namespace

class TestKernels : public QObject {
    Q_OBJECT
private slots:
    void init();
    void scoresAreFmaChains_data();
    void scoresAreFmaChains();
    void contextIsFmaChains_data();
    void contextIsFmaChains();
    void expWithinTwoUlp();
    void softmaxRowEntriesAreExp_data();
    void softmaxRowEntriesAreExp();
    void switchedOffByEnvironmentOrCall();
};

void TestKernels::init()
{
    if (!attn::kernels::available())
        QSKIP(
            "This processor has no AVX2 and FMA (or ATTNLAB_NO_AVX2 is set): the engine uses "
            "Eigen's products, which tst_attention checks.");
}

void TestKernels::scoresAreFmaChains_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("d");
    // Tile heights 1 to 6 and beyond, key counts around the 8-key block.
    const int shapes[][3] = {{1, 1, 1},  {2, 7, 3},   {3, 8, 5},    {4, 9, 64},   {5, 15, 2},
                             {6, 16, 7}, {7, 17, 64}, {13, 33, 31}, {64, 130, 67}};
    for (const auto& s : shapes)
        QTest::newRow(qPrintable(QStringLiteral("rows%1 n%2 d%3").arg(s[0]).arg(s[1]).arg(s[2])))
            << s[0] << s[1] << s[2];
}

void TestKernels::scoresAreFmaChains()
{
    QFETCH(int, rows);
    QFETCH(int, n);
    QFETCH(int, d);
    std::mt19937 rng(unsigned(rows * 1000 + n * 10 + d));
    const std::vector<double> q = randomValues(rng, std::size_t(rows) * std::size_t(d));
    const std::vector<double> k = randomValues(rng, std::size_t(n) * std::size_t(d));
    // A wider output than the keys (leading dimension n + 3): the kernel
    // must not write past its columns.
    const std::ptrdiff_t ld = n + 3;
    std::vector<double> s(std::size_t(rows) * std::size_t(ld), -7.0);
    attn::kernels::PackedKeys packed;
    attn::kernels::packKeys(k.data(), n, d, &packed);
    attn::kernels::scores(q.data(), rows, packed, s.data(), ld);
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < n; ++j) {
            double chain = 0.0;
            for (int p = 0; p < d; ++p)
                chain = std::fma(q[std::size_t(i * d + p)], k[std::size_t(j * d + p)], chain);
            if (s[std::size_t(i * ld + j)] != chain)
                QFAIL(qPrintable(QStringLiteral("S(%1, %2) = %3, the chain gives %4")
                                     .arg(i)
                                     .arg(j)
                                     .arg(s[std::size_t(i * ld + j)], 0, 'g', 17)
                                     .arg(chain, 0, 'g', 17)));
        }
        for (std::ptrdiff_t j = n; j < ld; ++j)
            QCOMPARE(s[std::size_t(i * ld + j)], -7.0);
    }
}

void TestKernels::contextIsFmaChains_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("dv");
    QTest::addColumn<int>("causalRow0");
    // Key counts across the 128-key blocks, value widths around 8 columns.
    const int shapes[][4] = {{1, 1, 1, -1},   {2, 5, 3, -1},      {5, 127, 8, -1},
                             {6, 128, 9, -1}, {7, 129, 64, -1},   {13, 300, 17, -1},
                             {64, 70, 5, 0},  {13, 300, 17, 100}, {64, 400, 12, 256}};
    for (const auto& s : shapes)
        QTest::newRow(
            qPrintable(QStringLiteral("rows%1 n%2 dv%3%4")
                           .arg(s[0])
                           .arg(s[1])
                           .arg(s[2])
                           .arg(s[3] >= 0 ? QStringLiteral(" causal from %1").arg(s[3]) : QString())))
            << s[0] << s[1] << s[2] << s[3];
}

void TestKernels::contextIsFmaChains()
{
    QFETCH(int, rows);
    QFETCH(int, n);
    QFETCH(int, dv);
    QFETCH(int, causalRow0);
    std::mt19937 rng(unsigned(rows * 1000 + n * 10 + dv));
    std::vector<double> w = randomValues(rng, std::size_t(rows) * std::size_t(n));
    const std::vector<double> v = randomValues(rng, std::size_t(n) * std::size_t(dv));
    // Causal rows hold zeros past their own key, as the engine's do.
    if (causalRow0 >= 0)
        for (int i = 0; i < rows; ++i)
            for (int j = causalRow0 + i + 1; j < n; ++j)
                w[std::size_t(i * n + j)] = 0.0;
    const std::ptrdiff_t ldZ = dv + 2;
    std::vector<double> z(std::size_t(rows) * std::size_t(ldZ), -7.0);
    attn::kernels::PackedValues packed;
    attn::kernels::packValues(v.data(), n, dv, &packed);
    attn::kernels::context(w.data(), n, rows, packed, z.data(), ldZ, causalRow0);
    for (int i = 0; i < rows; ++i) {
        const int keys = causalRow0 >= 0 ? std::min(n, causalRow0 + i + 1) : n;
        for (int c = 0; c < dv; ++c) {
            double chain = 0.0;
            for (int j = 0; j < keys; ++j)
                chain = std::fma(w[std::size_t(i * n + j)], v[std::size_t(j * dv + c)], chain);
            if (z[std::size_t(i * ldZ + c)] != chain)
                QFAIL(qPrintable(QStringLiteral("Z(%1, %2) = %3, the chain gives %4")
                                     .arg(i)
                                     .arg(c)
                                     .arg(z[std::size_t(i * ldZ + c)], 0, 'g', 17)
                                     .arg(chain, 0, 'g', 17)));
        }
        for (std::ptrdiff_t c = dv; c < ldZ; ++c)
            QCOMPARE(z[std::size_t(i * ldZ + c)], -7.0);
    }
}

namespace {

// Distance in units in the last place between two finite non-negative doubles.
std::int64_t ulps(double a, double b)
{
    std::int64_t ia, ib;
    std::memcpy(&ia, &a, sizeof a);
    std::memcpy(&ib, &b, sizeof b);
    return ia > ib ? ia - ib : ib - ia;
}

}  // namespace

void TestKernels::expWithinTwoUlp()
{
    // Against glibc's exp (correctly rounded but for rare cases) over the
    // softmax's range, x <= 0, densely near 0 and across the subnormals,
    // and a few positive values; exactly 1 at 0 and 0 below -745.2.
    std::mt19937 rng(3);
    std::vector<double> xs = {0.0,
                              -0.0,
                              -1e-300,
                              -1e-17,
                              -0.5 * std::log(2.0),
                              -std::log(2.0),
                              -1.0,
                              -708.3,
                              -708.4,
                              -709.0,
                              -720.0,
                              -744.4,
                              -745.1,
                              1.0,
                              700.0};
    std::uniform_real_distribution<double> wide(-745.0, 0.0), narrow(-1.0, 0.0), tiny(-1e-6, 0.0);
    for (int k = 0; k < 200000; ++k)
        xs.push_back(k % 3 == 0 ? wide(rng) : k % 3 == 1 ? narrow(rng) : tiny(rng));
    std::int64_t worst = 0;
    double worstX = 0;
    for (double x : xs) {
        const double got = attn::kernels::exp(x), want = std::exp(x);
        const std::int64_t d = ulps(got, want);
        if (d > worst) {
            worst = d;
            worstX = x;
        }
    }
    QVERIFY2(worst <= 2, qPrintable(QStringLiteral("%1 ulp at x = %2").arg(worst).arg(worstX, 0, 'g', 17)));
    QCOMPARE(attn::kernels::exp(0.0), 1.0);
    QCOMPARE(attn::kernels::exp(-745.3), 0.0);
    QCOMPARE(attn::kernels::exp(-1e300), 0.0);
}

void TestKernels::softmaxRowEntriesAreExp_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("spread");
    for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 100})
        QTest::newRow(qPrintable(QStringLiteral("n%1").arg(n))) << n << 3.0;
    QTest::newRow("n37 with underflowing weights") << 37 << 400.0;
}

void TestKernels::softmaxRowEntriesAreExp()
{
    // Each weight is exp(scaled - max) * invSum with the one-value exp, at
    // every position (the masked tail included); the scaled scores are the
    // plain division; the weights agree with std::exp's softmax.
    QFETCH(int, n);
    QFETCH(double, spread);
    std::mt19937 rng{unsigned(n)};
    std::normal_distribution<double> normal(0.0, spread);
    std::vector<double> in(static_cast<std::size_t>(n));
    for (double& x : in)
        x = normal(rng);
    const double divisor = std::sqrt(24.0);
    // Guards after the row: nothing may be written past n.
    std::vector<double> scaled(std::size_t(n) + 4, -7.0), out(std::size_t(n) + 4, -7.0);
    double max = 0, invSum = 0;
    attn::kernels::softmaxRow(in.data(), divisor, scaled.data(), out.data(), n, &max, &invSum);
    double plainMax = -INFINITY;
    for (int j = 0; j < n; ++j) {
        QCOMPARE(scaled[std::size_t(j)], in[std::size_t(j)] / divisor);
        plainMax = std::max(plainMax, scaled[std::size_t(j)]);
    }
    QCOMPARE(max, plainMax);
    double plainSum = 0;
    for (int j = 0; j < n; ++j)
        plainSum += std::exp(scaled[std::size_t(j)] - max);
    for (int j = 0; j < n; ++j) {
        const double x = scaled[std::size_t(j)] - max;
        QCOMPARE(out[std::size_t(j)], attn::kernels::exp(x) * invSum);
        QVERIFY(std::abs(out[std::size_t(j)] - std::exp(x) / plainSum)
                <= 1e-15 * std::exp(x) / plainSum + 1e-300);
    }
    for (std::size_t j = std::size_t(n); j < out.size(); ++j) {
        QCOMPARE(scaled[j], -7.0);
        QCOMPARE(out[j], -7.0);
    }
}

void TestKernels::switchedOffByEnvironmentOrCall()
{
    attn::kernels::setEnabled(false);
    QVERIFY(!attn::kernels::available());
    attn::kernels::setEnabled(true);
    QVERIFY(attn::kernels::available());
    // ATTNLAB_NO_AVX2 is read once per process: a child process shows it.
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ATTNLAB_NO_AVX2"), QStringLiteral("1"));
    env.insert(QStringLiteral("TST_KERNELS_PROBE"), QStringLiteral("1"));
    child.setProcessEnvironment(env);
    child.start(QCoreApplication::applicationFilePath(), QStringList());
    QVERIFY(child.waitForFinished(30000));
    QCOMPARE(child.exitCode(), 3);  // the probe's "not available"
}

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsSet("TST_KERNELS_PROBE")) {
        // The choice is made in main(), as attention-lab's does from --kernel.
        if (qEnvironmentVariableIntValue("ATTNLAB_NO_AVX2") == 1)
            attn::kernels::setEnabled(false);
        return attn::kernels::available() ? 4 : 3;
    }
    QCoreApplication app(argc, argv);
    TestKernels test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_kernels.moc"
