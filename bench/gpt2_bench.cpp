// SPDX-License-Identifier: GPL-3.0-or-later
// GPT-2 small's forward pass (core/gpt2.h) with every head's maps kept,
// against its floor: the same products alone in the same run, taken as the
// pass takes them with one thread (c_attn, c_proj, c_fc and the MLP's
// c_proj over the float32 weights, each whole, each head's Q K^T and A V,
// the last position's logits),
// without LayerNorm, softmax, gelu, biases or residuals. Floor and pass
// alternate run by run, as engine_forward.

#include "gpt2_bench.h"

#include "benchutil.h"
#include "gpt2.h"
#include "gpt2_kernels.h"
#include "kernels.h"

#include <cstdint>
#include <memory>
#include <string>

namespace bench {

attn::Gpt2Weights gpt2SmallWeights()
{
    attn::Gpt2Config c;
    c.nLayer = 12;
    c.nHead = 12;
    c.nEmbd = 768;
    c.nPositions = 1024;
    c.vocabSize = 50257;
    auto store = std::make_shared<std::vector<std::vector<float>>>();
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    const auto tensor = [&](int rows, int cols, float offset) {
        store->emplace_back(std::size_t(rows) * std::size_t(cols));
        for (float& x : store->back()) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            x = offset + 0.1f * (float(state >> 40) / float(1 << 24) - 0.5f);
        }
        return attn::FloatTensor{store->back().data(), rows, cols};
    };
    attn::Gpt2Weights w;
    w.config = c;
    const int e = c.nEmbd;
    w.wte = tensor(c.vocabSize, e, 0.0f);
    w.wpe = tensor(c.nPositions, e, 0.0f);
    for (int l = 0; l < c.nLayer; ++l) {
        attn::Gpt2Block b;
        b.ln1Weight = tensor(1, e, 1.0f);
        b.ln1Bias = tensor(1, e, 0.0f);
        b.attnWeight = tensor(e, 3 * e, 0.0f);
        b.attnBias = tensor(1, 3 * e, 0.0f);
        b.attnProjWeight = tensor(e, e, 0.0f);
        b.attnProjBias = tensor(1, e, 0.0f);
        b.ln2Weight = tensor(1, e, 1.0f);
        b.ln2Bias = tensor(1, e, 0.0f);
        b.fcWeight = tensor(e, 4 * e, 0.0f);
        b.fcBias = tensor(1, 4 * e, 0.0f);
        b.mlpProjWeight = tensor(4 * e, e, 0.0f);
        b.mlpProjBias = tensor(1, e, 0.0f);
        w.blocks.push_back(b);
    }
    w.lnFWeight = tensor(1, e, 1.0f);
    w.lnFBias = tensor(1, e, 0.0f);
    w.lmHead = w.wte;
    w.storage = store;
    return w;
}

void runGpt2ForwardBench(const std::vector<int>& sizes)
{
    const attn::Gpt2Weights w = gpt2SmallWeights();
    const int e = w.config.nEmbd, heads = w.config.nHead, hd = w.config.headDim();
    for (const int n : sizes) {
        std::vector<int> ids(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
            ids[std::size_t(i)] = (i * 7919) % w.config.vocabSize;
        const int minRuns = n >= 128 ? 3 : 7;
        attn::Gpt2Options one;
        attn::Gpt2Options two;
        two.threads = 2;
        const auto pass = [&](const attn::Gpt2Options& o) {
            const auto r = attn::runGpt2(w, ids, o);
            if (!r.ok())
                std::fprintf(stderr, "gpt2_forward: %s\n", r.error().message.c_str());
        };

        std::string extra =
            "\"layers\":12,\"heads\":144,\"target_ms\":" + std::string(n <= 32 ? "300" : "2000");
        if (attn::kernels::available()) {
            attn::Matrix x = attn::Matrix::Constant(n, e, 0.5), qkv(n, 3 * e), q(n, hd), k(n, hd), v(n, hd),
                         s(n, n), z(n, hd), concat(n, e), proj(n, e), fc(n, 4 * e),
                         last(1, w.config.vocabSize);
            attn::kernels::PackedKeys packedKeys;
            attn::kernels::PackedValues packedValues;
            attn::kernels::PackedRows packedRows;
            // As the pass takes them with one thread: the activations packed
            // once, each weight whole, the next weight as the prefetch hint.
            const auto product = [&](const attn::Matrix& in, const attn::FloatTensor& W, attn::Matrix* out,
                                     const attn::FloatTensor* ahead) {
                attn::kernels::packRows(in.data(), in.cols(), int(in.rows()), int(in.cols()), &packedRows);
                attn::kernels::WeightsAhead next;
                if (ahead)
                    next = {ahead->data, ahead->cols, ahead->rows, ahead->cols};
                attn::kernels::productFloatWeights(packedRows, W.data, W.cols, W.cols, out->data(), W.cols,
                                                   next);
            };
            const auto floor = [&] {
                for (std::size_t l = 0; l < w.blocks.size(); ++l) {
                    const attn::Gpt2Block& b = w.blocks[l];
                    product(x, b.attnWeight, &qkv, &b.attnProjWeight);
                    for (int h = 0; h < heads; ++h) {
                        q = qkv.middleCols(h * hd, hd);
                        k = qkv.middleCols(e + h * hd, hd);
                        v = qkv.middleCols(2 * e + h * hd, hd);
                        attn::kernels::packKeys(k.data(), n, hd, &packedKeys);
                        attn::kernels::packValues(v.data(), n, hd, &packedValues);
                        attn::kernels::scores(q.data(), n, packedKeys, s.data(), n);
                        attn::kernels::context(s.data(), n, n, packedValues, z.data(), hd, 0);
                        concat.middleCols(h * hd, hd) = z;
                    }
                    product(concat, b.attnProjWeight, &proj, &b.fcWeight);
                    product(x, b.fcWeight, &fc, &b.mlpProjWeight);
                    product(fc, b.mlpProjWeight, &proj,
                            l + 1 < w.blocks.size() ? &w.blocks[l + 1].attnWeight : nullptr);
                }
                attn::kernels::productFloatWeightsTransposed(x.data() + std::size_t(n - 1) * std::size_t(e),
                                                             e, 1, e, w.lmHead.data, e, w.config.vocabSize,
                                                             last.data(), w.config.vocabSize);
            };
            const auto [f, measured] = measurePair(
                floor, [&] { pass(one); }, minRuns, 1.0);
            extra += ",\"floor_ms\":" + std::to_string(f.medianMs)
                     + ",\"ratio\":" + std::to_string(measured.medianMs / f.medianMs)
                     + ",\"cpu_ms\":" + std::to_string(measured.cpuMedianMs)
                     + ",\"cpu_ratio\":" + std::to_string(measured.cpuMedianMs / f.cpuMedianMs);
            const Timing threads2 = measure([&] { pass(two); }, minRuns, 1.0);
            extra += ",\"threads2_ms\":" + std::to_string(threads2.medianMs);
            printCase("gpt2_forward", n, e, measured, extra);
        } else {
            const Timing measured = measure([&] { pass(one); }, minRuns, 1.0);
            const Timing threads2 = measure([&] { pass(two); }, minRuns, 1.0);
            extra += ",\"threads2_ms\":" + std::to_string(threads2.medianMs);
            printCase("gpt2_forward", n, e, measured, extra);
        }
    }
}

}  // namespace bench
