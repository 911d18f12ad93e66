// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The products of the GPT-2 pass: double activations times float32
// weights, each weight converted to double (exactly) and every sum taken
// in double with AVX2 and FMA, reading the weights where they lie (no
// converted copy: blocks of 256 x 64 weights are converted into a 128 KiB
// buffer kept per thread, and multiplied there in tiles of 6 x 8). Each output entry is one fused
// multiply-add chain over the inner dimension in order from zero, whatever the tile, block or thread it falls
// in, so a column block of a product is bit for bit the product with that block of the weights, and the entry
// equals
//   acc = 0; for p in 0 .. depth-1: acc = fma(A(i, p), double(B(p, j)), acc)
// (tst_gpt2kernels holds both to a plain loop). For use when
// kernels::available(); the pass takes Eigen's products over converted
// blocks otherwise.
//
// Plain C++ and intrinsics; no Eigen in the translation unit (see kernels.h).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attn::kernels {

// A (rows, depth) repacked for productFloatWeights: tiles of at most 6 rows
// (as even as they go: 32 rows are 6 6 5 5 5 5), each tile depth x 6
// doubles, p-major. Packed once, read by every column block (and thread).
struct PackedRows {
    std::vector<double> data;
    int rows = 0;
    int depth = 0;
    int tiles = 0;
};
void packRows(const double* A, std::ptrdiff_t lda, int rows, int depth, PackedRows* out);

// Weights the caller multiplies next (rows x cols floats, ld apart), whose
// first rows are read from memory during a product's last strip; none when
// data is null. A hint: prefetching never faults, nothing is read.
struct WeightsAhead {
    const float* data = nullptr;
    std::ptrdiff_t ld = 0;
    int rows = 0;
    int cols = 0;
};

// C (rows, cols) = A B for A packed by packRows and B (depth, cols) float
// row-major (ldb), C double row-major (ldc). B is read in blocks of 256
// rows x 64 columns (a strip of 256 rows, left to right, then the next
// strip), each block prefetched while the one before it is multiplied, and
// `ahead`'s first block during the last.
void productFloatWeights(const PackedRows& A, const float* B, std::ptrdiff_t ldb, int cols, double* C,
                         std::ptrdiff_t ldc, const WeightsAhead& ahead);

// The same with A (rows, depth) double row-major (lda), packed into a
// buffer kept per thread.
void productFloatWeights(const double* A, std::ptrdiff_t lda, int rows, int depth, const float* B,
                         std::ptrdiff_t ldb, int cols, double* C, std::ptrdiff_t ldc);

// C (rows, count) = A (rows, depth) Bt^T for Bt (count, depth) float
// row-major (ldb): C(i, t) = sum_p A(i, p) Bt(t, p), nn.Linear's x W^T and
// the logits h wte^T. Each entry: four chains over p = 4m + lane, then
// (lane 0 + lane 1) + (lane 2 + lane 3), then the depth % 4 tail in order.
void productFloatWeightsTransposed(const double* A, std::ptrdiff_t lda, int rows, int depth, const float* Bt,
                                   std::ptrdiff_t ldb, int count, double* C, std::ptrdiff_t ldc);

// The same with Bt bfloat16 (each entry the upper half of a float32, as a
// BF16 checkpoint stores it): bit for bit the product with Bt converted to
// float32 first.
void productBf16WeightsTransposed(const double* A, std::ptrdiff_t lda, int rows, int depth,
                                  const std::uint16_t* Bt, std::ptrdiff_t ldb, int count, double* C,
                                  std::ptrdiff_t ldc);

}  // namespace attn::kernels
