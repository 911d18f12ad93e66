// SPDX-License-Identifier: GPL-3.0-or-later
#include "scaling_lab.h"

#include "softmax.h"
#include "statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attn {

namespace {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

// splitmix64's finaliser (Steele, Lea, Flood 2014).
std::uint64_t mix64(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// Sums over the samples for one d_k. A and B are one sample's mean squared
// score and mean score (over its n keys).
struct Accumulator {
    double sumA = 0, sumA2 = 0, sumB = 0, sumB2 = 0, sumAB = 0;
    double maxRaw = 0, maxScaled = 0;
    double entropyRaw = 0, entropyScaled = 0;
    double gradRaw = 0, gradScaled = 0;
};

Error configError(const std::string& what)
{
    return Error{what};
}

}  // namespace

LabNormalStream::LabNormalStream(std::uint64_t seed, std::uint64_t sample)
    : state_(mix64(seed + mix64(sample + kGolden)))
{
}

std::uint64_t LabNormalStream::nextBits()
{
    state_ += kGolden;
    return mix64(state_);
}

void LabNormalStream::discard(std::uint64_t words)
{
    state_ += words * kGolden;  // modulo 2^64, as the increments of nextBits()
    haveSpare_ = false;
}

double LabNormalStream::next()
{
    if (haveSpare_) {
        haveSpare_ = false;
        return spare_;
    }
    // u1 in (0, 1] keeps the logarithm finite; 53 bits fill a double's mantissa.
    const double u1 = double((nextBits() >> 11) + 1) * 0x1p-53;
    const double u2 = double(nextBits() >> 11) * 0x1p-53;
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * 3.14159265358979323846 * u2;
    spare_ = radius * std::sin(angle);
    haveSpare_ = true;
    return radius * std::cos(angle);
}

std::vector<int> defaultScalingLabDks()
{
    std::vector<int> dks;
    for (int i = 0; i <= 80; ++i) {
        const int d = int(std::lround(std::exp2(i / 8.0)));
        if (dks.empty() || d > dks.back())
            dks.push_back(d);
    }
    return dks;
}

int scalingLabBudgetSamples(int nKeys, int maxDk)
{
    const long long perSample = (long long)(std::max(nKeys, 1) + 1) * std::max(maxDk, 1);
    return int(std::clamp<long long>(kScalingLabMaxDraws / perSample, 1, kScalingLabMaxSamples));
}

int defaultScalingLabSamples(int nKeys, int maxDk)
{
    return std::min(kScalingLabDefaultSamples, scalingLabBudgetSamples(nKeys, maxDk));
}

Status validateScalingLabConfig(const ScalingLabConfig& c)
{
    if (c.nKeys < 2 || c.nKeys > kScalingLabMaxKeys)
        return configError("The number of keys must be from 2 to " + std::to_string(kScalingLabMaxKeys)
                           + ", not " + std::to_string(c.nKeys) + ".");
    if (c.samples < 1 || c.samples > kScalingLabMaxSamples)
        return configError("The number of samples must be from 1 to " + std::to_string(kScalingLabMaxSamples)
                           + ", not " + std::to_string(c.samples) + ".");
    for (std::size_t i = 0; i < c.dks.size(); ++i) {
        if (c.dks[i] < 1 || c.dks[i] > kScalingLabMaxDk)
            return configError("Every d_k of the lab must be from 1 to " + std::to_string(kScalingLabMaxDk)
                               + ", not " + std::to_string(c.dks[i]) + ".");
        if (i > 0 && c.dks[i] <= c.dks[i - 1])
            return configError("The d_k values of the lab must be strictly increasing.");
    }
    return okStatus();
}

Expected<ScalingLabCurves> runScalingLab(const ScalingLabConfig& config, const std::atomic<bool>* cancel,
                                         const ScalingLabProgress& progress)
{
    const Status valid = validateScalingLabConfig(config);
    if (!valid)
        return valid.error();

    const std::vector<int> grid = config.dks.empty() ? defaultScalingLabDks() : config.dks;
    const int n = config.nKeys;
    const int maxDk = grid.back();
    std::vector<Accumulator> acc(grid.size());
    std::vector<double> invSqrt(grid.size());
    for (std::size_t g = 0; g < grid.size(); ++g)
        invSqrt[g] = 1.0 / std::sqrt(double(grid[g]));

    const std::size_t nKeys = std::size_t(n);
    std::vector<double> dot(nKeys, 0.0);      // (n) q . k_j over the first t dimensions
    std::vector<double> scaled(nKeys, 0.0);   // (n)
    std::vector<double> weights(nKeys, 0.0);  // (n)

    const int progressStep = std::max(1, config.samples / 100);
    for (int s = 0; s < config.samples; ++s) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return cancelledError("The d_k lab was cancelled.");
        if (progress && s > 0 && s % progressStep == 0)
            progress(s, config.samples);
        LabNormalStream rng(config.seed, std::uint64_t(s));
        std::fill(dot.begin(), dot.end(), 0.0);
        std::size_t g = 0;
        for (int t = 0; t < maxDk; ++t) {
            // Dimension t of q, then of every key: the nesting across d_k.
            const double qt = rng.next();
            for (int j = 0; j < n; ++j)
                dot[j] += qt * rng.next();
            if (t + 1 != grid[g])
                continue;
            Accumulator& a = acc[g];
            double meanSq = 0.0, mean = 0.0;
            for (int j = 0; j < n; ++j) {
                meanSq += dot[j] * dot[j];
                mean += dot[j];
            }
            meanSq /= n;
            mean /= n;
            a.sumA += meanSq;
            a.sumA2 += meanSq * meanSq;
            a.sumB += mean;
            a.sumB2 += mean * mean;
            a.sumAB += meanSq * mean;

            softmaxRow(dot.data(), weights.data(), n);
            const RowStats raw = rowStatistics(weights.data(), n);
            a.maxRaw += raw.maxWeight;
            a.entropyRaw += raw.entropyNats;
            a.gradRaw += raw.jacobianNorm;

            for (int j = 0; j < n; ++j)
                scaled[j] = dot[j] * invSqrt[g];
            softmaxRow(scaled.data(), weights.data(), n);
            const RowStats sc = rowStatistics(weights.data(), n);
            a.maxScaled += sc.maxWeight;
            a.entropyScaled += sc.entropyNats;
            a.gradScaled += sc.jacobianNorm;
            ++g;
        }
    }

    if (progress)
        progress(config.samples, config.samples);

    ScalingLabCurves c;
    c.nKeys = n;
    c.samples = config.samples;
    c.seed = config.seed;
    c.dK = grid;
    const double N = config.samples;
    for (std::size_t g = 0; g < grid.size(); ++g) {
        const Accumulator& a = acc[g];
        const double meanA = a.sumA / N, meanB = a.sumB / N;
        // Pooled variance of the n * N scores: mean square minus squared mean.
        const double var = meanA - meanB * meanB;
        // Its standard error by the delta method: the estimate moves like
        // the mean of A - 2 meanB B over the independent samples.
        double stdErr = std::numeric_limits<double>::infinity();
        if (config.samples > 1) {
            const double varA = (a.sumA2 - N * meanA * meanA) / (N - 1);
            const double varB = (a.sumB2 - N * meanB * meanB) / (N - 1);
            const double covAB = (a.sumAB - N * meanA * meanB) / (N - 1);
            const double varG = varA - 4.0 * meanB * covAB + 4.0 * meanB * meanB * varB;
            stdErr = std::sqrt(std::max(varG, 0.0) / N);
        }
        const double d = grid[g];
        c.varRaw.push_back(var);
        c.varRawStdErr.push_back(stdErr);
        // Var(x / sqrt(d)) = Var(x) / d exactly, for the estimate as well.
        c.varScaled.push_back(var / d);
        c.varScaledStdErr.push_back(stdErr / d);
        c.maxWeightRaw.push_back(a.maxRaw / N);
        c.maxWeightScaled.push_back(a.maxScaled / N);
        c.entropyRaw.push_back(a.entropyRaw / N);
        c.entropyScaled.push_back(a.entropyScaled / N);
        c.gradNormRaw.push_back(a.gradRaw / N);
        c.gradNormScaled.push_back(a.gradScaled / N);
    }
    return c;
}

namespace {

// Softmax of `scores` / divisor row by row; under the causal mask query i
// sees keys 0..i (another mask, its keys) and the rest get weight 0, as in computeAttention, so that
// the arithmetic (and every bit of the result) is the engine's. (n, n)
Matrix maskedSoftmax(const AttentionResult& r, double divisor)
{
    const int n = r.tokens();
    Matrix m(n, n);
    for (int i = 0; i < n; ++i)
        softmaxAttendedRow(r.scores.data() + std::size_t(i) * n, n, r.visible(i), divisor, r.softmaxKernel,
                           m.data() + std::size_t(i) * n);
    return m;
}

// Population variance of the unmasked entries of scores / divisor, in two
// passes (mean, then squared deviations) like computeStatistics.
double unmaskedVariance(const AttentionResult& r, double divisor)
{
    const int n = r.tokens();
    double sum = 0.0;
    long long count = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (!r.isMasked(i, j)) {
                sum += r.scores(i, j) / divisor;
                ++count;
            }
    if (count == 0)
        return 0.0;
    const double mean = sum / double(count);
    double sq = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (!r.isMasked(i, j)) {
                const double dev = r.scores(i, j) / divisor - mean;
                sq += dev * dev;
            }
    return sq / double(count);
}

// Means over the rows of largest weight, entropy and Jacobian norm.
void rowMeans(const Matrix& w, double* maxWeight, double* entropy, double* grad)
{
    const int n = int(w.rows());
    *maxWeight = *entropy = *grad = 0.0;
    for (int i = 0; i < n; ++i) {
        const RowStats s = rowStatistics(w.data() + std::size_t(i) * w.cols(), int(w.cols()));
        *maxWeight += s.maxWeight;
        *entropy += s.entropyNats;
        *grad += s.jacobianNorm;
    }
    if (n > 0) {
        *maxWeight /= n;
        *entropy /= n;
        *grad /= n;
    }
}

}  // namespace

ScalingComparison compareScaling(const AttentionResult& r)
{
    ScalingComparison c;
    c.dK = int(r.Q.cols());
    c.divisor = std::sqrt(double(std::max(c.dK, 1)));
    c.weightsUnscaled = maskedSoftmax(r, 1.0);
    c.weightsScaled = maskedSoftmax(r, c.divisor);
    c.varRaw = unmaskedVariance(r, 1.0);
    c.varScaled = unmaskedVariance(r, c.divisor);
    rowMeans(c.weightsUnscaled, &c.meanMaxRaw, &c.meanEntropyRaw, &c.meanGradRaw);
    rowMeans(c.weightsScaled, &c.meanMaxScaled, &c.meanEntropyScaled, &c.meanGradScaled);
    return c;
}

int dkFromSliderPosition(int position)
{
    const int p = std::clamp(position, 0, kDkSliderPositions);
    const long d = std::lround(std::exp2(10.0 * p / kDkSliderPositions));
    return int(std::clamp(d, 1L, long(kScalingLabMaxDk)));
}

int sliderPositionFromDk(int dK)
{
    const int d = std::clamp(dK, 1, kScalingLabMaxDk);
    // dkFromSliderPosition is non-decreasing: the first position reaching d.
    int lo = 0, hi = kDkSliderPositions;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (dkFromSliderPosition(mid) >= d)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (dkFromSliderPosition(lo) == d || lo == 0)
        return lo;
    const int above = dkFromSliderPosition(lo) - d;
    const int below = d - dkFromSliderPosition(lo - 1);
    return below <= above ? lo - 1 : lo;
}

}  // namespace attn
