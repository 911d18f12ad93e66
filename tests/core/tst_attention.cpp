// SPDX-License-Identifier: GPL-3.0-or-later
// The engine against an independent plain-loop implementation on fixed-seed
// random inputs over many shapes, with and without the causal mask and in
// every scale mode; invariants; validation errors.

#include "attention.h"
#include "kernels.h"

#include <Eigen/QR>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <limits>
#include <random>

namespace {

struct Plain {
    std::vector<std::vector<double>> q, k, v, s, scaled, a, z;
};

using Rows = std::vector<std::vector<double>>;

Rows matmul(const attn::Matrix& a, const attn::Matrix& b)
{
    Rows out(a.rows(), std::vector<double>(b.cols(), 0.0));
    for (int i = 0; i < a.rows(); ++i)
        for (int j = 0; j < b.cols(); ++j) {
            double acc = 0.0;
            for (int t = 0; t < a.cols(); ++t)
                acc += a(i, t) * b(t, j);
            out[i][j] = acc;
        }
    return out;
}

// Textbook attention, one loop per formula line, no Eigen arithmetic.
Plain plainAttention(const attn::Matrix& x, const attn::Matrix& wq, const attn::Matrix& wk,
                     const attn::Matrix& wv, double divisor, bool causal)
{
    Plain p;
    const int n = int(x.rows());
    p.q = matmul(x, wq);
    p.k = matmul(x, wk);
    p.v = matmul(x, wv);
    const int dk = int(wq.cols());
    const int dv = int(wv.cols());
    p.s.assign(n, std::vector<double>(n));
    p.scaled = p.a = p.s;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double dot = 0.0;
            for (int t = 0; t < dk; ++t)
                dot += p.q[i][t] * p.k[j][t];
            p.s[i][j] = dot;
            p.scaled[i][j] = dot / divisor;
        }
    for (int i = 0; i < n; ++i) {
        const int last = causal ? i : n - 1;
        double m = -INFINITY;
        for (int j = 0; j <= last; ++j)
            m = std::max(m, p.scaled[i][j]);
        double sum = 0.0;
        for (int j = 0; j <= last; ++j)
            sum += std::exp(p.scaled[i][j] - m);
        for (int j = 0; j < n; ++j)
            p.a[i][j] = j <= last ? std::exp(p.scaled[i][j] - m) / sum : 0.0;
    }
    p.z.assign(n, std::vector<double>(dv, 0.0));
    for (int i = 0; i < n; ++i)
        for (int t = 0; t < dv; ++t)
            for (int j = 0; j < n; ++j)
                p.z[i][t] += p.a[i][j] * p.v[j][t];
    return p;
}

double relDiff(const attn::Matrix& m, const Rows& r, bool skipInf = false)
{
    double worst = 0.0;
    for (int i = 0; i < m.rows(); ++i)
        for (int j = 0; j < m.cols(); ++j) {
            if (skipInf && std::isinf(m(i, j)))
                continue;
            worst = std::max(worst, std::abs(m(i, j) - r[i][j]) / std::max(1.0, std::abs(r[i][j])));
        }
    return worst;
}

attn::Matrix randomMatrix(std::mt19937& rng, int rows, int cols, double sd)
{
    std::normal_distribution<double> dist(0.0, sd);
    attn::Matrix m(rows, cols);
    for (int i = 0; i < m.size(); ++i)
        m.data()[i] = dist(rng);
    return m;
}

}  // namespace

class TestAttention : public QObject {
    Q_OBJECT
private slots:
    void matchesPlainLoops_data();
    void matchesPlainLoops();
    void rowsSumToOneAndContextInSpan();
    void hugeInputsStayFinite();
    void causalMaskPattern();
    void scaleDivisors_data();
    void scaleDivisors();
    void validationErrors_data();
    void validationErrors();
    void intoReusesResult();
    void threadsAndVisitorGiveTheSameNumbers_data();
    void threadsAndVisitorGiveTheSameNumbers();
    void cancelStopsWithinOnePanel_data();
    void cancelStopsWithinOnePanel();
    void uncancelledFlagChangesNoBit();
};

void TestAttention::matchesPlainLoops_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("dModel");
    QTest::addColumn<int>("dK");
    QTest::addColumn<int>("dV");
    QTest::addColumn<int>("scale");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("kernels");
    const int shapes[][4] = {{1, 1, 1, 1},     {2, 3, 1, 2},     {6, 16, 24, 28}, {7, 5, 256, 3},
                             {33, 64, 64, 64}, {128, 32, 16, 8}, {300, 8, 4, 12}};
    for (const auto& s : shapes)
        for (int scale = 0; scale < 3; ++scale)
            for (bool causal : {false, true})
                // The products by the AVX2 kernels where this processor has
                // them, and by Eigen.
                for (bool kernels : {true, false})
                    QTest::newRow(qPrintable(QStringLiteral("n%1 d%2 dk%3 dv%4 scale%5%6%7")
                                                 .arg(s[0])
                                                 .arg(s[1])
                                                 .arg(s[2])
                                                 .arg(s[3])
                                                 .arg(scale)
                                                 .arg(causal ? " causal" : "")
                                                 .arg(kernels ? "" : " eigen")))
                        << s[0] << s[1] << s[2] << s[3] << scale << causal << kernels;
}

void TestAttention::matchesPlainLoops()
{
    QFETCH(int, n);
    QFETCH(int, dModel);
    QFETCH(int, dK);
    QFETCH(int, dV);
    QFETCH(int, scale);
    QFETCH(bool, causal);
    QFETCH(bool, kernels);
    attn::kernels::setEnabled(kernels);
    const auto restore = qScopeGuard([] { attn::kernels::setEnabled(true); });
    std::mt19937 rng(1000u + unsigned(n * 31 + dK));
    const attn::Matrix x = randomMatrix(rng, n, dModel, 1.0);
    const attn::Matrix wq = randomMatrix(rng, dModel, dK, 0.5);
    const attn::Matrix wk = randomMatrix(rng, dModel, dK, 0.5);
    const attn::Matrix wv = randomMatrix(rng, dModel, dV, 0.5);
    attn::AttentionOptions options;
    options.scale = attn::ScaleMode(scale);
    options.customDivisor = 2.5;
    options.causal = causal;
    const double divisor = scale == 0 ? std::sqrt(double(dK)) : scale == 1 ? 1.0 : 2.5;

    auto result = attn::computeAttention(x, wq, wk, wv, options);
    QVERIFY(result.ok());
    const Plain p = plainAttention(x, wq, wk, wv, divisor, causal);
    QCOMPARE(result->divisor, divisor);
    QVERIFY(relDiff(result->Q, p.q) < 1e-12);
    QVERIFY(relDiff(result->K, p.k) < 1e-12);
    QVERIFY(relDiff(result->V, p.v) < 1e-12);
    QVERIFY(relDiff(result->scores, p.s) < 1e-11);
    QVERIFY(relDiff(result->scaledMatrix(), p.scaled, true) < 1e-11);
    QVERIFY(relDiff(result->weightsMatrix(), p.a) < 1e-11);
    QVERIFY(relDiff(result->context, p.z) < 1e-11);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            QCOMPARE(std::isinf(result->scaled(i, j)), causal && j > i);

    // The result keeps only the raw scores and each row's normaliser; a
    // weight read cell by cell is bit for bit the one its row gives (the
    // row computed again as the engine did), at every position of the row
    // (vectorised part and scalar tail alike).
    std::vector<double> weightRow(static_cast<std::size_t>(n)), scaledRow(static_cast<std::size_t>(n));
    double maxAbs = 0.0, maxAbsKept = 0.0;
    for (int i = 0; i < n; ++i) {
        result->weightsRow(i, weightRow.data());
        result->scaledRow(i, scaledRow.data());
        for (int j = 0; j < n; ++j) {
            if (result->weights(i, j) != weightRow[std::size_t(j)]
                || result->scaled(i, j) != scaledRow[std::size_t(j)])
                QFAIL(qPrintable(QStringLiteral("cell (%1, %2): %3 vs %4")
                                     .arg(i)
                                     .arg(j)
                                     .arg(result->weights(i, j), 0, 'g', 17)
                                     .arg(weightRow[std::size_t(j)], 0, 'g', 17)));
            maxAbs = std::max(maxAbs, std::abs(result->scores(i, j)));
            if (!result->isMasked(i, j))
                maxAbsKept = std::max(maxAbsKept, std::abs(result->scores(i, j)));
        }
    }
    QCOMPARE(result->maxAbsScore, maxAbs);
    QCOMPARE(result->maxAbsKeptScore, maxAbsKept);
}

void TestAttention::rowsSumToOneAndContextInSpan()
{
    std::mt19937 rng(7);
    const int n = 12, d = 10;
    const attn::Matrix x = randomMatrix(rng, n, d, 1.0);
    auto r = attn::computeAttention(x, randomMatrix(rng, d, 6, 1.0), randomMatrix(rng, d, 6, 1.0),
                                    randomMatrix(rng, d, 4, 1.0), {});
    QVERIFY(r.ok());
    for (int i = 0; i < n; ++i) {
        QVERIFY(std::abs(r->weightsMatrix().row(i).sum() - 1.0) < 1e-12);
        QVERIFY(r->weightsMatrix().row(i).minCoeff() >= 0.0);
        // A convex combination of V's rows lies inside their bounding box.
        for (int t = 0; t < 4; ++t) {
            QVERIFY(r->context(i, t) <= r->V.col(t).maxCoeff() + 1e-12);
            QVERIFY(r->context(i, t) >= r->V.col(t).minCoeff() - 1e-12);
        }
    }
    // And is exactly reproduced by the least-squares fit on V's rows.
    const attn::Matrix coeffs = r->V.transpose().colPivHouseholderQr().solve(r->context.transpose());
    QVERIFY((r->V.transpose() * coeffs - r->context.transpose()).cwiseAbs().maxCoeff() < 1e-9);
}

void TestAttention::hugeInputsStayFinite()
{
    // Inputs at the magnitude limit give scores near 1e60: the softmax stays
    // finite and one-hot where one score dominates.
    attn::Matrix x(3, 1);
    x << 1e30, -1e30, 5e29;
    attn::Matrix w(1, 1);
    w << 1.0;
    auto r = attn::computeAttention(x, w, w, w, {});
    QVERIFY(r.ok());
    QVERIFY(r->weightsMatrix().allFinite());
    QVERIFY(r->context.allFinite());
    QCOMPARE(r->weights(0, 0), 1.0);  // 1e60 dominates
    QCOMPARE(r->weights(1, 1), 1.0);
}

void TestAttention::causalMaskPattern()
{
    attn::Matrix x = attn::Matrix::Identity(4, 4);
    attn::AttentionOptions o;
    o.causal = true;
    auto r = attn::computeAttention(x, x, x, x, o);
    QVERIFY(r.ok());
    QCOMPARE(r->weights(0, 0), 1.0);  // the first token sees only itself
    for (int i = 0; i < 4; ++i) {
        for (int j = i + 1; j < 4; ++j) {
            QCOMPARE(r->weights(i, j), 0.0);
            QVERIFY(r->isMasked(i, j));
        }
        QVERIFY(!r->isMasked(i, i));
        QVERIFY(std::abs(r->weightsMatrix().row(i).sum() - 1.0) < 1e-15);
    }
    // Raw scores are never masked.
    QVERIFY(r->scores.allFinite());
}

void TestAttention::scaleDivisors_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<double>("custom");
    QTest::addColumn<int>("dK");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<double>("expected");
    QTest::newRow("sqrt 24") << 0 << 0.0 << 24 << true << std::sqrt(24.0);
    QTest::newRow("sqrt 1") << 0 << 0.0 << 1 << true << 1.0;
    QTest::newRow("none") << 1 << 0.0 << 64 << true << 1.0;
    QTest::newRow("custom 8") << 2 << 8.0 << 64 << true << 8.0;
    QTest::newRow("custom 0 refused") << 2 << 0.0 << 64 << false << 0.0;
    QTest::newRow("custom negative refused") << 2 << -2.0 << 64 << false << 0.0;
    QTest::newRow("custom NaN refused") << 2 << double(NAN) << 64 << false << 0.0;
    QTest::newRow("custom inf refused") << 2 << double(INFINITY) << 64 << false << 0.0;
    QTest::newRow("custom at the floor 0.001") << 2 << 1e-3 << 64 << true << 1e-3;
    QTest::newRow("custom at the ceiling 1e6") << 2 << 1e6 << 64 << true << 1e6;
    QTest::newRow("custom below the floor refused") << 2 << 9.99e-4 << 64 << false << 0.0;
    QTest::newRow("custom 1e-307 refused (scores overflow)") << 2 << 1e-307 << 64 << false << 0.0;
    QTest::newRow("custom above the ceiling refused") << 2 << 1.01e6 << 64 << false << 0.0;
}

void TestAttention::scaleDivisors()
{
    QFETCH(int, mode);
    QFETCH(double, custom);
    QFETCH(int, dK);
    QFETCH(bool, ok);
    QFETCH(double, expected);
    attn::AttentionOptions o;
    o.scale = attn::ScaleMode(mode);
    o.customDivisor = custom;
    const auto d = attn::scaleDivisor(o, dK);
    QCOMPARE(d.ok(), ok);
    if (ok)
        QCOMPARE(*d, expected);
    else
        QVERIFY(QString::fromStdString(d.error().message).contains("divisor"));
}

void TestAttention::validationErrors_data()
{
    QTest::addColumn<QString>("which");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("NaN in X") << "nan-x"
                              << "X, row 2, column 3: NaN";
    QTest::newRow("inf in W_v") << "inf-wv"
                                << "W_v, row 1, column 1: +infinity";
    QTest::newRow("too large in W_k") << "big-wk"
                                      << "W_k, row 3, column 2";
    QTest::newRow("W_q wrong rows") << "shape-wq"
                                    << "W_q is (5 x 4)";
    QTest::newRow("d_k mismatch") << "dk-mismatch"
                                  << "same d_k";
    QTest::newRow("no tokens") << "empty-x"
                               << "X has 0 rows";
    QTest::newRow("too many tokens") << "many-x"
                                     << "4096";
    QTest::newRow("too wide") << "wide-x"
                              << "X has 2049 columns (d_model); between 1 and 2048 are allowed.";
    // 2049 x 2048 = 4,196,352 > 4096 x 1024 (2048 x 2048 is accepted below).
    QTest::newRow("X over its entries")
        << "entries-x"
        << "X of 2049 tokens at d_model 2048 would hold 4196352 entries; at most "
           "4194304 are allowed, so at d_model 2048 at most 2048 tokens.";
    // 2048 (2 x 512 + 513) = 3,147,776 > 3 x 1024^2.
    QTest::newRow("weights over their entries")
        << "entries-w"
        << "W_q, W_k and W_v at d_model 2048, d_k 512, d_v 513 would hold 3147776 entries together; at most "
           "3145728 are allowed, so at d_model 2048 2 d_k + d_v is at most 1536.";
}

void TestAttention::validationErrors()
{
    QFETCH(QString, which);
    QFETCH(QString, mentions);
    attn::Matrix x = attn::Matrix::Ones(3, 4);
    attn::Matrix wq = attn::Matrix::Ones(4, 4);
    attn::Matrix wk = wq, wv = wq;
    if (which == "nan-x")
        x(1, 2) = NAN;
    if (which == "inf-wv")
        wv(0, 0) = INFINITY;
    if (which == "big-wk")
        wk(2, 1) = 1e31;
    if (which == "shape-wq")
        wq = attn::Matrix::Ones(5, 4);
    if (which == "dk-mismatch")
        wk = attn::Matrix::Ones(4, 3);
    if (which == "empty-x")
        x = attn::Matrix(0, 4);
    if (which == "many-x")
        x = attn::Matrix::Ones(4097, 4);
    if (which == "wide-x" || which == "entries-x" || which == "entries-w") {
        const int d = which == "wide-x" ? 2049 : 2048;
        x = attn::Matrix::Zero(which == "entries-x" ? 2049 : 2, d);
        wq = wk = attn::Matrix::Zero(d, which == "entries-w" ? 512 : 4);
        wv = attn::Matrix::Zero(d, which == "entries-w" ? 513 : 4);
        if (which == "entries-x") {  // one token fewer fits
            QVERIFY(attn::validateInputs(x.topRows(2048), wq, wk, wv));
        } else if (which == "entries-w") {  // one column of W_v fewer fits
            QVERIFY(attn::validateInputs(x, wq, wk, wv.leftCols(512)));
        }
    }
    const auto r = attn::computeAttention(x, wq, wk, wv, {});
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.error().message).contains(mentions), r.error().message.c_str());
}

void TestAttention::intoReusesResult()
{
    std::mt19937 rng(3);
    const attn::Matrix x = randomMatrix(rng, 5, 4, 1.0);
    const attn::Matrix w = randomMatrix(rng, 4, 4, 1.0);
    attn::AttentionResult r;
    QVERIFY(attn::computeAttentionInto(x, w, w, w, {}, &r).ok());
    const attn::Matrix before = r.weightsMatrix();
    // A failed recompute reports the error; a later good one matches.
    attn::Matrix bad = x;
    bad(0, 0) = NAN;
    QVERIFY(!attn::computeAttentionInto(bad, w, w, w, {}, &r).ok());
    QVERIFY(attn::computeAttentionInto(x, w, w, w, {}, &r).ok());
    QCOMPARE(r.weightsMatrix(), before);
}

void TestAttention::threadsAndVisitorGiveTheSameNumbers_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("causal");
    QTest::newRow("one panel") << 37 << false;
    QTest::newRow("ragged panels") << 700 << false;
    QTest::newRow("ragged panels, causal") << 700 << true;
}

void TestAttention::threadsAndVisitorGiveTheSameNumbers()
{
    QFETCH(int, n);
    QFETCH(bool, causal);
    std::mt19937 rng(99);
    const attn::Matrix x = randomMatrix(rng, n, 12, 1.0);
    const attn::Matrix wq = randomMatrix(rng, 12, 9, 0.7);
    const attn::Matrix wk = randomMatrix(rng, 12, 9, 0.7);
    const attn::Matrix wv = randomMatrix(rng, 12, 5, 0.7);
    attn::AttentionOptions options;
    options.causal = causal;
    attn::AttentionResult one, three;
    QVERIFY(attn::computeAttentionInto(x, wq, wk, wv, options, &one).ok());
    // Every row is visited once, with the weights the result gives for it.
    std::vector<int> visits(static_cast<std::size_t>(n), 0);
    std::vector<std::vector<double>> seen(static_cast<std::size_t>(n));
    std::vector<char> sameRow(static_cast<std::size_t>(n), 0);  // keys, scaled scores and scale
    QVERIFY(attn::computeAttentionInto(
                x, wq, wk, wv, options, &three,
                [&](int i, const attn::WeightRow& row) {
                    ++visits[std::size_t(i)];
                    seen[std::size_t(i)].assign(row.weights, row.weights + row.n);
                    // Called from the helper threads: checked here, reported below.
                    bool same = row.n == n && row.keys == (causal ? i + 1 : n)
                                && row.scale.max == one.rowScale[std::size_t(i)].max
                                && row.scale.invSum == one.rowScale[std::size_t(i)].invSum;
                    for (int j = 0; same && j < row.keys; ++j)
                        same = row.scaled[j] == one.scaled(i, j);
                    for (int j = 0; same && j < n; ++j)
                        same = row.scores[j] == one.scores(i, j);
                    sameRow[std::size_t(i)] = same;
                },
                3)
                .ok());
    QCOMPARE(three.scores, one.scores);
    QCOMPARE(three.context, one.context);
    QCOMPARE(three.maxAbsScore, one.maxAbsScore);
    QCOMPARE(three.maxAbsKeptScore, one.maxAbsKeptScore);
    const attn::Matrix weights = one.weightsMatrix();
    for (int i = 0; i < n; ++i) {
        QCOMPARE(visits[std::size_t(i)], 1);
        QVERIFY2(sameRow[std::size_t(i)], qPrintable(QStringLiteral("row %1").arg(i)));
        QCOMPARE(three.rowScale[std::size_t(i)].max, one.rowScale[std::size_t(i)].max);
        QCOMPARE(three.rowScale[std::size_t(i)].invSum, one.rowScale[std::size_t(i)].invSum);
        for (int j = 0; j < n; ++j)
            if (seen[std::size_t(i)][std::size_t(j)] != weights(i, j))
                QFAIL(qPrintable(QStringLiteral("weight (%1, %2) differs").arg(i).arg(j)));
    }
}

void TestAttention::cancelStopsWithinOnePanel_data()
{
    QTest::addColumn<int>("threads");
    QTest::newRow("one thread") << 1;
    QTest::newRow("three threads") << 3;
}

void TestAttention::cancelStopsWithinOnePanel()
{
    // The flag is raised while the first row is visited: each thread
    // finishes the panel it holds and takes no other, so at most `threads`
    // panels of rows are visited out of 2000 tokens, and the call says
    // it was cancelled. Raised before the call, no row is computed.
    QFETCH(int, threads);
    const int n = 2000;
    const int panelRows = attn::kernels::available() ? 64 : 256;  // attention.cpp's kPanelRows
    std::mt19937 rng(5);
    const attn::Matrix x = randomMatrix(rng, n, 8, 1.0);
    const attn::Matrix w = randomMatrix(rng, 8, 8, 0.5);
    std::atomic<bool> cancel{false};
    std::atomic<int> visited{0};
    attn::AttentionResult r;
    const attn::Status status = attn::computeAttentionInto(
        x, w, w, w, {}, &r,
        [&](int, const attn::WeightRow&) {
            ++visited;
            cancel = true;
        },
        threads, &cancel);
    QVERIFY(!status.ok());
    QVERIFY(attn::isCancelled(status));
    QCOMPARE(QString::fromStdString(status.error().message), QString::fromLatin1(attn::kCancelledMessage));
    QVERIFY2(visited >= panelRows && visited <= threads * panelRows, qPrintable(QString::number(visited)));

    visited = 0;
    const attn::Status early = attn::computeAttentionInto(
        x, w, w, w, {}, &r, [&](int, const attn::WeightRow&) { ++visited; }, threads, &cancel);
    QVERIFY(attn::isCancelled(early));
    QCOMPARE(visited.load(), 0);
    // A refusal is not a cancellation.
    attn::Matrix bad = x;
    bad(0, 0) = NAN;
    QVERIFY(!attn::isCancelled(attn::computeAttentionInto(bad, w, w, w, {}, &r, {}, threads, &cancel)));
}

void TestAttention::uncancelledFlagChangesNoBit()
{
    // A flag that stays false leaves every number as the call without one.
    std::mt19937 rng(17);
    const int n = 700;
    const attn::Matrix x = randomMatrix(rng, n, 12, 1.0);
    const attn::Matrix wq = randomMatrix(rng, 12, 9, 0.7);
    const attn::Matrix wk = randomMatrix(rng, 12, 9, 0.7);
    const attn::Matrix wv = randomMatrix(rng, 12, 5, 0.7);
    attn::AttentionOptions options;
    options.causal = true;
    attn::AttentionResult plain, flagged;
    QVERIFY(attn::computeAttentionInto(x, wq, wk, wv, options, &plain).ok());
    const std::atomic<bool> cancel{false};
    QVERIFY(attn::computeAttentionInto(x, wq, wk, wv, options, &flagged, {}, 2, &cancel).ok());
    QCOMPARE(flagged.scores, plain.scores);
    QCOMPARE(flagged.context, plain.context);
    QCOMPARE(flagged.Q, plain.Q);
    QCOMPARE(flagged.V, plain.V);
    QCOMPARE(flagged.maxAbsScore, plain.maxAbsScore);
    for (int i = 0; i < n; ++i) {
        QCOMPARE(flagged.rowScale[std::size_t(i)].max, plain.rowScale[std::size_t(i)].max);
        QCOMPARE(flagged.rowScale[std::size_t(i)].invSum, plain.rowScale[std::size_t(i)].invSum);
    }
}

QTEST_APPLESS_MAIN(TestAttention)
#include "tst_attention.moc"
