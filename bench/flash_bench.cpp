// SPDX-License-Identifier: GPL-3.0-or-later
#include "flash_bench.h"

#include "attention.h"
#include "benchmatrix.h"
#include "benchutil.h"
#include "flash_tiles.h"
#include "size_limits.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <malloc.h>
#include <random>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace bench {
namespace {

constexpr int kBlockRows = 64;
constexpr int kBlockCols = 256;

// A line of /proc/self/status in KiB ("VmRSS:", "VmHWM:"); -1 if absent.
long statusKiB(const char* key)
{
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long value = -1;
    const std::size_t len = std::strlen(key);
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, key, len) == 0) {
            value = std::atol(line + len);
            break;
        }
    std::fclose(f);
    return value;
}

// Runs `fn` in a child process and returns the growth of the child's peak
// resident size over its size before `fn`, in MiB (-1 if it could not be
// read). The child resets its peak (clear_refs 5) before `fn`, so what the
// parent held at the fork does not count, nor what its heap kept free.
template <typename Fn>
double childPeakGrowthMb(Fn&& fn)
{
    int pipeFds[2];
    if (pipe(pipeFds) != 0)
        return -1;
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(pipeFds[0]);
        // Free memory the parent's heap kept (the bench keeps freed buffers
        // for reuse, as the application does) goes back first.
        malloc_trim(0);
        double growth = -1;
        if (std::FILE* clear = std::fopen("/proc/self/clear_refs", "w")) {
            std::fputs("5", clear);
            std::fclose(clear);
            const long before = statusKiB("VmRSS:");
            fn();
            const long peak = statusKiB("VmHWM:");
            if (before >= 0 && peak >= 0)
                growth = double(peak - before) / 1024.0;
        }
        if (write(pipeFds[1], &growth, sizeof growth) != ssize_t(sizeof growth))
            _exit(1);
        _exit(0);
    }
    close(pipeFds[1]);
    double growth = -1;
    if (read(pipeFds[0], &growth, sizeof growth) != ssize_t(sizeof growth))
        growth = -1;
    close(pipeFds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return growth;
}

}  // namespace

void runFlashBench(int n, int d, int memoryN)
{
    std::mt19937 rng(7);
    {
        attn::AttentionResult direct;
        direct.Q = randomMatrix(rng, n, d);
        direct.K = randomMatrix(rng, n, d);
        direct.V = randomMatrix(rng, n, d);
        const attn::Matrix Q = direct.Q, K = direct.K, V = direct.V;
        const double divisor = std::sqrt(double(d));
        attn::Matrix tiled;
        const auto [base, flash] = measurePair(
            [&] { attn::computeAttentionFromProjections(attn::AttentionOptions{}, &direct); },
            [&] {
                tiled = std::move(attn::flashAttention(Q, K, V, divisor, attn::AttentionMask::none(),
                                                       kBlockRows, kBlockCols)
                                      .value());
            },
            3, 3.0);
        const double diff = attn::maxAbsDifference(tiled, direct.context);
        char extra[256];
        std::snprintf(
            extra, sizeof extra,
            "\"block_rows\":%d,\"block_cols\":%d,\"direct_ms\":%.4f,\"ratio\":%.3f,\"target_ratio\":1.5,"
            "\"max_abs_diff\":%.3g",
            kBlockRows, kBlockCols, base.medianMs, flash.medianMs / base.medianMs, diff);
        printCase("flash_tiles", n, d, flash, extra);
    }
    // Peak memory: at n = 4096 the engine against the tiled pass; above the
    // engine's kMaxTokens, the direct computation in three Eigen lines
    // (S = Q K^T / sqrt(d), softmax by rows in place, S V) against it.
    for (const int m : {n, memoryN}) {
        if (m < 1)
            continue;
        const attn::Matrix Q = randomMatrix(rng, m, d), K = randomMatrix(rng, m, d),
                           V = randomMatrix(rng, m, d);
        const double divisor = std::sqrt(double(d));
        const double tiledMb = childPeakGrowthMb([&] {
            (void)attn::flashAttention(Q, K, V, divisor, attn::AttentionMask::none(), kBlockRows, kBlockCols);
        });
        attn::AttentionResult engine;  // its Q, K and V set here, as the tiled pass's
        const bool useEngine = m <= attn::kMaxTokens;
        if (useEngine) {
            engine.Q = Q;
            engine.K = K;
            engine.V = V;
        }
        const double directMb = childPeakGrowthMb([&] {
            if (useEngine) {
                (void)attn::computeAttentionFromProjections(attn::AttentionOptions{}, &engine);
                return;
            }
            attn::Matrix S(m, m);
            S.noalias() = Q * K.transpose();
            S /= divisor;
            for (Eigen::Index i = 0; i < S.rows(); ++i) {
                S.row(i).array() = (S.row(i).array() - S.row(i).maxCoeff()).exp();
                S.row(i) /= S.row(i).sum();
            }
            const attn::Matrix Z = S * V;
            (void)Z;
        });
        const attn::FlashMemory held = attn::flashMemoryBytes(m, d, d, kBlockRows, kBlockCols);
        std::printf(
            "{\"case\":\"flash_memory\",\"n\":%d,\"d\":%d,\"block_rows\":%d,\"block_cols\":%d,"
            "\"peak_mb\":%.1f,\"direct\":\"%s\",\"direct_peak_mb\":%.1f,\"inputs_and_context_mb\":%.1f,"
            "\"score_matrix_mb\":%.1f}\n",
            m, d, kBlockRows, kBlockCols, tiledMb, useEngine ? "engine" : "eigen", directMb,
            double(held.inputsAndContext) / 1048576.0, double(held.scoreMatrix) / 1048576.0);
        std::fflush(stdout);
    }
}

}  // namespace bench
