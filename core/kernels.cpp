#include "kernels.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

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
    const char* off = std::getenv("ATTNLAB_NO_AVX2");
    if (off && *off && std::strcmp(off, "0") != 0)
        return false;
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

void packKeys(const double* K, int n, int d, PackedKeys* out)
{
    const int blocks = (n + kCols - 1) / kCols;
    out->n = n;
    out->d = d;
    out->data.assign(std::size_t(blocks) * std::size_t(d) * kCols, 0.0);
    for (int b = 0; b < blocks; ++b) {
        double* block = out->data.data() + std::size_t(b) * std::size_t(d) * kCols;
        const int cols = std::min(kCols, n - b * kCols);
        for (int c = 0; c < cols; ++c) {
            const double* key = K + std::size_t(b * kCols + c) * std::size_t(d);
            for (int p = 0; p < d; ++p)
                block[std::size_t(p) * kCols + std::size_t(c)] = key[p];
        }
    }
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

}  // namespace

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

ATTN_AVX2 void context(const double* W, std::ptrdiff_t ldW, int rows, const PackedValues& values,
                       double* Z, std::ptrdiff_t ldZ, int causalRow0)
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
void scores(const double*, int, const PackedKeys&, double*, std::ptrdiff_t) {}
void context(const double*, std::ptrdiff_t, int, const PackedValues&, double*, std::ptrdiff_t, int) {}

#endif

}  // namespace attn::kernels
