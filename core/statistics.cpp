#include "statistics.h"

#include <cmath>

namespace attn {

double softmaxJacobianNorm(const double* p, int n)
{
    // ||diag(p) - p p^T||_F^2 = sum_i p_i^2 (1 - 2 p_i) + (sum_i p_i^2)^2,
    // since the entries are p_i - p_i^2 on the diagonal and -p_i p_j off it.
    double sumSq = 0.0;
    double diagTerm = 0.0;
    for (int i = 0; i < n; ++i) {
        const double q = p[i] * p[i];
        sumSq += q;
        diagTerm += q * (1.0 - 2.0 * p[i]);
    }
    const double squared = diagTerm + sumSq * sumSq;
    return std::sqrt(squared > 0.0 ? squared : 0.0);
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
