// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The two large products of the attention pass, S = Q K^T and Z = A V, with
// AVX2 and FMA where the processor has them. A Debian build targets the
// baseline x86-64 (SSE2), where Eigen's products use two doubles per
// instruction and separate multiplies and adds; these kernels use four per
// fused instruction, chosen at run time so the same binary runs everywhere.
//
// Each output entry is one fused multiply-add chain over the inner
// dimension in order (p = 0, 1, ... for a score, j = 0, 1, ... for a
// context entry), whatever the tile, panel or thread it falls in, so the
// numbers do not depend on how the work is split. They differ from Eigen's
// products in the last bits (another rounding of the same sums).
//
// Plain C++ and intrinsics; no Eigen in the kernels' translation unit, so
// nothing compiled for AVX2 can stand in for the baseline build's code.

#include <cstddef>
#include <vector>

namespace attn::kernels {

// Whether the kernels run on this machine: x86-64 with AVX2 and FMA, not
// switched off by setEnabled(false).
bool available();
// The kernel choice, made by the caller (attention-lab's --kernel
// auto|baseline, the bench's --kernel, tests); core reads no environment.
// Use the kernels (where the processor has them) or Eigen's products.
// Process-wide; not for use while a pass runs.
void setEnabled(bool enabled);

// K (n, d) row-major, repacked for scores(): blocks of 8 keys, each block
// p-major (d rows of 8 values), the last block padded with zeros.
struct PackedKeys {
    std::vector<double> data;
    int n = 0;
    int d = 0;
};
void packKeys(const double* K, int n, int d, PackedKeys* out);

// S(i, j) = sum_p Q(i, p) K(j, p) for `rows` query rows of Q (row-major,
// d columns) and every key: S row-major with leading dimension ldS.
void scores(const double* Q, int rows, const PackedKeys& keys, double* S, std::ptrdiff_t ldS);

// V (n, dv) row-major, repacked for context(): blocks of 8 columns, each
// block n rows of 8 values, the last block padded with zeros.
struct PackedValues {
    std::vector<double> data;
    int n = 0;
    int dv = 0;
};
void packValues(const double* V, int n, int dv, PackedValues* out);

// The same packing of V from its transpose Vt (dv, n) row-major, e.g. an
// nn.Linear weight (out, in) for x W^T: no transposed copy is made.
void packValuesTransposed(const double* Vt, int n, int dv, PackedValues* out);

// Z(i, c) = sum_j W(i, j) V(j, c) for `rows` rows of W (row-major, leading
// dimension ldW) into Z (row-major, leading dimension ldZ, dv columns).
// With causalRow0 >= 0, row i of W is query causalRow0 + i of a causal map:
// its weights beyond key causalRow0 + i are zeros and are skipped.
void context(const double* W, std::ptrdiff_t ldW, int rows, const PackedValues& values, double* Z,
             std::ptrdiff_t ldZ, int causalRow0 = -1);

// The softmax of one row with AVX2: scaled[j] = in[j] / divisor (the same
// IEEE division as anywhere), out[j] = exp(scaled[j] - max) / sum, four
// entries at a time with exp() below; *max and *invSum as
// scaledSoftmaxRow reports them. `scaled` and `out` must not alias `in`.
void softmaxRow(const double* in, double divisor, double* scaled, double* out, int n, double* max,
                double* invSum);

// The exponential softmaxRow takes, for one value: the same vector code on
// a broadcast, so a weight read alone is bit for bit the one its row got.
// Within 2 ulp of exp(x); underflows to subnormals and 0 like exp(x).
double exp(double x);

}  // namespace attn::kernels
