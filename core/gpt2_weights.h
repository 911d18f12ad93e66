// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A GPT-2 checkpoint's numbers as the forward pass reads them (Radford et
// al. 2019, in Hugging Face's GPT2LMHeadModel layout). The tensors are
// float32, row-major, and stay where the reader put them: a memory-mapped
// safetensors file for F32, a converted copy for F16 and BF16. `storage`
// keeps that memory alive for as long as any copy of the weights exists.
// Conv1D weights are stored (in, out) and used without a transpose:
// y = x W + b.

#include "decoder_config.h"
#include "float_tensor.h"

#include <Eigen/Core>

#include <memory>
#include <vector>

namespace attn {

struct Gpt2Config {
    int nLayer = 0;
    int nHead = 0;
    int nEmbd = 0;       // E
    int nPositions = 0;  // the longest sentence, in tokens
    int vocabSize = 0;
    double layerNormEpsilon = 1e-5;

    int headDim() const { return nHead > 0 ? nEmbd / nHead : 0; }

    // As every family's pass reads it: one key/value head per head, the
    // contexts E wide. Implicit, so that a GPT-2 config is taken where a
    // DecoderConfig is (HeadDivisors::standard).
    operator DecoderConfig() const
    {
        DecoderConfig c;
        c.family = "gpt2";
        c.layers = nLayer;
        c.heads = nHead;
        c.kvHeads = nHead;
        c.headDim = headDim();
        c.width = nEmbd;
        c.vocabSize = vocabSize;
        c.maxPositions = nPositions;
        return c;
    }
};

struct Gpt2Block {
    FloatTensor ln1Weight, ln1Bias;            // ln_1: (1, E)
    FloatTensor attnWeight, attnBias;          // attn.c_attn: (E, 3E), (1, 3E); q | k | v columns
    FloatTensor attnProjWeight, attnProjBias;  // attn.c_proj: (E, E), (1, E)
    FloatTensor ln2Weight, ln2Bias;            // ln_2: (1, E)
    FloatTensor fcWeight, fcBias;              // mlp.c_fc: (E, 4E), (1, 4E)
    FloatTensor mlpProjWeight, mlpProjBias;    // mlp.c_proj: (4E, E), (1, E)
};

struct Gpt2Weights {
    Gpt2Config config;
    FloatTensor wte;                 // token embeddings (vocab_size, E)
    FloatTensor wpe;                 // position embeddings (n_positions, E)
    std::vector<Gpt2Block> blocks;   // n_layer of them
    FloatTensor lnFWeight, lnFBias;  // ln_f: (1, E)
    FloatTensor lmHead;              // (vocab_size, E): lm_head.weight, or wte itself when tied
    bool lmHeadTied = true;
    std::shared_ptr<const void> storage;
};

}  // namespace attn
