// SPDX-License-Identifier: GPL-3.0-or-later
#include "statistics.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attn {

namespace {

// Index of the first largest of p[0..n-1] (0 for an empty row). Bounded by
// n even for a row the engine never produces (a NaN equals nothing).
int firstMax(const double* p, int n)
{
    if (n <= 0)
        return 0;
    const double largest = Eigen::Map<const Eigen::ArrayXd>(p, n).maxCoeff();
    int j = 0;
    while (j < n - 1 && p[j] != largest)
        ++j;
    return j;
}

// Sums over a run of weights that excludes the row's largest, so every
// p_j <= 1/2 and 1 - p_j is exact to rounding.
struct RunSums {
    double p = 0.0, p2 = 0.0, p4 = 0.0, diag2 = 0.0;  // sums of p, p^2, p^4, (p (1 - p))^2
};

RunSums runSums(const double* p, int n)
{
    RunSums s;
    if (n <= 0)
        return s;
    const Eigen::Map<const Eigen::ArrayXd> a(p, n);
    s.p = a.sum();
    s.p2 = a.square().sum();
    s.p4 = a.square().square().sum();
    s.diag2 = (a * (1.0 - a)).square().sum();
    return s;
}

// What the row's spread needs besides the entropy: its largest weight p_a
// (the first of equals), 1 - p_a as the sum of the others (from the rounded
// p_a it would lose every digit of a nearly one-hot row), and the Jacobian
// norm.
struct Spread {
    int argMax = 0;
    double others = 0.0;  // sum_{j != a} p_j
    double jacobianNorm = 0.0;
};

Spread spreadOf(const double* p, int n)
{
    // ||diag(p) - p p^T||_F^2 = sum_i (p_i (1 - p_i))^2 + sum_{i != j} p_i^2 p_j^2.
    // Split off a, with r = sum_{j != a} p_j^2 and r4 = sum_{j != a} p_j^4:
    //   = sum_{j != a} (p_j (1 - p_j))^2 + (p_a sum_{j != a} p_j)^2
    //     + 2 p_a^2 r + (r^2 - r4).
    // For j != a, p_j <= 1/2, so 1 - p_j is exact to rounding. Only the last
    // term subtracts, and it is at most half of 2 p_a^2 r (p_a is the
    // largest), so its rounding stays at the total's last bits: a vanishing
    // gradient shows its true size (1e-20, not a 1e-8 floor of rounding).
    // Each sum is a vectorised pass over the row.
    Spread s;
    if (n <= 0)
        return s;
    s.argMax = firstMax(p, n);
    const RunSums lo = runSums(p, s.argMax), hi = runSums(p + s.argMax + 1, n - s.argMax - 1);
    s.others = lo.p + hi.p;
    const double pa = p[s.argMax];
    const double r = lo.p2 + hi.p2, r4 = lo.p4 + hi.p4;
    const double diagA = pa * s.others;
    const double squared =
        lo.diag2 + hi.diag2 + diagA * diagA + 2.0 * pa * pa * r + std::max(0.0, r * r - r4);
    s.jacobianNorm = std::sqrt(squared);
    return s;
}

// -ln p_a from the others' sum where that is accurate (p_a near 1).
double minusLogLargest(const Spread& s, double pa)
{
    return s.others < 0.5 ? -std::log1p(-s.others) : -std::log(pa);
}

RowStats fromSpread(const Spread& spread, const double* p, double entropyNats)
{
    RowStats s;
    s.argMax = spread.argMax;
    s.maxWeight = p[spread.argMax];
    s.entropyNats = entropyNats;
    s.entropyBits = entropyNats / std::log(2.0);
    s.effectiveTokens = std::exp(entropyNats);
    s.jacobianNorm = spread.jacobianNorm;
    return s;
}

}  // namespace

double softmaxJacobianNorm(const double* p, int n)
{
    return spreadOf(p, n).jacobianNorm;
}

RowStats rowStatistics(const double* p, int n)
{
    if (n <= 0)
        return RowStats();
    const Spread spread = spreadOf(p, n);
    // -sum p ln p, vectorised over the weights other than the largest: a
    // weight below the smallest normal double (0 included) takes that
    // double's logarithm instead, which keeps 0 ln 0 = 0 and changes nothing
    // visible (|p ln p| < 2e-305). The largest one's term uses ln p_a =
    // log1p(-others), exact for a nearly one-hot row where p_a rounds to 1.
    auto plogp = [](const double* q, int m) {
        const Eigen::Map<const Eigen::ArrayXd> a(q, m);
        return m > 0 ? (a * a.max(std::numeric_limits<double>::min()).log()).sum() : 0.0;
    };
    const int a = spread.argMax;
    const double h = -plogp(p, a) - plogp(p + a + 1, n - a - 1) + p[a] * minusLogLargest(spread, p[a]);
    return fromSpread(spread, p, h);
}

RowStats rowStatistics(const WeightRow& row)
{
    if (row.keys <= 0)
        return RowStats();
    const double* weights = row.attendedWeights();
    const Spread spread = spreadOf(weights, row.keys);
    // With p_j = exp(s_j - m) / Z, ln p_j = (s_j - m) - ln Z, so
    //   H = -sum p_j ln p_j = ln Z + sum_j p_j (m - s_j)
    // (the weights sum to 1): two non-negative terms, nothing cancels, and
    // no logarithm per weight. A weight that underflowed to 0 adds 0. The
    // largest weight is exp(0) / Z, so ln Z = -ln p_a.
    const Eigen::Map<const Eigen::ArrayXd> p(weights, row.keys), x(row.scaled, row.keys);
    const double h = minusLogLargest(spread, row.scale.invSum) + (p * (row.scale.max - x)).sum();
    RowStats stats = fromSpread(spread, weights, h);
    stats.argMax = row.keyAt(spread.argMax);  // a key, not a packed position
    return stats;
}

namespace {

// One query row's unmasked raw scores: their sum and squared deviations
// from their own mean, taken while the row is at hand (in cache, on the
// thread that computed it).
struct RowMoments {
    double sum = 0.0;
    double m2 = 0.0;
    int count = 0;
};

RowMoments rowMoments(const double* scores, int keys)
{
    RowMoments m;
    if (keys <= 0)
        return m;
    const Eigen::Map<const Eigen::ArrayXd> row(scores, keys);
    m.sum = row.sum();
    m.count = keys;
    m.m2 = (row - m.sum / keys).square().sum();
    return m;
}

AttentionStats combine(const AttentionResult& r, std::vector<RowStats> rows,
                       const std::vector<RowMoments>& moments)
{
    AttentionStats st;
    // Score moments over the unmasked cells, from the rows' (Chan et al.):
    //   mean = sum_i s_i / N,  M2 = sum_i M2_i + sum_i n_i (mean_i - mean)^2,
    // every term non-negative, so nothing cancels (the two passes of a
    // direct computation, one row at a time). The scaled moments follow
    // (mean / divisor, variance / divisor^2), to rounding.
    double sum = 0.0;
    long long count = 0;
    for (const RowMoments& m : moments) {
        sum += m.sum;
        count += m.count;
    }
    if (count > 0) {
        st.rawMean = sum / double(count);
        double m2 = 0.0;
        for (const RowMoments& m : moments) {
            if (m.count == 0)
                continue;
            const double d = m.sum / m.count - st.rawMean;
            m2 += m.m2 + m.count * d * d;
        }
        st.rawVariance = m2 / double(count);
        st.scaledMean = st.rawMean / r.divisor;
        st.scaledVariance = st.rawVariance / (r.divisor * r.divisor);
    }
    st.rows = std::move(rows);
    const int n = int(st.rows.size());
    for (const RowStats& row : st.rows) {
        st.meanMaxWeight += row.maxWeight;
        st.meanEntropyNats += row.entropyNats;
        st.meanJacobianNorm += row.jacobianNorm;
    }
    if (n > 0) {
        st.meanMaxWeight /= n;
        st.meanEntropyNats /= n;
        st.meanJacobianNorm /= n;
    }
    return st;
}

// What the statistics take from each query row, as the rows come (from
// any thread, each row once).
struct RowTaker {
    std::vector<RowStats> rows;
    std::vector<RowMoments> moments;

    explicit RowTaker(Eigen::Index n) : rows(static_cast<std::size_t>(n)), moments(rows.size()) {}
    void take(int i, const WeightRow& row)
    {
        rows[std::size_t(i)] = rowStatistics(row);
        moments[std::size_t(i)] = rowMoments(row.attendedScores(), row.keys);
    }
    AttentionStats finish(const AttentionResult& r) { return combine(r, std::move(rows), moments); }
};

}  // namespace

AttentionStats computeStatistics(const AttentionResult& r)
{
    const int n = r.tokens();
    RowTaker taker(n);
    std::vector<double> weights(static_cast<std::size_t>(n)), scaled(static_cast<std::size_t>(n));
    std::vector<double> keptScores(weights.size()), keptWeights(weights.size());
    for (int i = 0; i < n; ++i) {
        // The row the engine had: the same numbers as its visitor saw.
        const VisibleKeys vis = r.visible(i);
        const int keys = vis.count();
        const double* scores = r.scores.data() + std::size_t(i) * n;
        // As the engine does: one run in place, two runs packed.
        const double* kept = scores + vis.from;
        double* keptWeightRow = weights.data() + vis.from;
        if (vis.head > 0) {
            for (int c = 0; c < keys; ++c)
                keptScores[std::size_t(c)] = scores[vis.key(c)];
            kept = keptScores.data();
            keptWeightRow = keptWeights.data();
        }
        std::fill(weights.begin(), weights.end(), 0.0);
        const SoftmaxRowScale scale =
            scaledSoftmaxRow(kept, r.divisor, scaled.data(), keptWeightRow, keys, r.softmaxKernel);
        if (vis.head > 0)
            for (int c = 0; c < keys; ++c)
                weights[std::size_t(vis.key(c))] = keptWeights[std::size_t(c)];
        taker.take(
            i, WeightRow{weights.data(), scores, scaled.data(), keys, n, scale, keptWeightRow, kept, vis});
    }
    return taker.finish(r);
}

Status computeAttentionWithStatistics(const Matrix& X, const Matrix& Wq, const Matrix& Wk, const Matrix& Wv,
                                      const AttentionOptions& options, AttentionResult* result,
                                      AttentionStats* stats, int threads, const WeightRowVisitor& alsoVisit,
                                      const std::atomic<bool>* cancel)
{
    RowTaker taker(X.rows());
    const Status status = computeAttentionInto(
        X, Wq, Wk, Wv, options, result,
        [&](int i, const WeightRow& row) {
            taker.take(i, row);
            if (alsoVisit)
                alsoVisit(i, row);
        },
        threads, cancel);
    if (status)
        *stats = taker.finish(*result);
    return status;
}

Status runWithStatistics(const std::function<Status(const WeightRowVisitor&)>& run, int tokens,
                         const AttentionResult& result, AttentionStats* stats,
                         const WeightRowVisitor& alsoVisit)
{
    RowTaker taker(tokens);
    const Status status = run([&](int i, const WeightRow& row) {
        taker.take(i, row);
        if (alsoVisit)
            alsoVisit(i, row);
    });
    if (status)
        *stats = taker.finish(result);
    return status;
}

}  // namespace attn
