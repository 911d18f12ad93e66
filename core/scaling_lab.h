// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The d_k lab: why attention divides its scores by sqrt(d_k).
//
// If the entries of q and k are independent with mean 0 and variance 1, then
// q . k = sum_t q_t k_t is a sum of d_k terms of variance 1, so
//   Var(q . k) = d_k   and   Var(q . k / sqrt(d_k)) = 1.
// Large unscaled scores push softmax into saturation: each row becomes nearly
// one-hot, its entropy falls towards 0 and the norm of its Jacobian
// diag(p) - p p^T (the gradient that can flow back) towards 0.
//
// runScalingLab measures all of this by Monte Carlo: per sample one query q
// and n keys k_1..k_n with N(0, 1) entries, for every d_k of a grid. The
// entries are drawn dimension by dimension (q_t, k_1t, ..., k_nt for
// t = 0, 1, ...), so a sample's first d entries are the same for every larger
// d_k: the curves are nested and therefore smooth across d_k, and a sample
// does not depend on the grid.
//
// compareScaling does the same comparison for one attention result: the
// softmax of the raw scores next to the softmax of the scores / sqrt(d_k).

#include "attention.h"
#include "expected.h"
#include "matrix.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

namespace attn {

// A stream of N(0, 1) values for one sample of the lab: splitmix64 over a
// counter seeded from (seed, sample), turned into normals by Box-Muller
// (u1 in (0, 1], u2 in [0, 1), both 53-bit; the second value of each pair is
// returned by the next call). Same numbers on every platform.
class LabNormalStream {
public:
    LabNormalStream(std::uint64_t seed, std::uint64_t sample);
    double next();
    std::uint64_t nextBits();  // the underlying 64-bit stream
    // Skips `words` of the 64-bit stream, as that many nextBits() would, and
    // drops a pending second normal: after discard(k) on a fresh stream,
    // next() gives the normal a fresh stream gives after k words of
    // nextBits() (k even, no pending normal). A counter-based stream can be
    // split this way into parts drawn apart.
    void discard(std::uint64_t words);

private:
    std::uint64_t state_;
    double spare_ = 0.0;
    bool haveSpare_ = false;
};

inline constexpr int kScalingLabMaxDk = 1024;
inline constexpr int kScalingLabMaxKeys = 1024;
inline constexpr int kScalingLabMaxSamples = 1000000;
inline constexpr int kScalingLabDefaultSamples = 4000;
// samples * (n_keys + 1) * largest d_k: the work of a run that takes about a
// second. The default sample count stays within it; a larger count asked
// for explicitly runs all the same, only longer.
inline constexpr long long kScalingLabMaxDraws = 32LL * 1024 * 1024;

// The most samples within kScalingLabMaxDraws for n keys and d_k up to
// maxDk (at least 1), and the default: kScalingLabDefaultSamples or that,
// whichever is smaller.
int scalingLabBudgetSamples(int nKeys, int maxDk = kScalingLabMaxDk);
int defaultScalingLabSamples(int nKeys, int maxDk = kScalingLabMaxDk);

// d_k = round(2^(i / 8)) for i = 0..80 without repeats: 1, 2, 3, ... up to
// 1024, about 8 points per octave (log-even).
std::vector<int> defaultScalingLabDks();

struct ScalingLabConfig {
    int nKeys = 6;                            // keys per query, 2..kScalingLabMaxKeys
    int samples = kScalingLabDefaultSamples;  // queries per d_k, 1..kScalingLabMaxSamples
    std::uint64_t seed = 2024;
    std::vector<int> dks;  // strictly increasing within 1..1024; empty = default grid
};

// One entry per d_k of the grid. "Raw" is softmax(q . k_j), "scaled" is
// softmax(q . k_j / sqrt(d_k)).
struct ScalingLabCurves {
    int nKeys = 0;
    int samples = 0;
    std::uint64_t seed = 0;
    std::vector<int> dK;
    // Variance of all n * samples scores (about their mean) and its standard
    // error (delta method over the independent samples; infinite for one
    // sample).
    std::vector<double> varRaw, varScaled, varRawStdErr, varScaledStdErr;
    std::vector<double> maxWeightRaw, maxWeightScaled;  // mean largest weight
    std::vector<double> entropyRaw, entropyScaled;      // mean entropy, nats
    std::vector<double> gradNormRaw, gradNormScaled;    // mean ||J||_F

    std::size_t size() const { return dK.size(); }
};

// Called on the computing thread with the samples done so far and the
// total: once per 1% of the samples (and at the end), so at most about 100
// times per run.
using ScalingLabProgress = std::function<void(int done, int total)>;

// Checks the configuration (an error names the limit) and runs it. With
// `cancel` set to true by another thread the run stops early and returns an
// error saying so.
Status validateScalingLabConfig(const ScalingLabConfig& config);
Expected<ScalingLabCurves> runScalingLab(const ScalingLabConfig& config,
                                         const std::atomic<bool>* cancel = nullptr,
                                         const ScalingLabProgress& progress = {});

// The current sentence's scores with and without the 1/sqrt(d_k), whatever
// scale mode produced `result` (d_k = result.Q.cols()). Masked entries (causal)
// stay masked in both and are left out of the variances.
struct ScalingComparison {
    int dK = 0;
    double divisor = 1.0;              // sqrt(d_k)
    Matrix weightsUnscaled;            // (n, n) softmax(Q K^T)
    Matrix weightsScaled;              // (n, n) softmax(Q K^T / sqrt(d_k))
    double varRaw = 0, varScaled = 0;  // population variance of the scores
    double meanMaxRaw = 0, meanMaxScaled = 0;
    double meanEntropyRaw = 0, meanEntropyScaled = 0;  // nats
    double meanGradRaw = 0, meanGradScaled = 0;        // mean ||J||_F per row
};

ScalingComparison compareScaling(const AttentionResult& result);

// The d_k slider: positions 0..kDkSliderPositions map log-evenly onto
// 1..1024 (d_k = round(2^(10 * pos / kDkSliderPositions))), so each octave
// gets the same travel and every d_k up to about 140 is reachable.
inline constexpr int kDkSliderPositions = 1000;
int dkFromSliderPosition(int position);
// The first position that gives `dK` if one does, else the position whose
// d_k is nearest; clamps to the slider.
int sliderPositionFromDk(int dK);

}  // namespace attn
