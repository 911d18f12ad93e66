// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The weights of the Llama family of decoders as Hugging Face lays them out
// (LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM,
// MistralForCausalLM): what llama.h's pass reads. The tensors are float32,
// row-major, where the reader put them (FloatTensor, float_tensor.h);
// `storage` keeps that memory alive. nn.Linear weights are stored (out, in)
// and used as y = x W^T (+ b).

#include "decoder_config.h"
#include "float_tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace attn {

// rope_scaling of type "llama3" (Llama 3.1 and later): the frequencies of
// the pairs whose wavelength is longer than originalMaxPositions /
// lowFreqFactor are divided by `factor`, those shorter than
// originalMaxPositions / highFreqFactor kept, and those between blended.
struct Llama3RopeScaling {
    bool enabled = false;
    double factor = 8.0;
    double lowFreqFactor = 1.0;
    double highFreqFactor = 4.0;
    int originalMaxPositions = 8192;
};

struct LlamaConfig {
    std::string family = "llama";  // model_type: llama, qwen2, qwen3, mistral
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0;  // even (RoPE rotates pairs)
    int width = 0;    // hidden_size
    int intermediate = 0;
    int vocabSize = 0;
    int maxPositions = 0;
    double rmsNormEps = 1e-6;
    double ropeTheta = 10000.0;
    Llama3RopeScaling ropeScaling;
    int slidingWindow = 0;           // 0: none
    bool qkvBias = false;            // Qwen2, or attention_bias
    bool oBias = false;              // attention_bias (Llama, Qwen3)
    bool qkNorm = false;             // Qwen3's q_norm and k_norm
    bool tieWordEmbeddings = false;  // the logits against embed (lm_head = embed)

    operator DecoderConfig() const
    {
        DecoderConfig c;
        c.family = family;
        c.layers = layers;
        c.heads = heads;
        c.kvHeads = kvHeads;
        c.headDim = headDim;
        c.width = width;
        c.vocabSize = vocabSize;
        c.maxPositions = maxPositions;
        c.slidingWindow = slidingWindow;
        c.ropeTheta = ropeTheta;
        c.ropeScaling = ropeScaling.enabled ? "llama3" : "";
        c.qkNorm = qkNorm;
        return c;
    }
};

struct LlamaBlock {
    FloatTensor inputNorm;            // input_layernorm (1, E)
    FloatTensor q, k, v;              // q_proj (H hd, E), k_proj and v_proj (KV hd, E)
    FloatTensor qBias, kBias, vBias;  // (1, H hd), (1, KV hd): with qkvBias
    FloatTensor o;                    // o_proj (E, H hd)
    FloatTensor oBias;                // (1, E): with oBias
    FloatTensor qNorm, kNorm;         // q_norm, k_norm (1, hd): with qkNorm
    FloatTensor postNorm;             // post_attention_layernorm (1, E)
    FloatTensor gate, up;             // mlp.gate_proj, mlp.up_proj (I, E)
    FloatTensor down;                 // mlp.down_proj (E, I)
};

struct LlamaWeights {
    LlamaConfig config;
    FloatTensor embed;               // embed_tokens (vocab, E)
    std::vector<LlamaBlock> blocks;  // `layers` of them
    FloatTensor norm;                // the final norm (1, E)
    FloatTensor lmHead;              // (vocab, E): lm_head.weight, or embed itself when tied
    bool lmHeadTied = true;
    std::shared_ptr<const void> storage;
};

}  // namespace attn
