// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The products of the GPT-2 pass: double activations times float32
// weights, each weight converted to double (exactly) and every sum taken
// in double with AVX2 and FMA, reading the weights where they lie (no
// converted copy). Each output entry is one fused multiply-add chain over
// the inner dimension in order from zero, whatever the tile or thread it
// falls in, so a column block of a product is bit for bit the product with
// that block of the weights. For use when kernels::available(); the pass
// takes Eigen's products over converted blocks otherwise.
//
// Plain C++ and intrinsics; no Eigen in the translation unit (see kernels.h).

#include <cstddef>

namespace attn::kernels {

// C (rows, cols) = A (rows, depth) B (depth, cols): A double row-major with
// leading dimension lda, B float row-major (ldb), C double row-major (ldc).
void productFloatWeights(const double* A, std::ptrdiff_t lda, int rows, int depth, const float* B,
                         std::ptrdiff_t ldb, int cols, double* C, std::ptrdiff_t ldc);

// C (rows, count) = A (rows, depth) Bt^T for Bt (count, depth) float
// row-major (ldb): C(i, t) = sum_p A(i, p) Bt(t, p), nn.Linear's x W^T and
// the logits h wte^T. Each entry: four chains over p = 4m + lane, then
// (lane 0 + lane 1) + (lane 2 + lane 3), then the depth % 4 tail in order.
void productFloatWeightsTransposed(const double* A, std::ptrdiff_t lda, int rows, int depth, const float* Bt,
                                   std::ptrdiff_t ldb, int count, double* C, std::ptrdiff_t ldc);

}  // namespace attn::kernels
