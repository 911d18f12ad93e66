#include "statistics.h"

#include <cmath>
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
        if (p[j] > 0.0)
            s.entropyNats -= p[j] * std::log(p[j]);  // 0 ln 0 = 0
    }
    s.entropyBits = s.entropyNats / std::log(2.0);
    s.effectiveTokens = std::exp(s.entropyNats);
    s.jacobianNorm = softmaxJacobianNorm(p, n);
    return s;
}

AttentionStats computeStatistics(const AttentionResult& r)
{
    AttentionStats st;
    const int n = r.tokens();
    // Two passes (mean, then squared deviations) for an accurate variance.
    double rawSum = 0.0, scaledSum = 0.0;
    long long count = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (!r.isMasked(i, j)) {
                rawSum += r.scores(i, j);
                scaledSum += r.scaled(i, j);
                ++count;
            }
    if (count > 0) {
        st.rawMean = rawSum / double(count);
        st.scaledMean = scaledSum / double(count);
        double rawSq = 0.0, scaledSq = 0.0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (!r.isMasked(i, j)) {
                    rawSq += (r.scores(i, j) - st.rawMean) * (r.scores(i, j) - st.rawMean);
                    scaledSq += (r.scaled(i, j) - st.scaledMean) * (r.scaled(i, j) - st.scaledMean);
                }
        st.rawVariance = rawSq / double(count);
        st.scaledVariance = scaledSq / double(count);
    }
    st.rows.reserve(n);
    for (int i = 0; i < n; ++i) {
        st.rows.push_back(rowStatistics(r.weights.data() + std::size_t(i) * n, n));
        st.meanMaxWeight += st.rows.back().maxWeight;
        st.meanEntropyNats += st.rows.back().entropyNats;
        st.meanJacobianNorm += st.rows.back().jacobianNorm;
    }
    if (n > 0) {
        st.meanMaxWeight /= n;
        st.meanEntropyNats /= n;
        st.meanJacobianNorm /= n;
    }
    return st;
}

}  // namespace attn
