// SPDX-License-Identifier: GPL-3.0-or-later
// The d_k lab: its random stream against an independent splitmix64 and
// Box-Muller, its curves against a plain loop over the same draws, the theory
// (Var(q . k) = d_k, Var(q . k / sqrt(d_k)) = 1 within the standard error),
// the saturation trends, the comparison of one attention result against
// computeStatistics, and the d_k slider mapping.

#include "attention.h"
#include "model.h"
#include "scaling_lab.h"
#include "statistics.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

namespace {

bool closeRel(double a, double b, double tol)
{
    return std::abs(a - b) <= tol * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

// Written out again from the published algorithm, not shared with the lab.
std::uint64_t splitmixFinal(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// The lab's curves at every d_k of `dks`, by plain loops: all scores kept,
// softmax without the max shift, the Jacobian as an explicit matrix.
struct PlainCurves {
    std::vector<double> varRaw, maxRaw, maxScaled, entRaw, entScaled, gradRaw, gradScaled;
};

PlainCurves plainLab(int nKeys, int samples, std::uint64_t seed, const std::vector<int>& dks)
{
    const std::size_t G = dks.size();
    std::vector<std::vector<double>> allScores(G);
    PlainCurves c;
    c.maxRaw.assign(G, 0);
    c.maxScaled.assign(G, 0);
    c.entRaw.assign(G, 0);
    c.entScaled.assign(G, 0);
    c.gradRaw.assign(G, 0);
    c.gradScaled.assign(G, 0);
    auto rowStats = [](const std::vector<double>& s, double* mx, double* ent, double* grad) {
        const int n = int(s.size());
        std::vector<double> p(n);
        double sum = 0;
        for (int j = 0; j < n; ++j)
            sum += p[j] = std::exp(s[j]);
        double best = 0, h = 0, fro = 0;
        for (int j = 0; j < n; ++j) {
            p[j] /= sum;
            best = std::max(best, p[j]);
            h -= p[j] * std::log(p[j]);
        }
        // J = diag(p) - p p^T with J_ii = p_i (1 - p_i) = p_i sum_{j != i} p_j:
        // no cancellation even for a row that is one-hot to the last bit.
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double others = 0;
                for (int m = 0; m < n; ++m)
                    if (m != i)
                        others += p[m];
                const double jac = i == j ? p[i] * others : -p[i] * p[j];
                fro += jac * jac;
            }
        *mx += best;
        *ent += h;
        *grad += std::sqrt(fro);
    };
    for (int s = 0; s < samples; ++s) {
        attn::LabNormalStream rng(seed, std::uint64_t(s));
        const int dmax = dks.back();
        std::vector<double> q(dmax);
        std::vector<std::vector<double>> k(nKeys, std::vector<double>(dmax));
        for (int t = 0; t < dmax; ++t) {
            q[t] = rng.next();
            for (int j = 0; j < nKeys; ++j)
                k[j][t] = rng.next();
        }
        for (std::size_t g = 0; g < G; ++g) {
            const int d = dks[g];
            std::vector<double> raw(nKeys), scaled(nKeys);
            for (int j = 0; j < nKeys; ++j) {
                double dot = 0;
                for (int t = 0; t < d; ++t)
                    dot += q[t] * k[j][t];
                raw[j] = dot;
                scaled[j] = dot / std::sqrt(double(d));
                allScores[g].push_back(dot);
            }
            rowStats(raw, &c.maxRaw[g], &c.entRaw[g], &c.gradRaw[g]);
            rowStats(scaled, &c.maxScaled[g], &c.entScaled[g], &c.gradScaled[g]);
        }
    }
    for (std::size_t g = 0; g < G; ++g) {
        double mean = 0;
        for (double x : allScores[g])
            mean += x;
        mean /= double(allScores[g].size());
        double sq = 0;
        for (double x : allScores[g])
            sq += (x - mean) * (x - mean);
        c.varRaw.push_back(sq / double(allScores[g].size()));
        for (auto* v : {&c.maxRaw, &c.maxScaled, &c.entRaw, &c.entScaled, &c.gradRaw, &c.gradScaled})
            (*v)[g] /= samples;
    }
    return c;
}

std::size_t indexOf(const attn::ScalingLabCurves& c, int d)
{
    for (std::size_t g = 0; g < c.size(); ++g)
        if (c.dK[g] == d)
            return g;
    qFatal("d_k %d not in the grid", d);
    return 0;
}

}  // namespace

class TestScalingLab : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void defaultGridIsLogEven();
    void streamIsSplitmixBoxMuller();
    void streamIsStandardNormal();
    void streamDiscardSkipsWords();
    void curvesMatchPlainLoop_data();
    void curvesMatchPlainLoop();
    void varianceAtDkOneIsOne();
    void variancesMatchTheoryWithinStandardError();
    void standardErrorMatchesTheory();
    void unscaledSaturatesScaledStaysFlat();
    void scaledLimitIsSoftmaxOfStandardNormals();
    void curvesAreNestedAcrossGrids();
    void invalidConfigs_data();
    void invalidConfigs();
    void cancelStopsTheRun();
    void samplesWithinTheBudget();
    void progressCountsTheSamples();
    void comparisonMatchesEngine_data();
    void comparisonMatchesEngine();
    void sliderMapping();

private:
    attn::ScalingLabCurves defaults_;
};

void TestScalingLab::initTestCase()
{
    QElapsedTimer timer;
    timer.start();
    auto run = attn::runScalingLab(attn::ScalingLabConfig{});
    QVERIFY2(run.ok(), run.ok() ? "" : run.error().message.c_str());
    qInfo("default lab run: %lld ms", timer.elapsed());
    defaults_ = std::move(run).value();
    QCOMPARE(defaults_.nKeys, 6);
    QCOMPARE(defaults_.samples, 4000);
    QCOMPARE(defaults_.seed, std::uint64_t(2024));
}

void TestScalingLab::defaultGridIsLogEven()
{
    const std::vector<int> dks = attn::defaultScalingLabDks();
    QCOMPARE(dks.front(), 1);
    QCOMPARE(dks.back(), 1024);
    for (std::size_t i = 1; i < dks.size(); ++i)
        QVERIFY(dks[i] > dks[i - 1]);
    // 1, 2, 3, 4 are all there; each octave from 16 on holds 8 points.
    for (int d = 1; d <= 4; ++d)
        QVERIFY(std::count(dks.begin(), dks.end(), d) == 1);
    for (int lo = 16; lo < 1024; lo *= 2) {
        const auto inOctave =
            std::count_if(dks.begin(), dks.end(), [lo](int d) { return d > lo && d <= 2 * lo; });
        QCOMPARE(int(inOctave), 8);
    }
    QCOMPARE(defaults_.dK, dks);
}

void TestScalingLab::streamIsSplitmixBoxMuller()
{
    const std::uint64_t seed = 77, sample = 5;
    std::uint64_t state = splitmixFinal(seed + splitmixFinal(sample + 0x9E3779B97F4A7C15ULL));
    auto bits = [&state] {
        state += 0x9E3779B97F4A7C15ULL;
        return splitmixFinal(state);
    };
    attn::LabNormalStream stream(seed, sample);
    for (int pair = 0; pair < 50; ++pair) {
        const double u1 = (double(bits() >> 11) + 1.0) / 9007199254740992.0;
        const double u2 = double(bits() >> 11) / 9007199254740992.0;
        const double r = std::sqrt(-2.0 * std::log(u1));
        QCOMPARE(stream.next(), r * std::cos(2.0 * M_PI * u2));
        QCOMPARE(stream.next(), r * std::sin(2.0 * M_PI * u2));
    }
}

// discard(k) lands where k calls of nextBits() would, and drops a pending
// second normal.
void TestScalingLab::streamDiscardSkipsWords()
{
    for (std::uint64_t k : {0, 1, 2, 7, 1000}) {
        attn::LabNormalStream walked(42, 3), skipped(42, 3);
        for (std::uint64_t i = 0; i < k; ++i)
            walked.nextBits();
        skipped.discard(k);
        QCOMPARE(skipped.nextBits(), walked.nextBits());
        QCOMPARE(skipped.next(), walked.next());
    }
    attn::LabNormalStream whole(5, 0), split(5, 0);
    std::vector<double> normals;
    for (int i = 0; i < 10; ++i)
        normals.push_back(whole.next());
    split.next();          // a pair: the second normal is pending
    split.discard(2 * 3);  // drops it and skips three pairs' words
    QCOMPARE(split.next(), normals[8]);
    QCOMPARE(split.next(), normals[9]);
}

void TestScalingLab::streamIsStandardNormal()
{
    // 200 samples' streams of 2000 values: mean 0 (SE 1/sqrt(N)), variance 1
    // (SE sqrt(2/N)), fourth moment 3 (SE sqrt(96/N)); allow 5 SE.
    const int N = 400000;
    double s1 = 0, s2 = 0, s4 = 0;
    std::set<double> firsts;
    for (int sample = 0; sample < 200; ++sample) {
        attn::LabNormalStream rng(9, std::uint64_t(sample));
        for (int i = 0; i < N / 200; ++i) {
            const double x = rng.next();
            if (i == 0)
                firsts.insert(x);
            s1 += x;
            s2 += x * x;
            s4 += x * x * x * x;
        }
    }
    QVERIFY(std::abs(s1 / N) < 5.0 / std::sqrt(N));
    QVERIFY(std::abs(s2 / N - 1.0) < 5.0 * std::sqrt(2.0 / N));
    QVERIFY(std::abs(s4 / N - 3.0) < 5.0 * std::sqrt(96.0 / N));
    QCOMPARE(int(firsts.size()), 200);  // every sample starts its own stream
}

void TestScalingLab::curvesMatchPlainLoop_data()
{
    QTest::addColumn<int>("nKeys");
    QTest::addColumn<int>("samples");
    QTest::addColumn<std::vector<int>>("dks");
    QTest::newRow("6 keys, d_k 1 2 3 8") << 6 << 300 << std::vector<int>{1, 2, 3, 8};
    QTest::newRow("2 keys, d_k 1 and 64") << 2 << 200 << std::vector<int>{1, 64};
    QTest::newRow("17 keys, d_k 5 200") << 17 << 100 << std::vector<int>{5, 200};
}

void TestScalingLab::curvesMatchPlainLoop()
{
    QFETCH(int, nKeys);
    QFETCH(int, samples);
    QFETCH(std::vector<int>, dks);
    attn::ScalingLabConfig config;
    config.nKeys = nKeys;
    config.samples = samples;
    config.seed = 31337;
    config.dks = dks;
    const auto run = attn::runScalingLab(config);
    QVERIFY(run.ok());
    const attn::ScalingLabCurves& c = *run;
    const PlainCurves p = plainLab(nKeys, samples, config.seed, dks);
    QCOMPARE(c.dK, dks);
    for (std::size_t g = 0; g < dks.size(); ++g) {
        const QByteArray at = "d_k = " + QByteArray::number(dks[g]);
        QVERIFY2(closeRel(c.varRaw[g], p.varRaw[g], 1e-10), at);
        QVERIFY2(closeRel(c.varScaled[g], p.varRaw[g] / dks[g], 1e-10), at);
        QVERIFY2(closeRel(c.maxWeightRaw[g], p.maxRaw[g], 1e-10), at);
        QVERIFY2(closeRel(c.maxWeightScaled[g], p.maxScaled[g], 1e-10), at);
        QVERIFY2(closeRel(c.entropyRaw[g], p.entRaw[g], 1e-10), at);
        QVERIFY2(closeRel(c.entropyScaled[g], p.entScaled[g], 1e-10), at);
        // softmaxJacobianNorm takes a square root of sum_i p_i^2 (1 - 2 p_i)
        // + (sum_i p_i^2)^2, which cancels to rounding noise (~1e-16) for a
        // near one-hot row: that row's norm is then off by up to ~1e-8.
        QVERIFY2(std::abs(c.gradNormRaw[g] - p.gradRaw[g]) < 1e-8, at);
        QVERIFY2(closeRel(c.gradNormScaled[g], p.gradScaled[g], 1e-10), at);
    }
}

void TestScalingLab::varianceAtDkOneIsOne()
{
    // At d_k = 1 nothing is divided: raw and scaled coincide, and
    // Var(q k) = E[q^2] E[k^2] = 1 for independent standard normals.
    const std::size_t g = indexOf(defaults_, 1);
    QCOMPARE(defaults_.varScaled[g], defaults_.varRaw[g]);
    QCOMPARE(defaults_.maxWeightScaled[g], defaults_.maxWeightRaw[g]);
    QCOMPARE(defaults_.entropyScaled[g], defaults_.entropyRaw[g]);
    QVERIFY(std::abs(defaults_.varRaw[g] - 1.0) < 4.5 * defaults_.varRawStdErr[g]);
    // Uniform weights would give ln 6 and 1/6; a single d_k = 1 product is
    // already spread enough to sit visibly away from both ends.
    QVERIFY(defaults_.entropyRaw[g] < std::log(6.0) && defaults_.entropyRaw[g] > 1.0);
    QVERIFY(defaults_.maxWeightRaw[g] > 1.0 / 6 && defaults_.maxWeightRaw[g] < 0.6);
}

void TestScalingLab::variancesMatchTheoryWithinStandardError()
{
    for (std::size_t g = 0; g < defaults_.size(); ++g) {
        const double d = defaults_.dK[g];
        const QByteArray at = "d_k = " + QByteArray::number(d) + ": raw "
                              + QByteArray::number(defaults_.varRaw[g]) + " +- "
                              + QByteArray::number(defaults_.varRawStdErr[g]);
        QVERIFY2(std::abs(defaults_.varRaw[g] - d) <= 4.5 * defaults_.varRawStdErr[g], at);
        QVERIFY2(std::abs(defaults_.varScaled[g] - 1.0) <= 4.5 * defaults_.varScaledStdErr[g], at);
        // And the error is small enough for the claim to mean something: a
        // few percent, not a wide band around anything.
        QVERIFY2(defaults_.varScaledStdErr[g] < 0.04, at);
    }
}

void TestScalingLab::standardErrorMatchesTheory()
{
    // Given q, the n scores are iid N(0, |q|^2), so a sample's mean square
    // A = |q|^2 chi2_n / n has Var(A) = (d^2 + 2d)(1 + 2/n) - d^2 and the
    // estimate's standard error is about sqrt(Var(A) / N).
    const double n = defaults_.nKeys, N = defaults_.samples;
    for (std::size_t g = 0; g < defaults_.size(); ++g) {
        const double d = defaults_.dK[g];
        const double theory = std::sqrt(((d * d + 2 * d) * (1 + 2 / n) - d * d) / N);
        const double ratio = defaults_.varRawStdErr[g] / theory;
        QVERIFY2(ratio > 0.85 && ratio < 1.15,
                 QByteArray("d_k = ") + QByteArray::number(d) + " ratio " + QByteArray::number(ratio));
    }
}

void TestScalingLab::unscaledSaturatesScaledStaysFlat()
{
    const auto& c = defaults_;
    // Along the octaves 1, 2, 4, ..., 1024 the unscaled rows head for one-hot.
    std::vector<std::size_t> octaves;
    for (int d = 1; d <= 1024; d *= 2)
        octaves.push_back(indexOf(c, d));
    for (std::size_t i = 1; i < octaves.size(); ++i) {
        const std::size_t a = octaves[i - 1], b = octaves[i];
        QVERIFY(c.maxWeightRaw[b] > c.maxWeightRaw[a]);
        QVERIFY(c.entropyRaw[b] < c.entropyRaw[a]);
        QVERIFY(c.gradNormRaw[b] < c.gradNormRaw[a]);
    }
    const std::size_t last = octaves.back();
    QVERIFY(c.maxWeightRaw[last] > 0.95);
    QVERIFY(c.entropyRaw[last] < 0.15);
    QVERIFY(c.gradNormRaw[last] < 0.06);
    // The scaled curves are flat against the raw ones' travel. At d_k = 1
    // a score is a product of two normals, heavier-tailed than a normal; the
    // sum over d_k dimensions becomes normal quickly, and from d_k = 8 on the
    // scaled curves move by under 5% of the raw ones' range.
    auto range = [&c](const std::vector<double>& v, int fromDk) {
        const auto first = v.begin() + std::ptrdiff_t(indexOf(c, fromDk));
        const auto [lo, hi] = std::minmax_element(first, v.end());
        return *hi - *lo;
    };
    QVERIFY(range(c.maxWeightScaled, 1) < 0.15 * range(c.maxWeightRaw, 1));
    QVERIFY(range(c.entropyScaled, 1) < 0.15 * range(c.entropyRaw, 1));
    QVERIFY(range(c.gradNormScaled, 1) < 0.15 * range(c.gradNormRaw, 1));
    QVERIFY(range(c.maxWeightScaled, 8) < 0.05 * range(c.maxWeightRaw, 1));
    QVERIFY(range(c.entropyScaled, 8) < 0.05 * range(c.entropyRaw, 1));
    QVERIFY(range(c.gradNormScaled, 8) < 0.05 * range(c.gradNormRaw, 1));
    QVERIFY(c.gradNormScaled[last] > 5 * c.gradNormRaw[last]);
}

void TestScalingLab::scaledLimitIsSoftmaxOfStandardNormals()
{
    // For large d_k, q . k_j / sqrt(d_k) given q is N(0, |q|^2 / d_k) with
    // |q|^2 / d_k close to 1: the scaled rows tend to softmax of n iid
    // standard normals. Estimate that with another generator entirely.
    std::mt19937_64 gen(12345);
    std::normal_distribution<double> normal;
    const int rows = 200000, n = 6;
    double sumMax = 0, sumMax2 = 0, sumEnt = 0, sumEnt2 = 0;
    for (int r = 0; r < rows; ++r) {
        double s[n], sum = 0, best = 0, h = 0;
        for (double& x : s)
            sum += x = std::exp(normal(gen));
        for (double x : s) {
            best = std::max(best, x / sum);
            h -= x / sum * std::log(x / sum);
        }
        sumMax += best;
        sumMax2 += best * best;
        sumEnt += h;
        sumEnt2 += h * h;
    }
    const double meanMax = sumMax / rows, meanEnt = sumEnt / rows;
    // Row spread, for the lab's standard error over its 4000 samples.
    const double sdMax = std::sqrt(sumMax2 / rows - meanMax * meanMax);
    const double sdEnt = std::sqrt(sumEnt2 / rows - meanEnt * meanEnt);
    const std::size_t g = indexOf(defaults_, 1024);
    QVERIFY2(std::abs(defaults_.maxWeightScaled[g] - meanMax) < 5 * sdMax / std::sqrt(4000.0),
             QByteArray::number(defaults_.maxWeightScaled[g]) + " vs " + QByteArray::number(meanMax));
    QVERIFY2(std::abs(defaults_.entropyScaled[g] - meanEnt) < 5 * sdEnt / std::sqrt(4000.0),
             QByteArray::number(defaults_.entropyScaled[g]) + " vs " + QByteArray::number(meanEnt));
}

void TestScalingLab::curvesAreNestedAcrossGrids()
{
    // A sample does not depend on the grid: d_k = 40 comes out the same
    // whether the run stops there or goes on to 1024.
    attn::ScalingLabConfig small;
    small.samples = 200;
    small.dks = {3, 40};
    attn::ScalingLabConfig large = small;
    large.dks = {1, 40, 1024};
    const auto a = attn::runScalingLab(small);
    const auto b = attn::runScalingLab(large);
    QVERIFY(a.ok() && b.ok());
    QCOMPARE(a->varRaw[1], b->varRaw[1]);
    QCOMPARE(a->maxWeightRaw[1], b->maxWeightRaw[1]);
    QCOMPARE(a->gradNormScaled[1], b->gradNormScaled[1]);
}

void TestScalingLab::invalidConfigs_data()
{
    QTest::addColumn<int>("nKeys");
    QTest::addColumn<int>("samples");
    QTest::addColumn<std::vector<int>>("dks");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("one key") << 1 << 100 << std::vector<int>{} << "keys";
    QTest::newRow("too many keys") << 1025 << 1 << std::vector<int>{} << "1024";
    QTest::newRow("no samples") << 6 << 0 << std::vector<int>{} << "samples";
    QTest::newRow("too many samples") << 2 << 1000001 << std::vector<int>{1} << "1000000";
    QTest::newRow("d_k zero") << 6 << 10 << std::vector<int>{0, 4} << "d_k";
    QTest::newRow("d_k too large") << 6 << 10 << std::vector<int>{1025} << "1025";
    QTest::newRow("d_k repeated") << 6 << 10 << std::vector<int>{2, 2} << "increasing";
}

void TestScalingLab::invalidConfigs()
{
    QFETCH(int, nKeys);
    QFETCH(int, samples);
    QFETCH(std::vector<int>, dks);
    QFETCH(QString, mentions);
    attn::ScalingLabConfig config;
    config.nKeys = nKeys;
    config.samples = samples;
    config.dks = dks;
    const auto run = attn::runScalingLab(config);
    QVERIFY(!run.ok());
    const QString message = QString::fromStdString(run.error().message);
    QVERIFY2(message.contains(mentions), qPrintable(message));
}

void TestScalingLab::cancelStopsTheRun()
{
    std::atomic<bool> cancel{true};
    const auto run = attn::runScalingLab(attn::ScalingLabConfig{}, &cancel);
    QVERIFY(!run.ok());
    QVERIFY(QString::fromStdString(run.error().message).contains("cancelled"));
    QVERIFY(attn::isCancelled(run));
    // Bad settings are not a cancellation, with the flag set or not.
    attn::ScalingLabConfig bad;
    bad.nKeys = 0;
    QVERIFY(!attn::isCancelled(attn::runScalingLab(bad, &cancel)));
}

void TestScalingLab::samplesWithinTheBudget()
{
    // 2^25 draws over (n + 1) * 1024 per sample, floored.
    QCOMPARE(attn::scalingLabBudgetSamples(6), 4681);
    QCOMPARE(attn::scalingLabBudgetSamples(1000), 32);
    QCOMPARE(attn::scalingLabBudgetSamples(1024), 31);
    QCOMPARE(attn::scalingLabBudgetSamples(6, 64), 74898);
    QCOMPARE(attn::defaultScalingLabSamples(6), 4000);
    QCOMPARE(attn::defaultScalingLabSamples(64), 504);
    QCOMPARE(attn::defaultScalingLabSamples(1024), 31);
    // Beyond the budget is still a valid run, only a longer one.
    attn::ScalingLabConfig config;
    config.nKeys = 1024;
    config.samples = 40;
    config.dks = {1, 2};
    QVERIFY(attn::validateScalingLabConfig(config).ok());
}

void TestScalingLab::progressCountsTheSamples()
{
    attn::ScalingLabConfig config;
    config.samples = 250;
    config.dks = {1, 8};
    std::vector<int> done;
    const auto run = attn::runScalingLab(config, nullptr, [&](int d, int total) {
        QCOMPARE(total, 250);
        done.push_back(d);
    });
    QVERIFY(run.ok());
    // Every 2 samples (1% of 250, floored), then the end.
    QCOMPARE(int(done.size()), 125);
    QCOMPARE(done.front(), 2);
    QCOMPARE(done[61], 124);
    QCOMPARE(done.back(), 250);
    QVERIFY(std::is_sorted(done.begin(), done.end()));
    // The same numbers as without a callback.
    QCOMPARE(run->varRaw, attn::runScalingLab(config)->varRaw);
}

void TestScalingLab::comparisonMatchesEngine_data()
{
    QTest::addColumn<int>("dK");
    QTest::addColumn<bool>("causal");
    QTest::newRow("d_k 64") << 64 << false;
    QTest::newRow("d_k 64 causal") << 64 << true;
    QTest::newRow("d_k 1") << 1 << false;
    QTest::newRow("d_k 700 causal") << 700 << true;
}

void TestScalingLab::comparisonMatchesEngine()
{
    QFETCH(int, dK);
    QFETCH(bool, causal);
    attn::ModelConfig config;
    config.init = attn::InitMode::UnitVariance;
    config.dModel = 32;
    config.dK = dK;
    config.dV = 8;
    const auto model = attn::buildModel(config);
    QVERIFY(model.ok());
    attn::AttentionOptions scaled;
    scaled.causal = causal;
    attn::AttentionOptions unscaled = scaled;
    unscaled.scale = attn::ScaleMode::None;
    const auto rs = attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, scaled);
    const auto ru = attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, unscaled);
    QVERIFY(rs.ok() && ru.ok());
    const attn::AttentionStats ss = attn::computeStatistics(*rs);
    const attn::AttentionStats su = attn::computeStatistics(*ru);

    // Whatever scale mode the result came from, the comparison is the same.
    for (const attn::AttentionResult* r : {&*rs, &*ru}) {
        const attn::ScalingComparison c = attn::compareScaling(*r);
        QCOMPARE(c.dK, dK);
        QCOMPARE(c.divisor, std::sqrt(double(dK)));
        QVERIFY((c.weightsScaled.array() == rs->weightsMatrix().array()).all());
        QVERIFY((c.weightsUnscaled.array() == ru->weightsMatrix().array()).all());
        QVERIFY(closeRel(c.varRaw, ss.rawVariance, 1e-13));
        QVERIFY(closeRel(c.varScaled, ss.scaledVariance, 1e-13));
        QVERIFY(closeRel(c.varScaled, c.varRaw / dK, 1e-12));
        QVERIFY(closeRel(c.meanMaxScaled, ss.meanMaxWeight, 1e-14));
        QVERIFY(closeRel(c.meanEntropyScaled, ss.meanEntropyNats, 1e-14));
        QVERIFY(closeRel(c.meanGradScaled, ss.meanJacobianNorm, 1e-14));
        QVERIFY(closeRel(c.meanMaxRaw, su.meanMaxWeight, 1e-14));
        QVERIFY(closeRel(c.meanEntropyRaw, su.meanEntropyNats, 1e-14));
        QVERIFY(closeRel(c.meanGradRaw, su.meanJacobianNorm, 1e-14));
    }
    // Unit-variance q and k: the raw score variance grows like d_k.
    const attn::ScalingComparison c = attn::compareScaling(*rs);
    if (dK >= 64) {
        QVERIFY(c.varRaw > 10 * c.varScaled);
        QVERIFY(c.meanMaxRaw > c.meanMaxScaled);
    }
}

void TestScalingLab::sliderMapping()
{
    QCOMPARE(attn::dkFromSliderPosition(0), 1);
    QCOMPARE(attn::dkFromSliderPosition(attn::kDkSliderPositions), 1024);
    QCOMPARE(attn::dkFromSliderPosition(-5), 1);
    QCOMPARE(attn::dkFromSliderPosition(attn::kDkSliderPositions + 5), 1024);
    // Every octave gets the same travel: 2^k sits at position k / 10 of it.
    for (int k = 0; k <= 10; ++k)
        QCOMPARE(attn::dkFromSliderPosition(k * attn::kDkSliderPositions / 10), 1 << k);
    std::set<int> reachable;
    for (int p = 0; p <= attn::kDkSliderPositions; ++p) {
        const int d = attn::dkFromSliderPosition(p);
        if (p > 0)
            QVERIFY(d >= attn::dkFromSliderPosition(p - 1));
        reachable.insert(d);
    }
    for (int d = 1; d <= 128; ++d)
        QVERIFY2(reachable.count(d), QByteArray::number(d));
    for (int d = 1; d <= 1024; ++d) {
        const int p = attn::sliderPositionFromDk(d);
        QVERIFY(p >= 0 && p <= attn::kDkSliderPositions);
        const int back = attn::dkFromSliderPosition(p);
        if (reachable.count(d)) {
            QCOMPARE(back, d);
            QVERIFY(p == 0 || attn::dkFromSliderPosition(p - 1) < d);  // the first such position
        } else {
            // The nearest reachable value.
            for (int r : reachable)
                QVERIFY2(std::abs(back - d) <= std::abs(r - d), QByteArray::number(d));
        }
    }
    QCOMPARE(attn::sliderPositionFromDk(0), 0);
    QCOMPARE(attn::sliderPositionFromDk(5000), attn::kDkSliderPositions);
}

QTEST_APPLESS_MAIN(TestScalingLab)
#include "tst_scaling_lab.moc"
