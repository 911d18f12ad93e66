// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ATTN_GPT2_X86 1
#define ATTN_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace attn::kernels {

namespace {

constexpr int kRows = 6;  // rows per tile: 6 x 2 accumulators of 16 registers

int tileStart(int rows, int tiles, int t)
{
    return t * (rows / tiles) + std::min(t, rows % tiles);
}

}  // namespace

void packRows(const double* A, std::ptrdiff_t lda, int rows, int depth, PackedRows* out)
{
    out->rows = rows;
    out->depth = depth;
    out->tiles = (rows + kRows - 1) / kRows;
    out->data.resize(std::size_t(out->tiles) * std::size_t(depth) * kRows);
    for (int t = 0; t < out->tiles; ++t) {
        const int i0 = tileStart(rows, out->tiles, t);
        const int r = tileStart(rows, out->tiles, t + 1) - i0;
        double* panel = out->data.data() + std::size_t(t) * std::size_t(depth) * kRows;
        for (int p = 0; p < depth; ++p)
            for (int k = 0; k < kRows; ++k)
                panel[std::size_t(p) * kRows + std::size_t(k)] = k < r ? A[(i0 + k) * lda + p] : 0.0;
    }
}

#ifdef ATTN_GPT2_X86

namespace {

constexpr int kCols = 8;          // columns per tile: two vectors of four doubles
constexpr int kDepthBlock = 256;  // kc: a panel of kc x 8 doubles (16 KiB) stays in L1
constexpr int kColumnBlock = 64;  // nc: a block of B converted at a time (kc x nc, 128 KiB)
constexpr int kTileGroup = 16;    // row tiles per pass over a block's panels (96 rows, 192 KiB of A)

// The lines of a block of B (rows x width floats, ldb apart: 256 x 64, four
// lines a row) asked for in order, one every `every` steps of the tiles'
// inner loop, so that the block comes from memory while the one before it
// is multiplied. Spread over the loop, not in a burst: the processor's few
// outstanding misses make a burst of requests stall.
class Prefetcher {
public:
    void start(const float* block, std::ptrdiff_t ldb, int rows, int width, long steps)
    {
        row_ = reinterpret_cast<std::uintptr_t>(block);
        stride_ = ldb * std::ptrdiff_t(sizeof(float));
        bytes_ = std::uintptr_t(std::max(width, 0)) * sizeof(float);
        rowsLeft_ = width > 0 ? rows : 0;
        const long lines = long(rowsLeft_) * long(bytes_ / kLine + 2);
        every_ = lines > 0 ? int(std::clamp(steps / lines, 1L, 64L)) : 1;
        countdown_ = every_;
        beginRow();
    }
    void tick()
    {
        if (--countdown_ > 0 || rowsLeft_ <= 0)
            return;
        countdown_ = every_;
        _mm_prefetch(reinterpret_cast<const char*>(line_), _MM_HINT_T0);
        line_ += kLine;
        if (line_ > last_) {
            row_ += std::uintptr_t(stride_);
            --rowsLeft_;
            beginRow();
        }
    }

private:
    static constexpr std::uintptr_t kLine = 64;
    void beginRow()
    {
        line_ = row_ & ~(kLine - 1);
        last_ = (row_ + bytes_ - 1) & ~(kLine - 1);
    }
    std::uintptr_t row_ = 0, line_ = 0, last_ = 0, bytes_ = 0;
    std::ptrdiff_t stride_ = 0;
    int rowsLeft_ = 0;
    int every_ = 1;
    int countdown_ = 1;
};

// R rows of packed A (k x 6) times a panel of 8 columns (k x 8 doubles)
// into C, continuing the chains already in C when Continue.
template <int R, bool Continue>
ATTN_AVX2 void tile(const double* a, int k, const double* panel, double* c, std::ptrdiff_t ldc,
                    Prefetcher& pf)
{
    __m256d acc[R][2];
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
        if (Continue) {
            acc[r][0] = _mm256_loadu_pd(c + r * ldc);
            acc[r][1] = _mm256_loadu_pd(c + r * ldc + 4);
        } else {
            acc[r][0] = acc[r][1] = _mm256_setzero_pd();
        }
    }
    for (int p = 0; p < k; ++p) {
        pf.tick();
        const __m256d b0 = _mm256_loadu_pd(panel + p * kCols);
        const __m256d b1 = _mm256_loadu_pd(panel + p * kCols + 4);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m256d x = _mm256_broadcast_sd(a + p * kRows + r);
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

template <bool Continue>
ATTN_AVX2 void tileOf(int rows, const double* a, int k, const double* panel, double* c, std::ptrdiff_t ldc,
                      Prefetcher& pf)
{
    switch (rows) {
    case 6: tile<6, Continue>(a, k, panel, c, ldc, pf); break;
    case 5: tile<5, Continue>(a, k, panel, c, ldc, pf); break;
    case 4: tile<4, Continue>(a, k, panel, c, ldc, pf); break;
    case 3: tile<3, Continue>(a, k, panel, c, ldc, pf); break;
    case 2: tile<2, Continue>(a, k, panel, c, ldc, pf); break;
    default: tile<1, Continue>(a, k, panel, c, ldc, pf); break;
    }
}

// The columns beyond the last full tile: the same chain, one entry at a time.
ATTN_AVX2 void tailColumns(const PackedRows& A, const float* b, std::ptrdiff_t ldb, int cols, double* c,
                           std::ptrdiff_t ldc)
{
    for (int t = 0; t < A.tiles; ++t) {
        const int i0 = tileStart(A.rows, A.tiles, t);
        const int r = tileStart(A.rows, A.tiles, t + 1) - i0;
        const double* a = A.data.data() + std::size_t(t) * std::size_t(A.depth) * kRows;
        for (int k = 0; k < r; ++k)
            for (int j = 0; j < cols; ++j) {
                double acc = 0.0;
                for (int p = 0; p < A.depth; ++p)
                    acc = std::fma(a[std::size_t(p) * kRows + std::size_t(k)], double(b[p * ldb + j]), acc);
                c[(i0 + k) * ldc + j] = acc;
            }
    }
}

double* panelBuffer()
{
    // Kept per thread: 128 KiB, above malloc's threshold for mapping fresh
    // pages, so a new buffer per call (hundreds per pass) would fault in and
    // zero its pages every time.
    thread_local std::vector<double> panels(std::size_t(kDepthBlock) * kColumnBlock);
    return panels.data();
}

}  // namespace

ATTN_AVX2 void productFloatWeights(const PackedRows& A, const float* B, std::ptrdiff_t ldb, int cols,
                                   double* C, std::ptrdiff_t ldc, const WeightsAhead& ahead)
{
    // Strips of kc rows of B, each in blocks of nc columns: a block is
    // converted into panels (kc x 8 doubles each, in L1 while the row tiles
    // read it) and multiplied, continuing C's chains after the first strip,
    // while the next strip (or the caller's next weights) is prefetched.
    const int depth = A.depth;
    const int fullCols = cols / kCols * kCols;
    double* const panels = panelBuffer();
    const int groups = (A.tiles + kTileGroup - 1) / kTileGroup;
    for (int pc = 0; pc < depth; pc += kDepthBlock) {
        const int k = std::min(kDepthBlock, depth - pc);
        for (int jc = 0; jc < fullCols; jc += kColumnBlock) {
            const int width = std::min(kColumnBlock, fullCols - jc);
            const int count = width / kCols;
            // The next block: the same rows' next columns (their pages just
            // visited), else the next strip's first, else the caller's next
            // weights' first.
            Prefetcher pf;
            const long steps = long(count) * A.tiles * k;
            if (jc + kColumnBlock < fullCols)
                pf.start(B + pc * ldb + jc + kColumnBlock, ldb, k,
                         std::min(kColumnBlock, fullCols - jc - kColumnBlock), steps);
            else if (pc + kDepthBlock < depth)
                pf.start(B + (pc + kDepthBlock) * ldb, ldb, std::min(kDepthBlock, depth - pc - kDepthBlock),
                         std::min(kColumnBlock, fullCols), steps);
            else if (ahead.data)
                pf.start(ahead.data, ahead.ld, std::min(kDepthBlock, ahead.rows),
                         std::min(kColumnBlock, ahead.cols), steps);
            const float* block = B + pc * ldb + jc;
            for (int p = 0; p < k; ++p) {
                const float* row = block + p * ldb;
                for (int q = 0; q < count; ++q) {
                    double* out = panels + (std::size_t(q) * std::size_t(k) + std::size_t(p)) * kCols;
                    _mm256_storeu_pd(out, _mm256_cvtps_pd(_mm_loadu_ps(row + q * kCols)));
                    _mm256_storeu_pd(out + 4, _mm256_cvtps_pd(_mm_loadu_ps(row + q * kCols + 4)));
                }
            }
            for (int g = 0; g < groups; ++g) {
                const int t0 = g * kTileGroup;
                const int t1 = std::min(A.tiles, t0 + kTileGroup);
                for (int q = 0; q < count; ++q) {
                    const double* panel = panels + std::size_t(q) * std::size_t(k) * kCols;
                    for (int t = t0; t < t1; ++t) {
                        const int i0 = tileStart(A.rows, A.tiles, t);
                        const int r = tileStart(A.rows, A.tiles, t + 1) - i0;
                        const double* a =
                            A.data.data() + (std::size_t(t) * std::size_t(depth) + std::size_t(pc)) * kRows;
                        double* c = C + i0 * ldc + jc + q * kCols;
                        if (pc == 0)
                            tileOf<false>(r, a, k, panel, c, ldc, pf);
                        else
                            tileOf<true>(r, a, k, panel, c, ldc, pf);
                    }
                }
            }
        }
    }
    if (fullCols < cols)
        tailColumns(A, B + fullCols, ldb, cols - fullCols, C + fullCols, ldc);
}

ATTN_AVX2 void productFloatWeights(const double* A, std::ptrdiff_t lda, int rows, int depth, const float* B,
                                   std::ptrdiff_t ldb, int cols, double* C, std::ptrdiff_t ldc)
{
    thread_local PackedRows packed;
    packRows(A, lda, rows, depth, &packed);
    productFloatWeights(packed, B, ldb, cols, C, ldc, {});
}

namespace {

// A weight as double: a float32, or a bfloat16 (the upper half of one).
inline double weightAt(const float* b, int p)
{
    return double(b[p]);
}

inline double weightAt(const std::uint16_t* b, int p)
{
    const std::uint32_t bits = std::uint32_t(b[p]) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return double(f);
}

// Four weights from b + p as doubles.
ATTN_AVX2 inline __m256d weights4(const float* b, int p)
{
    return _mm256_cvtps_pd(_mm_loadu_ps(b + p));
}

ATTN_AVX2 inline __m256d weights4(const std::uint16_t* b, int p)
{
    const __m128i half = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + p));
    return _mm256_cvtps_pd(_mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), half)));
}

template <typename W>
ATTN_AVX2 double reduceLanes(__m256d acc, const double* a, const W* b, int p, int depth)
{
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, acc);
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; p < depth; ++p)
        sum = std::fma(a[p], weightAt(b, p), sum);
    return sum;
}

template <typename W>
ATTN_AVX2 double dotRow(const double* a, const W* b, int depth)
{
    __m256d acc = _mm256_setzero_pd();
    int p = 0;
    for (; p + 4 <= depth; p += 4)
        acc = _mm256_fmadd_pd(_mm256_loadu_pd(a + p), weights4(b, p), acc);
    return reduceLanes(acc, a, b, p, depth);
}

// Four rows of Bt against one row of a, each entry dotRow's chain: the
// four chains are independent, so the multiply-adds' latency overlaps
// (one chain waited on each of its own).
template <typename W>
ATTN_AVX2 void dotRows4(const double* a, const W* b, std::ptrdiff_t ldb, int depth, double* out)
{
    __m256d acc0 = _mm256_setzero_pd(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    int p = 0;
    for (; p + 4 <= depth; p += 4) {
        const __m256d x = _mm256_loadu_pd(a + p);
        acc0 = _mm256_fmadd_pd(x, weights4(b, p), acc0);
        acc1 = _mm256_fmadd_pd(x, weights4(b + ldb, p), acc1);
        acc2 = _mm256_fmadd_pd(x, weights4(b + 2 * ldb, p), acc2);
        acc3 = _mm256_fmadd_pd(x, weights4(b + 3 * ldb, p), acc3);
    }
    out[0] = reduceLanes(acc0, a, b, p, depth);
    out[1] = reduceLanes(acc1, a, b + ldb, p, depth);
    out[2] = reduceLanes(acc2, a, b + 2 * ldb, p, depth);
    out[3] = reduceLanes(acc3, a, b + 3 * ldb, p, depth);
}

template <typename W>
ATTN_AVX2 void productTransposed(const double* A, std::ptrdiff_t lda, int rows, int depth, const W* Bt,
                                 std::ptrdiff_t ldb, int count, double* C, std::ptrdiff_t ldc)
{
    // Eight rows of Bt (24 KiB at E = 768) against every row of A.
    constexpr int kBlock = 8;
    for (int t0 = 0; t0 < count; t0 += kBlock) {
        const int t1 = std::min(count, t0 + kBlock);
        for (int i = 0; i < rows; ++i) {
            int t = t0;
            for (; t + 4 <= t1; t += 4)
                dotRows4(A + i * lda, Bt + t * ldb, ldb, depth, C + i * ldc + t);
            for (; t < t1; ++t)
                C[i * ldc + t] = dotRow(A + i * lda, Bt + t * ldb, depth);
        }
    }
}

}  // namespace

ATTN_AVX2 void productFloatWeightsTransposed(const double* A, std::ptrdiff_t lda, int rows, int depth,
                                             const float* Bt, std::ptrdiff_t ldb, int count, double* C,
                                             std::ptrdiff_t ldc)
{
    productTransposed(A, lda, rows, depth, Bt, ldb, count, C, ldc);
}

ATTN_AVX2 void productBf16WeightsTransposed(const double* A, std::ptrdiff_t lda, int rows, int depth,
                                            const std::uint16_t* Bt, std::ptrdiff_t ldb, int count, double* C,
                                            std::ptrdiff_t ldc)
{
    productTransposed(A, lda, rows, depth, Bt, ldb, count, C, ldc);
}

#else

// Never called: available() is false where the kernels are not built.
void productFloatWeights(const PackedRows&, const float*, std::ptrdiff_t, int, double*, std::ptrdiff_t)
{
}

void productFloatWeights(const double*, std::ptrdiff_t, int, int, const float*, std::ptrdiff_t, int, double*,
                         std::ptrdiff_t)
{
}

void productFloatWeightsTransposed(const double*, std::ptrdiff_t, int, int, const float*, std::ptrdiff_t, int,
                                   double*, std::ptrdiff_t)
{
}

void productBf16WeightsTransposed(const double*, std::ptrdiff_t, int, int, const std::uint16_t*,
                                  std::ptrdiff_t, int, double*, std::ptrdiff_t)
{
}

#endif

}  // namespace attn::kernels
