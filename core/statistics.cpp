#include "statistics.h"

#include <Eigen/Core>

#include <cmath>
#include <limits>
#include <vector>

namespace attn {

double softmaxJacobianNorm(const double* p, int n)
{
    // ||diag(p) - p p^T||_F^2 = sum_i (p_i (1 - p_i))^2 + 2 sum_{i<j} p_i^2 p_j^2.
    // For a nearly one-hot row, 1 - p_i computed from the rounded p_i loses
    // every digit; the sum of the other weights keeps them, so a vanishing
    // gradient shows its true size (1e-20, not a 1e-8 floor of rounding).
    // No subtraction below can cancel: all terms are sums of non-negatives.
    std::vector<double> suffix(std::size_t(n) + 1, 0.0);  // suffix[i] = sum_{j>=i} p_j
    for (int i = n - 1; i >= 0; --i)
        suffix[i] = suffix[i + 1] + p[i];
    double prefix = 0.0, prefixSq = 0.0, squared = 0.0;
    for (int i = 0; i < n; ++i) {
        const double others = prefix + suffix[i + 1];  // 1 - p_i
        const double diag = p[i] * others;
        const double sq = p[i] * p[i];
        squared += diag * diag + 2.0 * sq * prefixSq;
        prefix += p[i];
        prefixSq += sq;
    }
    return std::sqrt(squared);
}

RowStats rowStatistics(const double* p, int n)
{
    RowStats s;
    for (int j = 0; j < n; ++j) {
        if (p[j] > s.maxWeight) {
            s.maxWeight = p[j];
            s.argMax = j;
        }
    }
    // -sum p ln p, vectorised: a weight below the smallest normal double
    // (0 included) takes that double's logarithm instead, which keeps
    // 0 ln 0 = 0 and changes nothing visible (|p ln p| < 2e-305).
    const Eigen::Map<const Eigen::ArrayXd> a(p, n);
    s.entropyNats = n > 0 ? -(a * a.max(std::numeric_limits<double>::min()).log()).sum() : 0.0;
    s.entropyBits = s.entropyNats / std::log(2.0);
    s.effectiveTokens = std::exp(s.entropyNats);
    s.jacobianNorm = softmaxJacobianNorm(p, n);
    return s;
}

AttentionStats computeStatistics(const AttentionResult& r)
{
    const int n = r.tokens();
    std::vector<RowStats> rows;
    rows.reserve(std::size_t(n));
    std::vector<double> weights(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        r.weightsRow(i, weights.data());
        rows.push_back(rowStatistics(weights.data(), n));
    }
    return computeStatistics(r, std::move(rows));
}

Status computeAttentionWithStatistics(const Matrix& X, const Matrix& Wq, const Matrix& Wk,
                                      const Matrix& Wv, const AttentionOptions& options,
                                      AttentionResult* result, AttentionStats* stats, int threads)
{
    std::vector<RowStats> rows(static_cast<std::size_t>(X.rows()));
    const Status status = computeAttentionInto(
        X, Wq, Wk, Wv, options, result,
        [&rows](int i, const double* w, int n) { rows[std::size_t(i)] = rowStatistics(w, n); },
        threads);
    if (status)
        *stats = computeStatistics(*result, std::move(rows));
    return status;
}

AttentionStats computeStatistics(const AttentionResult& r, std::vector<RowStats> rows)
{
    AttentionStats st;
    const int n = r.tokens();
    // Two passes (mean, then squared deviations) for an accurate variance,
    // over the unmasked cells: keys 0..keys(i)-1 of row i. The scaled score
    // is the result's own (score / divisor).
    double rawSum = 0.0, scaledSum = 0.0;
    long long count = 0;
    for (int i = 0; i < n; ++i) {
        const Eigen::Map<const Eigen::ArrayXd> row(r.scores.data() + std::size_t(i) * n, r.keys(i));
        rawSum += row.sum();
        scaledSum += (row / r.divisor).sum();
        count += row.size();
    }
    if (count > 0) {
        st.rawMean = rawSum / double(count);
        st.scaledMean = scaledSum / double(count);
        double rawSq = 0.0, scaledSq = 0.0;
        for (int i = 0; i < n; ++i) {
            const Eigen::Map<const Eigen::ArrayXd> row(r.scores.data() + std::size_t(i) * n, r.keys(i));
            rawSq += (row - st.rawMean).square().sum();
            scaledSq += (row / r.divisor - st.scaledMean).square().sum();
        }
        st.rawVariance = rawSq / double(count);
        st.scaledVariance = scaledSq / double(count);
    }
    st.rows = std::move(rows);
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

}  // namespace attn
