// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Row-wise softmax, numerically stable.
//
// Each row: subtract the row maximum, exponentiate, divide by the sum. The
// maximum is subtracted only for stability (softmax is shift invariant): with
// it, finite inputs of any magnitude give finite weights in [0, 1]. Entries
// equal to -inf (masked) get weight exactly 0. A row whose every entry is -inf
// has no finite weight; it becomes all zeros and is reported by the return
// value (a causal mask never produces one: the diagonal is always kept).

#include "matrix.h"

namespace attn {

// In place over `m` (rows, cols). Returns the number of fully masked rows.
int softmaxRowsInPlace(Matrix& m);

// One row of `n` values from `in` to `out` (may alias). Returns false for a
// fully masked row (out set to zeros).
bool softmaxRow(const double* in, double* out, int n);

// How scaledSoftmaxRow normalised one row: out[j] = exp(scaled[j] - max) * invSum.
struct SoftmaxRowScale {
    double max = 0.0;     // the row's largest scaled value
    double invSum = 1.0;  // 1 / sum_j exp(scaled[j] - max)
};

// How the exponentials of an attention row are taken: Eigen's vectorised
// exp (baseline SSE2 packets, the tail scalar), or the AVX2 kernel
// (kernels::softmaxRow) where the processor has it. A result records which,
// so that a weight read later is the one its row got.
enum class SoftmaxKernel { Baseline, Avx2 };

// The attention row in one go: scaled[j] = in[j] / divisor, out = softmax of
// scaled; the same numbers as dividing and then calling softmaxRow (to the
// exponentials' last bit with the AVX2 kernel), in fewer passes over the
// row. `in` must be finite (raw scores); `scaled` and `out` must not alias
// `in` or each other.
SoftmaxRowScale scaledSoftmaxRow(const double* in, double divisor, double* scaled, double* out, int n,
                                 SoftmaxKernel kernel = SoftmaxKernel::Baseline);

// Entry j of that row from its scaled value and the row's scale, bit for bit
// the number scaledSoftmaxRow wrote with the same kernel (the same
// exponential at the same position of an n-entry row), so that a row need
// not be kept to be shown.
double scaledSoftmaxEntry(double scaled, const SoftmaxRowScale& row, int j, int n,
                          SoftmaxKernel kernel = SoftmaxKernel::Baseline);

}  // namespace attn
