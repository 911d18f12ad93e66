// SPDX-License-Identifier: GPL-3.0-or-later
// Multi-head benchmark: the split layout's whole pass (the packed input
// projection, h heads of scores, scaling, softmax, context, their
// statistics and average, the output projection) against its floor, the
// pass's own matrix products done alone in the same run: X in_proj^T
// (n, E) x (E, 3E), per head Q_i K_i^T and A_i V_i, concat out_proj^T.
// Single-threaded; floor and pass alternate run by run, as engine_forward.

#include "multihead_bench.h"

#include "benchutil.h"
#include "kernels.h"
#include "multihead.h"
#include "multihead_init.h"

#include <random>
#include <string>

namespace bench {

void runMultiHeadBench(const std::vector<int>& sizes, int d, int heads)
{
    std::mt19937 rng(7);
    std::normal_distribution<double> dist(0.0, 1.0);
    const attn::SplitHeads params = attn::drawTorchMha(7, d, heads, true);
    const int hd = d / heads;
    for (int n : sizes) {
        attn::Matrix x(n, d);
        for (Eigen::Index i = 0; i < x.size(); ++i)
            x.data()[i] = dist(rng);
        const double minSeconds = n >= 2048 ? 3.0 : 1.0;

        // The products alone, into preallocated storage; the weights'
        // transposes are made once (the pass makes them each time).
        const attn::Matrix inT = params.inProjWeight.transpose(), outT = params.outProjWeight.transpose();
        attn::Matrix packed(n, 3 * d), q(n, hd), k(n, hd), v(n, hd), s(n, n), z(n, hd), concat(n, d),
            out(n, d);
        attn::MultiHeadResult result;
        auto pass = [&] { attn::computeMultiHeadInto(x, params, attn::AttentionOptions{}, &result); };
        const auto [floor, measured] = measurePair(
            [&] {
                packed.noalias() = x * inT;
                for (int i = 0; i < heads; ++i) {
                    q = packed.middleCols(i * hd, hd);
                    k = packed.middleCols(d + i * hd, hd);
                    v = packed.middleCols(2 * d + i * hd, hd);
                    s.noalias() = q * k.transpose();
                    z.noalias() = s * v;
                    concat.middleCols(i * hd, hd) = z;
                }
                out.noalias() = concat * outT;
            },
            pass, 5, minSeconds);

        std::string kernelExtra;
        if (attn::kernels::available()) {
            attn::kernels::PackedKeys packedKeys;
            attn::kernels::PackedValues packedValues, packedIn, packedOut;
            const auto [kernelFloor, measured2] = measurePair(
                [&] {
                    // The pass packs the weights, each head's K and V too.
                    attn::kernels::packValues(inT.data(), d, 3 * d, &packedIn);
                    attn::kernels::context(x.data(), d, n, packedIn, packed.data(), 3 * d);
                    for (int i = 0; i < heads; ++i) {
                        q = packed.middleCols(i * hd, hd);
                        k = packed.middleCols(d + i * hd, hd);
                        v = packed.middleCols(2 * d + i * hd, hd);
                        attn::kernels::packKeys(k.data(), n, hd, &packedKeys);
                        attn::kernels::packValues(v.data(), n, hd, &packedValues);
                        attn::kernels::scores(q.data(), n, packedKeys, s.data(), n);
                        attn::kernels::context(s.data(), n, n, packedValues, z.data(), hd);
                        concat.middleCols(i * hd, hd) = z;
                    }
                    attn::kernels::packValues(outT.data(), d, d, &packedOut);
                    attn::kernels::context(concat.data(), d, n, packedOut, out.data(), d);
                },
                pass, 5, minSeconds);
            kernelExtra =
                ",\"kernel_floor_ms\":" + std::to_string(kernelFloor.medianMs)
                + ",\"kernel_ratio\":" + std::to_string(measured2.medianMs / kernelFloor.medianMs)
                + ",\"kernel_cpu_ratio\":" + std::to_string(measured2.cpuMedianMs / kernelFloor.cpuMedianMs);
        }

        // 2 flops per multiply-add: in_proj n*E*3E, per head 2 n*n*hd, out_proj n*E*E.
        const double flops =
            2.0 * (3.0 * n * double(d) * d + 2.0 * double(n) * n * hd * heads + double(n) * d * d);
        const std::string extra =
            "\"heads\":" + std::to_string(heads) + ",\"floor_ms\":" + std::to_string(floor.medianMs)
            + ",\"ratio\":" + std::to_string(measured.medianMs / floor.medianMs)
            + ",\"gflops\":" + std::to_string(flops / (measured.medianMs * 1e6))
            + ",\"cpu_ms\":" + std::to_string(measured.cpuMedianMs)
            + ",\"cpu_ratio\":" + std::to_string(measured.cpuMedianMs / floor.cpuMedianMs) + kernelExtra;
        printCase("multihead_forward", n, d, measured, extra);
    }
}

}  // namespace bench
