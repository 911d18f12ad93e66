// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernels.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ATTN_KERNELS_X86 1
#define ATTN_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace attn::kernels {

namespace {

constexpr int kCols = 8;  // columns per block: two vectors of four doubles
constexpr int kRows = 6;  // rows per tile: 6 x 2 accumulators of 16 registers
// Keys per block of the context product: 128 keys of a value block (8 KiB)
// and of a six-row tile of weights (6 KiB) stay in L1 together.
constexpr int kKeyBlock = 128;

std::atomic<bool> enabled{true};

bool processorHasThem()
{
#ifdef ATTN_KERNELS_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

}  // namespace

bool available()
{
    static const bool processor = processorHasThem();
    return processor && enabled.load(std::memory_order_relaxed);
}

void setEnabled(bool on)
{
    enabled.store(on, std::memory_order_relaxed);
}

namespace {

// `count` rows of `length` values, eight rows side by side per block:
// block b's line p holds row 8b + c's value p in column c (zero padded).
void packRowBlocks(const double* rows, int count, int length, std::vector<double>* data)
{
    const int blocks = (count + kCols - 1) / kCols;
    data->assign(std::size_t(blocks) * std::size_t(length) * kCols, 0.0);
    for (int b = 0; b < blocks; ++b) {
        double* block = data->data() + std::size_t(b) * std::size_t(length) * kCols;
        const int cols = std::min(kCols, count - b * kCols);
        for (int c = 0; c < cols; ++c) {
            const double* row = rows + std::size_t(b * kCols + c) * std::size_t(length);
            for (int p = 0; p < length; ++p)
                block[std::size_t(p) * kCols + std::size_t(c)] = row[p];
        }
    }
}

}  // namespace

void packKeys(const double* K, int n, int d, PackedKeys* out)
{
    out->n = n;
    out->d = d;
    packRowBlocks(K, n, d, &out->data);
}

void packValues(const double* V, int n, int dv, PackedValues* out)
{
    const int blocks = (dv + kCols - 1) / kCols;
    out->n = n;
    out->dv = dv;
    out->data.assign(std::size_t(blocks) * std::size_t(n) * kCols, 0.0);
    for (int b = 0; b < blocks; ++b) {
        double* block = out->data.data() + std::size_t(b) * std::size_t(n) * kCols;
        const int cols = std::min(kCols, dv - b * kCols);
        for (int j = 0; j < n; ++j)
            std::memcpy(block + std::size_t(j) * kCols, V + std::size_t(j) * std::size_t(dv) + b * kCols,
                        std::size_t(cols) * sizeof(double));
    }
}

void packValuesTransposed(const double* Vt, int n, int dv, PackedValues* out)
{
    // Block b's row j holds V(j, 8b + c) = Vt(8b + c, j): eight rows of Vt
    // side by side, as the keys are packed.
    out->n = n;
    out->dv = dv;
    packRowBlocks(Vt, dv, n, &out->data);
}

#ifdef ATTN_KERNELS_X86

namespace {

// R rows of Q (leading dimension d) against one block of 8 keys: out (R, 8).
template <int R>
ATTN_AVX2 void scoreTile(const double* q, int d, const double* block, double* out, std::ptrdiff_t ldOut)
{
    __m256d acc[R][2];
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r)
        acc[r][0] = acc[r][1] = _mm256_setzero_pd();
    for (int p = 0; p < d; ++p) {
        const __m256d b0 = _mm256_loadu_pd(block + std::size_t(p) * kCols);
        const __m256d b1 = _mm256_loadu_pd(block + std::size_t(p) * kCols + 4);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m256d a = _mm256_broadcast_sd(q + std::size_t(r) * std::size_t(d) + std::size_t(p));
            acc[r][0] = _mm256_fmadd_pd(a, b0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_pd(a, b1, acc[r][1]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
        _mm256_storeu_pd(out + r * ldOut, acc[r][0]);
        _mm256_storeu_pd(out + r * ldOut + 4, acc[r][1]);
    }
}

ATTN_AVX2 void scoreTileOf(int rows, const double* q, int d, const double* block, double* out,
                           std::ptrdiff_t ldOut)
{
    switch (rows) {
    case 6: scoreTile<6>(q, d, block, out, ldOut); break;
    case 5: scoreTile<5>(q, d, block, out, ldOut); break;
    case 4: scoreTile<4>(q, d, block, out, ldOut); break;
    case 3: scoreTile<3>(q, d, block, out, ldOut); break;
    case 2: scoreTile<2>(q, d, block, out, ldOut); break;
    default: scoreTile<1>(q, d, block, out, ldOut); break;
    }
}

// R rows of W (leading dimension ldW) times keys [j0, j1) of one value
// block into out (R, 8), which holds the sums over keys [0, j0) unless j0
// is 0: the chain of each entry goes on in key order.
template <int R>
ATTN_AVX2 void contextTile(const double* w, std::ptrdiff_t ldW, int j0, int j1, const double* block,
                           double* out, std::ptrdiff_t ldOut)
{
    __m256d acc[R][2];
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
        if (j0 == 0) {
            acc[r][0] = acc[r][1] = _mm256_setzero_pd();
        } else {
            acc[r][0] = _mm256_loadu_pd(out + r * ldOut);
            acc[r][1] = _mm256_loadu_pd(out + r * ldOut + 4);
        }
    }
    for (int j = j0; j < j1; ++j) {
        const __m256d b0 = _mm256_loadu_pd(block + std::size_t(j) * kCols);
        const __m256d b1 = _mm256_loadu_pd(block + std::size_t(j) * kCols + 4);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const __m256d a = _mm256_broadcast_sd(w + r * ldW + j);
            acc[r][0] = _mm256_fmadd_pd(a, b0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_pd(a, b1, acc[r][1]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
        _mm256_storeu_pd(out + r * ldOut, acc[r][0]);
        _mm256_storeu_pd(out + r * ldOut + 4, acc[r][1]);
    }
}

ATTN_AVX2 void contextTileOf(int rows, const double* w, std::ptrdiff_t ldW, int j0, int j1,
                             const double* block, double* out, std::ptrdiff_t ldOut)
{
    switch (rows) {
    case 6: contextTile<6>(w, ldW, j0, j1, block, out, ldOut); break;
    case 5: contextTile<5>(w, ldW, j0, j1, block, out, ldOut); break;
    case 4: contextTile<4>(w, ldW, j0, j1, block, out, ldOut); break;
    case 3: contextTile<3>(w, ldW, j0, j1, block, out, ldOut); break;
    case 2: contextTile<2>(w, ldW, j0, j1, block, out, ldOut); break;
    default: contextTile<1>(w, ldW, j0, j1, block, out, ldOut); break;
    }
}

// e^x, four lanes: x = k ln 2 + r with |r| <= ln 2 / 2 (k rounded from
// x / ln 2, r by two fused steps with ln 2 split in a high and a low part),
// e^r by its Taylor polynomial to degree 13 (the next term is below 4e-18,
// a thirtieth of an ulp of 1), then scaled by 2^k in two steps, 2^(k - k/2)
// and 2^(k/2), each a normal double: a subnormal result is rounded once.
// Below -745.2 (e^x under half the smallest subnormal) the result is 0; the
// softmax passes only x <= 0, and nothing here overflows for x <= 709.
ATTN_AVX2 inline __m256d exp4(__m256d x)
{
    const __m256d lowest = _mm256_set1_pd(-745.2);
    const __m256d zeroBelow = _mm256_cmp_pd(x, lowest, _CMP_LT_OQ);
    x = _mm256_max_pd(x, lowest);
    const __m256d k = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(1.4426950408889634)),
                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(0x1.62e42fefa39efp-1), x);  // ln 2, high part
    r = _mm256_fnmadd_pd(k, _mm256_set1_pd(0x1.abc9e3b39803fp-56), r);         // ln 2, low part
    // 1/13! ... 1/2!, 1, 1 by Horner's rule with fused steps.
    static constexpr double kInverseFactorials[] = {1.0 / 6227020800.0,
                                                    1.0 / 479001600.0,
                                                    1.0 / 39916800.0,
                                                    1.0 / 3628800.0,
                                                    1.0 / 362880.0,
                                                    1.0 / 40320.0,
                                                    1.0 / 5040.0,
                                                    1.0 / 720.0,
                                                    1.0 / 120.0,
                                                    1.0 / 24.0,
                                                    1.0 / 6.0,
                                                    0.5,
                                                    1.0,
                                                    1.0};
    __m256d p = _mm256_set1_pd(kInverseFactorials[0]);
    for (std::size_t c = 1; c < std::size(kInverseFactorials); ++c)
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(kInverseFactorials[c]));
    // 2^a and 2^b with a + b = k, |a|, |b| <= 538: exponent fields built
    // from the integers.
    const __m128i ki = _mm256_cvtpd_epi32(k);
    const __m128i bi = _mm_srai_epi32(ki, 1);
    const __m128i ai = _mm_sub_epi32(ki, bi);
    const __m256i bias = _mm256_set1_epi64x(1023);
    const __m256d twoA =
        _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(ai), bias), 52));
    const __m256d twoB =
        _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(bi), bias), 52));
    const __m256d e = _mm256_mul_pd(_mm256_mul_pd(p, twoA), twoB);
    return _mm256_andnot_pd(zeroBelow, e);
}

}  // namespace

ATTN_AVX2 double exp(double x)
{
    return _mm256_cvtsd_f64(exp4(_mm256_set1_pd(x)));
}

ATTN_AVX2 void softmaxRow(const double* in, double divisor, double* scaled, double* out, int n, double* max,
                          double* invSum)
{
    // The last 1 to 3 entries go through the same vector code with masked
    // loads and stores, so every entry's exponential is exp() above.
    const int whole = n / 4 * 4;
    const int rest = n - whole;
    const __m256i tailMask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(rest), _mm256_set_epi64x(3, 2, 1, 0));
    const __m256d div = _mm256_set1_pd(divisor);
    __m256d maxv = _mm256_set1_pd(-std::numeric_limits<double>::infinity());
    for (int j = 0; j < whole; j += 4) {
        const __m256d v = _mm256_div_pd(_mm256_loadu_pd(in + j), div);
        _mm256_storeu_pd(scaled + j, v);
        maxv = _mm256_max_pd(maxv, v);
    }
    if (rest > 0) {
        const __m256d v = _mm256_div_pd(_mm256_maskload_pd(in + whole, tailMask), div);
        _mm256_maskstore_pd(scaled + whole, tailMask, v);
        maxv = _mm256_max_pd(maxv, _mm256_blendv_pd(maxv, v, _mm256_castsi256_pd(tailMask)));
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, maxv);
    const double largest = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
    const __m256d shift = _mm256_set1_pd(largest);
    __m256d sumv = _mm256_setzero_pd();
    for (int j = 0; j < whole; j += 4) {
        const __m256d e = exp4(_mm256_sub_pd(_mm256_loadu_pd(scaled + j), shift));
        _mm256_storeu_pd(out + j, e);
        sumv = _mm256_add_pd(sumv, e);
    }
    if (rest > 0) {
        const __m256d e = exp4(_mm256_sub_pd(_mm256_maskload_pd(scaled + whole, tailMask), shift));
        _mm256_maskstore_pd(out + whole, tailMask, e);
        sumv = _mm256_add_pd(sumv, _mm256_and_pd(e, _mm256_castsi256_pd(tailMask)));
    }
    _mm256_storeu_pd(lanes, sumv);
    const double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    const double inverse = 1.0 / sum;
    const __m256d scale = _mm256_set1_pd(inverse);
    for (int j = 0; j < whole; j += 4)
        _mm256_storeu_pd(out + j, _mm256_mul_pd(_mm256_loadu_pd(out + j), scale));
    for (int j = whole; j < n; ++j)
        out[j] *= inverse;
    *max = largest;
    *invSum = inverse;
}

ATTN_AVX2 void scores(const double* Q, int rows, const PackedKeys& keys, double* S, std::ptrdiff_t ldS)
{
    const int n = keys.n, d = keys.d;
    const int blocks = (n + kCols - 1) / kCols;
    // A block of keys (8 x d, in L1) against every row tile of the panel
    // (in L2), then the next block.
    for (int b = 0; b < blocks; ++b) {
        const double* block = keys.data.data() + std::size_t(b) * std::size_t(d) * kCols;
        const int cols = std::min(kCols, n - b * kCols);
        for (int i = 0; i < rows; i += kRows) {
            const int r = std::min(kRows, rows - i);
            const double* q = Q + std::size_t(i) * std::size_t(d);
            double* out = S + i * ldS + b * kCols;
            if (cols == kCols) {
                scoreTileOf(r, q, d, block, out, ldS);
            } else {
                double tile[kRows * kCols];
                scoreTileOf(r, q, d, block, tile, kCols);
                for (int k = 0; k < r; ++k)
                    std::memcpy(out + k * ldS, tile + k * kCols, std::size_t(cols) * sizeof(double));
            }
        }
    }
}

ATTN_AVX2 void context(const double* W, std::ptrdiff_t ldW, int rows, const PackedValues& values, double* Z,
                       std::ptrdiff_t ldZ, int causalRow0)
{
    const int n = values.n, dv = values.dv;
    const int blocks = (dv + kCols - 1) / kCols;
    // Whole blocks of 8 columns into a padded copy, so that the chains can
    // be carried from one block of keys to the next in place.
    const std::ptrdiff_t ldOut = std::ptrdiff_t(blocks) * kCols;
    thread_local std::vector<double> padded;
    padded.resize(std::size_t(rows) * std::size_t(ldOut));
    for (int j0 = 0; j0 < n; j0 += kKeyBlock) {
        for (int b = 0; b < blocks; ++b) {
            const double* block = values.data.data() + std::size_t(b) * std::size_t(n) * kCols;
            for (int i = 0; i < rows; i += kRows) {
                const int r = std::min(kRows, rows - i);
                // Keys the tile's last query attends to (all without a mask).
                const int keys = causalRow0 >= 0 ? std::min(n, causalRow0 + i + r) : n;
                const int j1 = std::min(keys, j0 + kKeyBlock);
                if (j0 >= j1)
                    continue;  // past every key of this tile: its chains are complete
                contextTileOf(r, W + i * ldW, ldW, j0, j1, block,
                              padded.data() + std::size_t(i) * std::size_t(ldOut) + b * kCols, ldOut);
            }
        }
    }
    for (int i = 0; i < rows; ++i)
        std::memcpy(Z + i * ldZ, padded.data() + std::size_t(i) * std::size_t(ldOut),
                    std::size_t(dv) * sizeof(double));
}

#else

// Never called: available() is false where the kernels are not built.
void scores(const double*, int, const PackedKeys&, double*, std::ptrdiff_t)
{
}
void context(const double*, std::ptrdiff_t, int, const PackedValues&, double*, std::ptrdiff_t, int)
{
}
void softmaxRow(const double*, double, double*, double*, int, double*, double*)
{
}
double exp(double)
{
    return 0.0;
}

#endif

}  // namespace attn::kernels
