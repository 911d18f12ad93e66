// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The shape of a decoder-only transformer as every family's pass and every
// view reads it (decoder_model.h). A family's own config (Gpt2Config) holds
// what only its pass needs, such as its norm's epsilon, and converts to
// this one. Plain C++: no Eigen, so that the readers' headers stay light.

#include "attention_mask.h"

#include <algorithm>
#include <string>

namespace attn {

struct DecoderConfig {
    std::string family;    // Hugging Face's model_type: "gpt2"
    int layers = 0;        // blocks
    int heads = 0;         // query heads per layer
    int kvHeads = 0;       // key/value heads per layer: `heads` (GPT-2), or fewer with
                           // grouped-query attention, each shared by heads / kvHeads query heads
    int headDim = 0;       // q, k and v width of each head
    int width = 0;         // E, the residual stream's (hidden_size, n_embd)
    int vocabSize = 0;     // logits per position
    int maxPositions = 0;  // the longest sentence the model takes, in tokens
    // Query i sees keys j with i - slidingWindow < j <= i (Mistral's
    // sliding_window); 0: every key up to i, as GPT-2.
    int slidingWindow = 0;
    // Rotary positions (RoPE): the base of the frequencies (rope_theta),
    // 0 for a model with learned positions (GPT-2); the rope_scaling type
    // applied to them ("llama3"), empty for none.
    double ropeTheta = 0.0;
    std::string ropeScaling;
    // Qwen3's q_norm and k_norm: q and k RMSNorm'd over each head's
    // head_dim before the rotation (the what-if DecoderRunOptions::skipQkNorm
    // runs the model without them).
    bool qkNorm = false;

    // The key/value head query head `head` reads (heads a multiple of
    // kvHeads): with 8 heads and 2 kvHeads, heads 0-3 read 0 and 4-7 read 1.
    int kvHeadOf(int head) const { return head / (heads / kvHeads); }
    // The width of the heads' contexts side by side, the output
    // projection's input: E for GPT-2, not always with an explicit head_dim.
    int contextWidth() const { return heads * headDim; }
    // What a generating model keeps per token in its key/value cache, in
    // numbers: a key and a value of headDim for each key/value head of each
    // layer, 2 x layers x kvHeads x headDim; and the same with one K/V per
    // query head (no grouped-query sharing), 2 x layers x heads x headDim.
    long long kvCacheNumbersPerToken() const { return 2LL * layers * kvHeads * headDim; }
    long long kvCacheNumbersPerTokenUnshared() const { return 2LL * layers * heads * headDim; }
    // The mask the model was trained with: causal, or sliding:W with its
    // sliding window (a window beyond kMaxMaskWidth, wider than any
    // sentence the lab takes, sees what causal sees; it is kept as sliding).
    AttentionMask ownMask() const
    {
        return slidingWindow > 0 ? AttentionMask::sliding(std::min(slidingWindow, kMaxMaskWidth))
                                 : AttentionMask::causal();
    }
};

}  // namespace attn
