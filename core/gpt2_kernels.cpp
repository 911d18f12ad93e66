// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2_kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ATTN_GPT2_X86 1
#define ATTN_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace attn::kernels {

#ifdef ATTN_GPT2_X86

namespace {

constexpr int kCols = 8;   // columns per tile: two vectors of four doubles
constexpr int kRows = 6;   // rows per tile: 6 x 2 accumulators of 16 registers
constexpr int kGroup = 4;  // panels converted together
constexpr int kPrefetchRows = 16;

// R rows of A times a panel of 8 columns (depth x 8 doubles) into C.
template <int R>
ATTN_AVX2 void tile(const double* a, std::ptrdiff_t lda, int depth, const double* panel, double* c,
                    std::ptrdiff_t ldc)
{
    __m256d acc[R][2];
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r)
        acc[r][0] = acc[r][1] = _mm256_setzero_pd();
    for (int p = 0; p < depth; ++p) {
        const __m256d b0 = _mm256_loadu_pd(panel + p * kCols);
        const __m256d b1 = _mm256_loadu_pd(panel + p * kCols + 4);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m256d x = _mm256_broadcast_sd(a + r * lda + p);
            acc[r][0] = _mm256_fmadd_pd(x, b0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_pd(x, b1, acc[r][1]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
        _mm256_storeu_pd(c + r * ldc, acc[r][0]);
        _mm256_storeu_pd(c + r * ldc + 4, acc[r][1]);
    }
}

ATTN_AVX2 void tileOf(int rows, const double* a, std::ptrdiff_t lda, int depth, const double* panel,
                      double* c, std::ptrdiff_t ldc)
{
    switch (rows) {
    case 6: tile<6>(a, lda, depth, panel, c, ldc); break;
    case 5: tile<5>(a, lda, depth, panel, c, ldc); break;
    case 4: tile<4>(a, lda, depth, panel, c, ldc); break;
    case 3: tile<3>(a, lda, depth, panel, c, ldc); break;
    case 2: tile<2>(a, lda, depth, panel, c, ldc); break;
    default: tile<1>(a, lda, depth, panel, c, ldc); break;
    }
}

// The columns beyond the last full tile: the same chain, one entry at a time.
ATTN_AVX2 void tailColumns(const double* a, std::ptrdiff_t lda, int rows, int depth, const float* b,
                           std::ptrdiff_t ldb, int cols, double* c, std::ptrdiff_t ldc)
{
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            double acc = 0.0;
            for (int p = 0; p < depth; ++p)
                acc = std::fma(a[i * lda + p], double(b[p * ldb + j]), acc);
            c[i * ldc + j] = acc;
        }
}

ATTN_AVX2 double dotRow(const double* a, const float* b, int depth)
{
    __m256d acc = _mm256_setzero_pd();
    int p = 0;
    for (; p + 4 <= depth; p += 4)
        acc = _mm256_fmadd_pd(_mm256_loadu_pd(a + p), _mm256_cvtps_pd(_mm_loadu_ps(b + p)), acc);
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, acc);
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; p < depth; ++p)
        sum = std::fma(a[p], double(b[p]), sum);
    return sum;
}

}  // namespace

ATTN_AVX2 void productFloatWeights(const double* A, std::ptrdiff_t lda, int rows, int depth, const float* B,
                                   std::ptrdiff_t ldb, int cols, double* C, std::ptrdiff_t ldc)
{
    // kGroup panels of 8 columns at a time (128 bytes of each row of B, so
    // that a page of B is visited once per group, not once per panel: its
    // rows are a page or more apart) are converted to doubles once (depth x
    // 8 each, 48 KiB at E = 768) and read by every row tile.
    const int fullCols = cols / kCols * kCols;
    // Kept per thread: 192 KiB at E = 768, above malloc's threshold for
    // mapping fresh pages, so a new buffer per call (hundreds per pass)
    // would fault in and zero its pages every time.
    thread_local std::vector<double> panels;
    panels.resize(std::size_t(depth) * kGroup * kCols);
    // The rows in tiles of at most 6, as even as they go (32 rows: 6 6 5 5 5
    // 5, not 6 6 6 6 6 2: a tile of 2 rows waits on its few accumulators).
    const int tiles = (rows + kRows - 1) / kRows;
    const auto tileRows = [&](int t) { return rows / tiles + (t < rows % tiles ? 1 : 0); };
    for (int j = 0; j < fullCols; j += kGroup * kCols) {
        const int count = std::min(kGroup, (fullCols - j) / kCols);
        for (int p = 0; p < depth; ++p) {
            const float* row = B + p * ldb + j;
            // The rows are too far apart for the hardware's prefetcher: the
            // group's lines kPrefetchRows rows ahead are asked for here.
            if (p + kPrefetchRows < depth)
                for (int q = 0; q < count; q += 2)
                    _mm_prefetch(reinterpret_cast<const char*>(row + kPrefetchRows * ldb + q * kCols),
                                 _MM_HINT_T0);
            for (int q = 0; q < count; ++q) {
                double* out = panels.data() + (std::size_t(q) * std::size_t(depth) + std::size_t(p)) * kCols;
                _mm256_storeu_pd(out, _mm256_cvtps_pd(_mm_loadu_ps(row + q * kCols)));
                _mm256_storeu_pd(out + 4, _mm256_cvtps_pd(_mm_loadu_ps(row + q * kCols + 4)));
            }
        }
        for (int q = 0; q < count; ++q)
            for (int t = 0, i = 0; t < tiles; i += tileRows(t), ++t)
                tileOf(tileRows(t), A + i * lda, lda, depth,
                       panels.data() + std::size_t(q) * std::size_t(depth) * kCols,
                       C + i * ldc + j + q * kCols, ldc);
    }
    if (fullCols < cols)
        tailColumns(A, lda, rows, depth, B + fullCols, ldb, cols - fullCols, C + fullCols, ldc);
}

ATTN_AVX2 void productFloatWeightsTransposed(const double* A, std::ptrdiff_t lda, int rows, int depth,
                                             const float* Bt, std::ptrdiff_t ldb, int count, double* C,
                                             std::ptrdiff_t ldc)
{
    // Eight rows of Bt (24 KiB at E = 768) against every row of A.
    constexpr int kBlock = 8;
    for (int t0 = 0; t0 < count; t0 += kBlock) {
        const int t1 = std::min(count, t0 + kBlock);
        for (int i = 0; i < rows; ++i)
            for (int t = t0; t < t1; ++t)
                C[i * ldc + t] = dotRow(A + i * lda, Bt + t * ldb, depth);
    }
}

#else

// Never called: available() is false where the kernels are not built.
void productFloatWeights(const double*, std::ptrdiff_t, int, int, const float*, std::ptrdiff_t, int, double*,
                         std::ptrdiff_t)
{
}

void productFloatWeightsTransposed(const double*, std::ptrdiff_t, int, int, const float*, std::ptrdiff_t, int,
                                   double*, std::ptrdiff_t)
{
}

#endif

}  // namespace attn::kernels
