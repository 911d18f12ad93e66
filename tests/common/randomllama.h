// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Random weights of the Llama family (core/llama_weights.h) in memory, owned
// by their storage as a reader's are: normal draws of a seeded mt19937, norm
// gains around 1, every optional tensor (biases, q/k norms, an untied
// lm_head) the config asks for.

#include "llama_weights.h"

#include <memory>
#include <random>
#include <vector>

namespace randomllama {

inline attn::LlamaConfig smallConfig(const char* family, int heads, int kvHeads, int headDim, int width)
{
    attn::LlamaConfig c;
    c.family = family;
    c.layers = 2;
    c.heads = heads;
    c.kvHeads = kvHeads;
    c.headDim = headDim;
    c.width = width;
    c.intermediate = 40;
    c.vocabSize = 61;
    c.maxPositions = 64;
    c.rmsNormEps = 1e-5;
    return c;
}

inline attn::LlamaWeights randomWeights(const attn::LlamaConfig& c, unsigned seed)
{
    using Store = std::vector<std::vector<float>>;
    auto store = std::make_shared<Store>();
    std::mt19937 rng(seed);
    const auto random = [&](int rows, int cols, float scale, float offset = 0.0f) {
        std::normal_distribution<float> dist(0.0f, scale);
        store->emplace_back(std::size_t(rows) * std::size_t(cols));
        for (float& x : store->back())
            x = offset + dist(rng);
        return attn::FloatTensor{store->back().data(), rows, cols};
    };
    attn::LlamaWeights w;
    w.config = c;
    w.storage = store;
    const int e = c.width, qw = c.heads * c.headDim, kw = c.kvHeads * c.headDim;
    w.embed = random(c.vocabSize, e, 0.5f);
    w.blocks.resize(std::size_t(c.layers));
    for (attn::LlamaBlock& b : w.blocks) {
        b.inputNorm = random(1, e, 0.1f, 1.0f);
        b.q = random(qw, e, 0.3f);
        b.k = random(kw, e, 0.3f);
        b.v = random(kw, e, 0.3f);
        if (c.qkvBias) {
            b.qBias = random(1, qw, 0.2f);
            b.kBias = random(1, kw, 0.2f);
            b.vBias = random(1, kw, 0.2f);
        }
        b.o = random(e, qw, 0.2f);
        if (c.oBias)
            b.oBias = random(1, e, 0.2f);
        if (c.qkNorm) {
            b.qNorm = random(1, c.headDim, 0.1f, 1.0f);
            b.kNorm = random(1, c.headDim, 0.1f, 1.0f);
        }
        b.postNorm = random(1, e, 0.1f, 1.0f);
        b.gate = random(c.intermediate, e, 0.3f);
        b.up = random(c.intermediate, e, 0.3f);
        b.down = random(e, c.intermediate, 0.2f);
    }
    w.norm = random(1, e, 0.1f, 1.0f);
    w.lmHeadTied = c.tieWordEmbeddings;
    w.lmHead = w.lmHeadTied ? w.embed : random(c.vocabSize, e, 0.5f);
    return w;
}

}  // namespace randomllama
