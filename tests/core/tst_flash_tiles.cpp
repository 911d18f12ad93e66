// SPDX-License-Identifier: GPL-3.0-or-later
// FlashAttention's tiles and the online softmax (flash_tiles.h) against an
// independent plain-loop implementation written here (std::vector, one loop
// per line of the recurrence, the mask as its formula), over many shapes,
// blocks that do and do not divide n, every mask and scale mode; the final
// context against the direct pass (attention.h) and against a plain
// softmax; a hand-worked case of m, l, rescale and O; the masks against
// their formulas; the refusals.

#include "attention.h"
#include "attention_mask.h"
#include "flash_tiles.h"
#include "kernels.h"
#include "model.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using Rows = std::vector<std::vector<double>>;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The masks' formulas as the issue writes them, apart from AttentionMask.
bool plainHides(const std::string& mask, int window, int sink, int i, int j)
{
    if (mask == "none")
        return false;
    if (mask == "causal")
        return !(j <= i);
    if (mask == "sliding")
        return !(i - window < j && j <= i);
    return !(j <= i && (j < sink || i - window < j));  // sink + window
}

struct PlainStep {
    int q0, q1, k0, k1;
    bool skipped;
    std::vector<double> m, l, rescale;
    Rows O;
};

struct PlainRun {
    std::vector<PlainStep> steps;
    Rows context;
};

Rows rowsOf(const attn::Matrix& m)
{
    Rows out(std::size_t(m.rows()), std::vector<double>(std::size_t(m.cols())));
    for (int i = 0; i < m.rows(); ++i)
        for (int j = 0; j < m.cols(); ++j)
            out[std::size_t(i)][std::size_t(j)] = m(i, j);
    return out;
}

// The tiled pass as a textbook would loop it.
PlainRun plainFlash(const Rows& q, const Rows& k, const Rows& v, double divisor, const std::string& mask,
                    int window, int sink, int br, int bc)
{
    const int n = int(q.size());
    const int dk = int(q[0].size());
    const int dv = int(v[0].size());
    PlainRun run;
    run.context.assign(std::size_t(n), std::vector<double>(std::size_t(dv), 0.0));
    for (int q0 = 0; q0 < n; q0 += br) {
        const int q1 = std::min(q0 + br, n) - 1;
        const int rows = q1 - q0 + 1;
        std::vector<double> m(std::size_t(rows), -kInf), l(std::size_t(rows), 0.0);
        Rows O(std::size_t(rows), std::vector<double>(std::size_t(dv), 0.0));
        for (int k0 = 0; k0 < n; k0 += bc) {
            const int k1 = std::min(k0 + bc, n) - 1;
            PlainStep step{q0, q1, k0, k1, true, {}, {}, std::vector<double>(std::size_t(rows), 1.0), {}};
            for (int i = q0; i <= q1; ++i)
                for (int j = k0; j <= k1; ++j)
                    if (!plainHides(mask, window, sink, i, j))
                        step.skipped = false;
            if (!step.skipped) {
                for (int a = 0; a < rows; ++a) {
                    const int i = q0 + a;
                    std::vector<double> s(std::size_t(k1 - k0 + 1), -kInf);
                    double tileMax = -kInf;
                    for (int j = k0; j <= k1; ++j) {
                        if (plainHides(mask, window, sink, i, j))
                            continue;
                        double dot = 0.0;
                        for (int t = 0; t < dk; ++t)
                            dot += q[std::size_t(i)][std::size_t(t)] * k[std::size_t(j)][std::size_t(t)];
                        s[std::size_t(j - k0)] = dot / divisor;
                        tileMax = std::max(tileMax, dot / divisor);
                    }
                    const double mNew = std::max(m[std::size_t(a)], tileMax);
                    if (mNew == -kInf)
                        continue;  // nothing seen yet, nothing here
                    const double r = mNew == m[std::size_t(a)] ? 1.0 : std::exp(m[std::size_t(a)] - mNew);
                    step.rescale[std::size_t(a)] = r;
                    l[std::size_t(a)] *= r;
                    for (int c = 0; c < dv; ++c)
                        O[std::size_t(a)][std::size_t(c)] *= r;
                    for (int j = k0; j <= k1; ++j) {
                        if (s[std::size_t(j - k0)] == -kInf)
                            continue;
                        const double p = std::exp(s[std::size_t(j - k0)] - mNew);
                        l[std::size_t(a)] += p;
                        for (int c = 0; c < dv; ++c)
                            O[std::size_t(a)][std::size_t(c)] += p * v[std::size_t(j)][std::size_t(c)];
                    }
                    m[std::size_t(a)] = mNew;
                }
            }
            step.m = m;
            step.l = l;
            step.O = O;
            run.steps.push_back(step);
        }
        for (int a = 0; a < rows; ++a)
            for (int c = 0; c < dv; ++c)
                run.context[std::size_t(q0 + a)][std::size_t(c)] =
                    O[std::size_t(a)][std::size_t(c)] / l[std::size_t(a)];
    }
    return run;
}

// softmax(Q K^T / divisor) V over the whole matrix, the mask's entries -inf.
Rows plainDirect(const Rows& q, const Rows& k, const Rows& v, double divisor, const std::string& mask,
                 int window, int sink)
{
    const std::size_t n = q.size();
    Rows z(n, std::vector<double>(v[0].size(), 0.0));
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> s(n, -kInf);
        double largest = -kInf;
        for (std::size_t j = 0; j < n; ++j) {
            if (plainHides(mask, window, sink, int(i), int(j)))
                continue;
            double dot = 0.0;
            for (std::size_t t = 0; t < q[0].size(); ++t)
                dot += q[i][t] * k[j][t];
            s[j] = dot / divisor;
            largest = std::max(largest, s[j]);
        }
        double sum = 0.0;
        for (double& x : s)
            sum += x = x == -kInf ? 0.0 : std::exp(x - largest);
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t c = 0; c < v[0].size(); ++c)
                z[i][c] += s[j] / sum * v[j][c];
    }
    return z;
}

attn::Matrix randomMatrix(int rows, int cols, std::mt19937_64& rng, double scale)
{
    std::normal_distribution<double> normal(0.0, scale);
    attn::Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = normal(rng);
    return m;
}

// |a - b| <= tol * max(1, |b|).
bool near(double a, double b, double tol)
{
    if (a == b)
        return true;  // -inf and -inf
    return std::abs(a - b) <= tol * std::max(1.0, std::abs(b));
}

attn::AttentionMask maskOf(const std::string& mask, int window, int sink)
{
    if (mask == "none")
        return attn::AttentionMask::none();
    if (mask == "causal")
        return attn::AttentionMask::causal();
    if (mask == "sliding")
        return attn::AttentionMask::sliding(window);
    return attn::AttentionMask::sinkWindow(sink, window);
}

}  // namespace

class TestFlashTiles : public QObject {
    Q_OBJECT
private slots:
    void againstPlainLoops_data();
    void againstPlainLoops();
    void againstDirectPass_data();
    void againstDirectPass();
    void handWorkedTwoByTwo();
    void handWorkedCausal();
    void articleSentenceTwoByThree();
    void rowWithNoKeyYetKeepsItsState();
    void masksAgainstFormulas();
    void maskTiles();
    void parseMasks();
    void refusals();
    void visitorlessRunGivesSameContext();
};

void TestFlashTiles::againstPlainLoops_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("dk");
    QTest::addColumn<int>("dv");
    QTest::addColumn<int>("br");
    QTest::addColumn<int>("bc");
    QTest::addColumn<QString>("mask");
    QTest::addColumn<int>("window");
    QTest::addColumn<int>("sink");
    QTest::addColumn<double>("divisor");
    QTest::addColumn<double>("spread");
    QTest::addColumn<bool>("baseline");  // Eigen's products instead of the AVX2 kernels
    const int shapes[][5] = {{1, 1, 1, 1, 1},  {2, 3, 2, 1, 1},   {5, 4, 3, 2, 2},   {6, 8, 5, 2, 3},
                             {7, 3, 6, 3, 2},  {7, 5, 2, 7, 7},   {9, 6, 4, 4, 5},   {13, 7, 9, 5, 3},
                             {16, 8, 8, 4, 4}, {17, 4, 3, 16, 1}, {23, 9, 11, 6, 7}, {40, 16, 12, 9, 11}};
    const char* masks[] = {"none", "causal", "sliding", "sink"};
    for (const auto& s : shapes) {
        for (const char* mask : masks) {
            for (const auto& [divisor, spread] : {std::pair{-1.0, 1.0}, {1.0, 3.0}, {0.25, 0.5}}) {
                const double d = divisor < 0 ? std::sqrt(double(s[1])) : divisor;
                const int window = std::max(1, s[0] / 3);
                const int sink = std::min(2, s[0] - 1);
                for (bool baseline : {false, true})
                    QTest::addRow("n%d dk%d dv%d %dx%d %s div%g spread%g%s", s[0], s[1], s[2], s[3], s[4],
                                  mask, d, spread, baseline ? " baseline" : "")
                        << s[0] << s[1] << s[2] << s[3] << s[4] << QString::fromLatin1(mask) << window << sink
                        << d << spread << baseline;
            }
        }
    }
}

void TestFlashTiles::againstPlainLoops()
{
    QFETCH(int, n);
    QFETCH(int, dk);
    QFETCH(int, dv);
    QFETCH(int, br);
    QFETCH(int, bc);
    QFETCH(QString, mask);
    QFETCH(int, window);
    QFETCH(int, sink);
    QFETCH(double, divisor);
    QFETCH(double, spread);
    QFETCH(bool, baseline);
    attn::kernels::setEnabled(!baseline);
    const auto restore = qScopeGuard([] { attn::kernels::setEnabled(true); });
    std::mt19937_64 rng(std::uint64_t(n * 1000 + dk * 31 + br * 7 + bc));
    const attn::Matrix Q = randomMatrix(n, dk, rng, spread);
    const attn::Matrix K = randomMatrix(n, dk, rng, spread);
    const attn::Matrix V = randomMatrix(n, dv, rng, 1.0);
    const std::string m = mask.toStdString();
    const attn::Expected<attn::FlashRun> run =
        attn::flashAttentionSteps(Q, K, V, divisor, maskOf(m, window, sink), br, bc);
    QVERIFY2(run.ok(), run.ok() ? "" : run.error().message.c_str());
    const PlainRun plain = plainFlash(rowsOf(Q), rowsOf(K), rowsOf(V), divisor, m, window, sink, br, bc);

    QCOMPARE(run->steps.size(), plain.steps.size());
    QCOMPARE(qint64(run->steps.size()), qint64(attn::flashStepCount(n, br, bc)));
    QCOMPARE(qint64(plain.steps.size()), qint64(((n + br - 1) / br) * ((n + bc - 1) / bc)));
    constexpr double tol = 1e-12;
    for (std::size_t t = 0; t < plain.steps.size(); ++t) {
        const attn::FlashStep& got = run->steps[t];
        const PlainStep& want = plain.steps[t];
        QCOMPARE(got.index, int(t));
        QCOMPARE(got.queryFirst, want.q0);
        QCOMPARE(got.queryLast, want.q1);
        QCOMPARE(got.keyFirst, want.k0);
        QCOMPARE(got.keyLast, want.k1);
        QCOMPARE(got.skipped, want.skipped);
        QCOMPARE(got.rows(), int(want.m.size()));
        QCOMPARE(int(got.O.cols()), dv);
        for (int a = 0; a < got.rows(); ++a) {
            const auto at = [&](const char* what) {
                return qPrintable(QStringLiteral("step %1 row %2 %3").arg(t).arg(a).arg(QLatin1String(what)));
            };
            QVERIFY2(near(got.m(a), want.m[std::size_t(a)], tol), at("m"));
            QVERIFY2(near(got.l(a), want.l[std::size_t(a)], tol), at("l"));
            QVERIFY2(near(got.rescale(a), want.rescale[std::size_t(a)], tol), at("rescale"));
            for (int c = 0; c < dv; ++c)
                QVERIFY2(near(got.O(a, c), want.O[std::size_t(a)][std::size_t(c)], tol), at("O"));
        }
    }
    // O / l against the plain tiled loop and the plain softmax over the whole matrix.
    const Rows direct = plainDirect(rowsOf(Q), rowsOf(K), rowsOf(V), divisor, m, window, sink);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < dv; ++c) {
            QVERIFY(near(run->context(i, c), plain.context[std::size_t(i)][std::size_t(c)], tol));
            QVERIFY(near(run->context(i, c), direct[std::size_t(i)][std::size_t(c)], tol));
        }
}

void TestFlashTiles::againstDirectPass_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("br");
    QTest::addColumn<int>("bc");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("scale");  // ScaleMode
    for (const auto& [n, br, bc] : {std::tuple{6, 2, 3},
                                    {6, 4, 4},
                                    {11, 3, 5},
                                    {64, 16, 16},
                                    {97, 10, 33},
                                    {200, 64, 48},
                                    {300, 300, 1},
                                    {257, 1, 256}}) {
        for (bool causal : {false, true})
            for (int scale : {0, 1, 2})
                QTest::addRow("n%d %dx%d%s scale%d", n, br, bc, causal ? " causal" : "", scale)
                    << n << br << bc << causal << scale;
    }
}

void TestFlashTiles::againstDirectPass()
{
    QFETCH(int, n);
    QFETCH(int, br);
    QFETCH(int, bc);
    QFETCH(bool, causal);
    QFETCH(int, scale);
    std::mt19937_64 rng(std::uint64_t(n * 7 + br));
    const attn::Matrix X = randomMatrix(n, 16, rng, 1.0);
    const attn::Matrix Wq = randomMatrix(16, 12, rng, 0.7);
    const attn::Matrix Wk = randomMatrix(16, 12, rng, 0.7);
    const attn::Matrix Wv = randomMatrix(16, 10, rng, 1.0);
    attn::AttentionOptions options;
    options.scale = attn::ScaleMode(scale);
    options.customDivisor = 0.8;
    options.causal = causal;
    const attn::Expected<attn::AttentionResult> direct = attn::computeAttention(X, Wq, Wk, Wv, options);
    QVERIFY(direct.ok());
    long long steps = 0, skipped = 0;
    const attn::Expected<attn::Matrix> context =
        attn::flashAttention(direct->Q, direct->K, direct->V, direct->divisor,
                             causal ? attn::AttentionMask::causal() : attn::AttentionMask::none(), br, bc,
                             [&](const attn::FlashStep& step) {
                                 ++steps;
                                 skipped += step.skipped;
                                 // Causal: a tile is skipped exactly when its first key follows its last
                                 // query.
                                 QCOMPARE(step.skipped, causal && step.keyFirst > step.queryLast);
                             });
    QVERIFY(context.ok());
    QCOMPARE(steps, attn::flashStepCount(n, br, bc));
    if (!causal)
        QCOMPARE(skipped, 0LL);
    const double largest = direct->context.cwiseAbs().maxCoeff();
    const double diff = attn::maxAbsDifference(context.value(), direct->context);
    QVERIFY2(diff <= 1e-12 * std::max(1.0, largest), qPrintable(QString::number(diff)));
}

// n = 4, d_k = d_v = 1, divisor 1, blocks 2 x 2. q = (1, -1, 0, 2),
// k = (0, 1, 2, 0), v = (1, 2, 3, 4). Rows 0 and 1 by hand (e = exp(1)):
//   row 0 scores (0, 1, 2, 0)
//     step 0 (keys 0-1): m = 1, l = e^-1 + 1, O = e^-1 + 2, rescale exp(-inf - 1) = 0
//     step 1 (keys 2-3): m = 2, rescale e^-1,
//                        l = e^-1 (1 + e^-1) + 1 + e^-2 = 1 + e^-1 + 2 e^-2
//                        O = e^-1 (2 + e^-1) + 3 + 4 e^-2 = 3 + 2 e^-1 + 5 e^-2
//   row 1 scores (0, -1, -2, 0)
//     step 0: m = 0, l = 1 + e^-1, O = 1 + 2 e^-1, rescale 0
//     step 1: the tile's largest is 0 = m: rescale 1,
//             l = 2 + e^-1 + e^-2, O = 5 + 2 e^-1 + 3 e^-2
void TestFlashTiles::handWorkedTwoByTwo()
{
    attn::Matrix Q(4, 1), K(4, 1), V(4, 1);
    Q << 1, -1, 0, 2;
    K << 0, 1, 2, 0;
    V << 1, 2, 3, 4;
    const attn::Expected<attn::FlashRun> run =
        attn::flashAttentionSteps(Q, K, V, 1.0, attn::AttentionMask::none(), 2, 2);
    QVERIFY(run.ok());
    QCOMPARE(int(run->steps.size()), 4);
    const double e1 = std::exp(-1.0), e2 = std::exp(-2.0);
    const attn::FlashStep& s0 = run->steps[0];
    QCOMPARE(s0.queryFirst, 0);
    QCOMPARE(s0.queryLast, 1);
    QCOMPARE(s0.keyFirst, 0);
    QCOMPARE(s0.keyLast, 1);
    QVERIFY(!s0.skipped);
    QCOMPARE(s0.m(0), 1.0);
    QCOMPARE(s0.m(1), 0.0);
    QCOMPARE(s0.rescale(0), 0.0);
    QCOMPARE(s0.rescale(1), 0.0);
    QVERIFY(near(s0.l(0), e1 + 1, 1e-15));
    QVERIFY(near(s0.l(1), 1 + e1, 1e-15));
    QVERIFY(near(s0.O(0, 0), e1 + 2, 1e-15));
    QVERIFY(near(s0.O(1, 0), 1 + 2 * e1, 1e-15));
    const attn::FlashStep& s1 = run->steps[1];
    QCOMPARE(s1.keyFirst, 2);
    QCOMPARE(s1.keyLast, 3);
    QCOMPARE(s1.m(0), 2.0);
    QCOMPARE(s1.m(1), 0.0);
    QVERIFY(near(s1.rescale(0), e1, 1e-15));
    QCOMPARE(s1.rescale(1), 1.0);
    QVERIFY(near(s1.l(0), 1 + e1 + 2 * e2, 1e-15));
    QVERIFY(near(s1.l(1), 2 + e1 + e2, 1e-15));
    QVERIFY(near(s1.O(0, 0), 3 + 2 * e1 + 5 * e2, 1e-15));
    QVERIFY(near(s1.O(1, 0), 5 + 2 * e1 + 3 * e2, 1e-15));
    QVERIFY(near(run->context(0, 0), (3 + 2 * e1 + 5 * e2) / (1 + e1 + 2 * e2), 1e-15));
    QVERIFY(near(run->context(1, 0), (5 + 2 * e1 + 3 * e2) / (2 + e1 + e2), 1e-15));
    // Second query block: rows 2 (q = 0: every score 0) and 3 (q = 2: scores 0, 2, 4, 0).
    const attn::FlashStep& s3 = run->steps[3];
    QCOMPARE(s3.queryFirst, 2);
    QCOMPARE(s3.queryLast, 3);
    QCOMPARE(s3.m(0), 0.0);
    QCOMPARE(s3.rescale(0), 1.0);
    QVERIFY(near(s3.l(0), 4.0, 1e-15));
    QVERIFY(near(run->context(2, 0), 2.5, 1e-15));
    QCOMPARE(s3.m(1), 4.0);
    QVERIFY(near(s3.rescale(1), e2, 1e-15));
    QVERIFY(near(s3.l(1), e2 * (1 + e2) + 1 + std::exp(-4.0), 1e-15));
}

// The same numbers with the causal mask: tile (rows 0-1, keys 2-3) is
// hidden and skipped; row 0 sees key 0 alone (m 0, l 1, O 1), row 1 keys 0
// and 1 (m 0, l 1 + e^-1, O 1 + 2 e^-1); the skipped step keeps them with
// rescale 1.
void TestFlashTiles::handWorkedCausal()
{
    attn::Matrix Q(4, 1), K(4, 1), V(4, 1);
    Q << 1, -1, 0, 2;
    K << 0, 1, 2, 0;
    V << 1, 2, 3, 4;
    const attn::Expected<attn::FlashRun> run =
        attn::flashAttentionSteps(Q, K, V, 1.0, attn::AttentionMask::causal(), 2, 2);
    QVERIFY(run.ok());
    const double e1 = std::exp(-1.0);
    for (int t : {0, 1}) {
        const attn::FlashStep& s = run->steps[std::size_t(t)];
        QCOMPARE(s.skipped, t == 1);
        QCOMPARE(s.m(0), 0.0);
        QCOMPARE(s.m(1), 0.0);
        QCOMPARE(s.l(0), 1.0);
        QVERIFY(near(s.l(1), 1 + e1, 1e-15));
        QCOMPARE(s.O(0, 0), 1.0);
        QVERIFY(near(s.O(1, 0), 1 + 2 * e1, 1e-15));
        QCOMPARE(s.rescale(0), t == 1 ? 1.0 : 0.0);
        QCOMPARE(s.rescale(1), t == 1 ? 1.0 : 0.0);
    }
    QVERIFY(!run->steps[2].skipped);
    QVERIFY(!run->steps[3].skipped);
    QCOMPARE(run->context(0, 0), 1.0);
}

// The article's sentence (6 tokens) in 2 x 3 tiles: 3 query blocks times 2
// key blocks; causal skips the one tile (rows 0-1, keys 3-5) above the
// diagonal.
void TestFlashTiles::articleSentenceTwoByThree()
{
    const attn::ModelConfig config;
    const attn::Expected<attn::Model> model = attn::buildModel(config);
    QVERIFY(model.ok());
    QCOMPARE(int(model->X.rows()), 6);
    for (bool causal : {false, true}) {
        attn::AttentionOptions options;
        options.causal = causal;
        const attn::Expected<attn::AttentionResult> direct =
            attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, options);
        QVERIFY(direct.ok());
        const attn::Expected<attn::FlashRun> run = attn::flashAttentionSteps(
            direct->Q, direct->K, direct->V, direct->divisor,
            causal ? attn::AttentionMask::causal() : attn::AttentionMask::none(), 2, 3);
        QVERIFY(run.ok());
        const int expected[6][4] = {{0, 1, 0, 2}, {0, 1, 3, 5}, {2, 3, 0, 2},
                                    {2, 3, 3, 5}, {4, 5, 0, 2}, {4, 5, 3, 5}};
        QCOMPARE(int(run->steps.size()), 6);
        for (int t = 0; t < 6; ++t) {
            const attn::FlashStep& s = run->steps[std::size_t(t)];
            QCOMPARE(s.queryFirst, expected[t][0]);
            QCOMPARE(s.queryLast, expected[t][1]);
            QCOMPARE(s.keyFirst, expected[t][2]);
            QCOMPARE(s.keyLast, expected[t][3]);
            QCOMPARE(s.skipped, causal && t == 1);
        }
        // The plain loop agrees on every state of this case too.
        const PlainRun plain = plainFlash(rowsOf(direct->Q), rowsOf(direct->K), rowsOf(direct->V),
                                          direct->divisor, causal ? "causal" : "none", 0, 0, 2, 3);
        for (int t = 0; t < 6; ++t)
            for (int a = 0; a < 2; ++a) {
                QVERIFY(near(run->steps[std::size_t(t)].m(a), plain.steps[std::size_t(t)].m[std::size_t(a)],
                             1e-12));
                QVERIFY(near(run->steps[std::size_t(t)].l(a), plain.steps[std::size_t(t)].l[std::size_t(a)],
                             1e-12));
            }
        const double diff = attn::maxAbsDifference(run->context, direct->context);
        QVERIFY2(diff <= 1e-12 * std::max(1.0, direct->context.cwiseAbs().maxCoeff()),
                 qPrintable(QString::number(diff)));
    }
}

// Sliding window 2 at n = 6, blocks 3 x 3: row 5 sees keys 4 and 5 only, so
// after the first key block (keys 0-2) its m is still -inf, l 0, O 0 and
// rescale 1; the block's tile is not skipped (row 3 sees key 2).
void TestFlashTiles::rowWithNoKeyYetKeepsItsState()
{
    std::mt19937_64 rng(5);
    const attn::Matrix Q = randomMatrix(6, 3, rng, 1.0);
    const attn::Matrix K = randomMatrix(6, 3, rng, 1.0);
    const attn::Matrix V = randomMatrix(6, 2, rng, 1.0);
    const attn::Expected<attn::FlashRun> run =
        attn::flashAttentionSteps(Q, K, V, 1.0, attn::AttentionMask::sliding(2), 3, 3);
    QVERIFY(run.ok());
    const attn::FlashStep& s = run->steps[2];  // rows 3-5, keys 0-2
    QCOMPARE(s.queryFirst, 3);
    QCOMPARE(s.keyFirst, 0);
    QVERIFY(!s.skipped);
    QVERIFY(std::isfinite(s.m(0)));  // row 3 saw key 2
    QCOMPARE(s.m(1), -kInf);         // row 4 sees keys 3, 4
    QCOMPARE(s.m(2), -kInf);
    QCOMPARE(s.l(2), 0.0);
    QCOMPARE(s.rescale(2), 1.0);
    QCOMPARE(s.O(2, 0), 0.0);
    // Rows 0-2 see keys up to 2 only: their tile of keys 3-5 is hidden and skipped.
    QVERIFY(run->steps[1].skipped);
    QCOMPARE(run->steps[1].rescale(2), 1.0);
}

void TestFlashTiles::masksAgainstFormulas()
{
    for (int n : {1, 5, 12}) {
        for (const auto& [mask, window, sink] : {std::tuple{"none", 1, 0},
                                                 {"causal", 1, 0},
                                                 {"sliding", 1, 0},
                                                 {"sliding", 3, 0},
                                                 {"sliding", 40, 0},
                                                 {"sink", 2, 0},
                                                 {"sink", 2, 1},
                                                 {"sink", 3, 4},
                                                 {"sink", 1, 20}}) {
            const attn::AttentionMask m = maskOf(mask, window, sink);
            for (int i = 0; i < n; ++i) {
                bool seesSome = false;
                for (int j = 0; j < n; ++j) {
                    QCOMPARE(m.hides(i, j), plainHides(mask, window, sink, i, j));
                    seesSome = seesSome || !m.hides(i, j);
                }
                QVERIFY(!m.hides(i, i));  // the diagonal is kept
                QVERIFY(seesSome);
            }
        }
    }
}

void TestFlashTiles::maskTiles()
{
    // hidesTile against every entry of the tile, for every tile of several cuttings.
    const int n = 14;
    for (const auto& [mask, window, sink] :
         {std::tuple{"none", 1, 0}, {"causal", 1, 0}, {"sliding", 3, 0}, {"sink", 2, 2}, {"sink", 4, 0}}) {
        const attn::AttentionMask m = maskOf(mask, window, sink);
        for (int q0 = 0; q0 < n; ++q0)
            for (int q1 = q0; q1 < n; ++q1)
                for (int k0 = 0; k0 < n; ++k0)
                    for (int k1 = k0; k1 < n; k1 += 3) {
                        bool all = true;
                        for (int i = q0; i <= q1; ++i)
                            for (int j = k0; j <= k1; ++j)
                                all = all && plainHides(mask, window, sink, i, j);
                        QCOMPARE(m.hidesTile(q0, q1, k0, k1), all);
                    }
    }
}

void TestFlashTiles::parseMasks()
{
    QCOMPARE(attn::parseAttentionMask("none").value(), attn::AttentionMask::none());
    QCOMPARE(attn::parseAttentionMask("causal").value(), attn::AttentionMask::causal());
    QCOMPARE(attn::parseAttentionMask("sliding:8").value(), attn::AttentionMask::sliding(8));
    QCOMPARE(attn::parseAttentionMask("sink:4,window:8").value(), attn::AttentionMask::sinkWindow(4, 8));
    QCOMPARE(attn::parseAttentionMask("sink:0,window:1").value(), attn::AttentionMask::sinkWindow(0, 1));
    for (const char* name : {"none", "causal", "sliding:3", "sink:2,window:5"})
        QCOMPARE(attn::parseAttentionMask(name)->name(), std::string(name));
    for (const char* bad : {"", "Causal", "sliding", "sliding:", "sliding:0", "sliding:-1", "sliding:+2",
                            "sliding:2x", "sink:2", "sink:2,window:0", "sink:-1,window:2", "sink:,window:2",
                            "sink:2,window:", "sliding:99999999999", "sink:2, window:3"}) {
        const attn::Expected<attn::AttentionMask> m = attn::parseAttentionMask(bad);
        QVERIFY2(!m.ok(), bad);
        QVERIFY(m.error().message.find("The mask must be") == 0);
    }
}

void TestFlashTiles::refusals()
{
    std::mt19937_64 rng(1);
    const attn::Matrix Q = randomMatrix(5, 3, rng, 1.0);
    const attn::Matrix V = randomMatrix(5, 2, rng, 1.0);
    const auto error = [&](const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v, double d,
                           int br, int bc) {
        const attn::Expected<attn::Matrix> r =
            attn::flashAttention(q, k, v, d, attn::AttentionMask::none(), br, bc);
        return r.ok() ? std::string() : r.error().message;
    };
    QCOMPARE(error(Q, Q, V, 1.0, 0, 2),
             std::string("The query block B_r must be from 1 to 5 (the tokens); got 0."));
    QCOMPARE(error(Q, Q, V, 1.0, 2, 6),
             std::string("The key block B_c must be from 1 to 5 (the tokens); got 6."));
    QVERIFY(error(Q, Q, V, 1.0, 5, 5).empty());
    QVERIFY(!error(Q, V, V, 1.0, 2, 2).empty());  // d_k differs
    QVERIFY(!error(Q, Q, V.topRows(4), 1.0, 2, 2).empty());
    QVERIFY(!error(Q, Q, V, 0.0, 2, 2).empty());
    QVERIFY(!error(Q, Q, V, std::nan(""), 2, 2).empty());
    attn::Matrix bad = Q;
    bad(2, 1) = kInf;
    QVERIFY(!error(bad, Q, V, 1.0, 2, 2).empty());
    QVERIFY(!attn::validateFlashBlocks(3, 4, 3).ok());
    QVERIFY(attn::validateFlashBlocks(3, 3, 3).ok());
    QCOMPARE(attn::flashStepCount(4096, 64, 64), 4096LL);
    QCOMPARE(attn::flashStepCount(7, 2, 3), 12LL);
    QVERIFY(!attn::flashAttention(Q, Q, V, 1.0, attn::AttentionMask::sliding(0), 2, 2).ok());
}

void TestFlashTiles::visitorlessRunGivesSameContext()
{
    std::mt19937_64 rng(9);
    const attn::Matrix Q = randomMatrix(33, 5, rng, 1.0);
    const attn::Matrix K = randomMatrix(33, 5, rng, 1.0);
    const attn::Matrix V = randomMatrix(33, 4, rng, 1.0);
    const attn::Expected<attn::Matrix> alone =
        attn::flashAttention(Q, K, V, 2.0, attn::AttentionMask::sinkWindow(1, 4), 8, 5);
    const attn::Expected<attn::FlashRun> run =
        attn::flashAttentionSteps(Q, K, V, 2.0, attn::AttentionMask::sinkWindow(1, 4), 8, 5);
    QVERIFY(alone.ok() && run.ok());
    QVERIFY(attn::sameBits(alone.value(), run->context));
    QCOMPARE(attn::maxAbsDifference(alone.value(), run->context), 0.0);
    QCOMPARE(attn::maxAbsDifference(alone.value(), run->context.topRows(3)), kInf);
}

QTEST_APPLESS_MAIN(TestFlashTiles)
#include "tst_flash_tiles.moc"
