// SPDX-License-Identifier: GPL-3.0-or-later
// Engine benchmark: the full forward pass (projections, scores, scaling,
// softmax, context) against its floor, the matrix products the pass needs
// done as plain Eigen products in the same run. Single-threaded. Where the
// pass uses the AVX2 kernels, a second floor is the same products with
// those kernels (kernel_floor_ms, kernel_ratio): what the softmax and the
// bookkeeping cost next to the pass's own products.

#include "engine_bench.h"

#include "attention.h"
#include "benchmatrix.h"
#include "benchutil.h"
#include "kernels.h"

#include <cmath>
#include <random>
#include <string>

namespace bench {
void runEngineBench(const std::vector<int>& sizes, int d)
{
    std::mt19937 rng(42);
    for (int n : sizes) {
        const attn::Matrix x = randomMatrix(rng, n, d);
        attn::Matrix wq = randomMatrix(rng, d, d), wk = randomMatrix(rng, d, d), wv = randomMatrix(rng, d, d);
        wq /= std::sqrt(double(d));
        wk /= std::sqrt(double(d));
        wv /= std::sqrt(double(d));
        const double minSeconds = n >= 2048 ? 3.0 : 1.0;

        // Floor: the five products, into preallocated storage. The floor and
        // the pass alternate, so that both see the same load on a busy
        // machine.
        attn::Matrix q(n, d), k(n, d), v(n, d), s(n, n), z(n, d);
        attn::AttentionResult result;
        const auto [floor, pass] = measurePair(
            [&] {
                q.noalias() = x * wq;
                k.noalias() = x * wk;
                v.noalias() = x * wv;
                s.noalias() = q * k.transpose();
                z.noalias() = s * v;
            },
            [&] { attn::computeAttentionInto(x, wq, wk, wv, attn::AttentionOptions{}, &result); }, 5,
            minSeconds);

        std::string kernelExtra;
        if (attn::kernels::available()) {
            attn::kernels::PackedKeys packedKeys;
            attn::kernels::PackedValues packedValues, packedW[3];
            const auto [kernelFloor, pass2] = measurePair(
                [&] {
                    // The pass packs the weights, K and V each time too.
                    const attn::Matrix* weights[] = {&wq, &wk, &wv};
                    attn::Matrix* outs[] = {&q, &k, &v};
                    for (int m = 0; m < 3; ++m) {
                        attn::kernels::packValues(weights[m]->data(), d, d, &packedW[m]);
                        attn::kernels::context(x.data(), d, n, packedW[m], outs[m]->data(), d);
                    }
                    attn::kernels::packKeys(k.data(), n, d, &packedKeys);
                    attn::kernels::packValues(v.data(), n, d, &packedValues);
                    attn::kernels::scores(q.data(), n, packedKeys, s.data(), n);
                    attn::kernels::context(s.data(), n, n, packedValues, z.data(), d);
                },
                [&] { attn::computeAttentionInto(x, wq, wk, wv, attn::AttentionOptions{}, &result); }, 5,
                minSeconds);
            kernelExtra = ",\"kernel_floor_ms\":" + std::to_string(kernelFloor.medianMs)
                          + ",\"kernel_ratio\":" + std::to_string(pass2.medianMs / kernelFloor.medianMs);
        }

        // 2 flops per multiply-add: 3 projections n*d*d, QK^T and AV n*n*d.
        const double flops = 2.0 * (3.0 * n * double(d) * d + 2.0 * double(n) * n * d);
        const std::string extra =
            "\"floor_ms\":" + std::to_string(floor.medianMs)
            + ",\"ratio\":" + std::to_string(pass.medianMs / floor.medianMs)
            + ",\"gflops\":" + std::to_string(flops / (pass.medianMs * 1e6))
            + ",\"floor_gflops\":" + std::to_string(flops / (floor.medianMs * 1e6)) + ",\"cpu_ms\":"
            + std::to_string(pass.cpuMedianMs) + ",\"floor_cpu_ms\":" + std::to_string(floor.cpuMedianMs)
            + ",\"cpu_ratio\":" + std::to_string(pass.cpuMedianMs / floor.cpuMedianMs) + kernelExtra;
        printCase("engine_forward", n, d, pass, extra);
    }
}

}  // namespace bench
