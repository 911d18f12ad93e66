// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Model configurations the asynchronous suites share: sentences of any
// length with a distinct word per position, and a multi-head session large
// enough for the worker.

#include "model.h"
#include "multihead.h"

#include <string>

namespace testconfigs {

// "w0 w1 ... w(tokens-1)": every token its own word.
inline std::string numberedSentence(int tokens)
{
    std::string sentence;
    for (int i = 0; i < tokens; ++i)
        sentence += (i ? " w" : "w") + std::to_string(i);
    return sentence;
}

// `tokens` tokens, d_model 16, d_k = d_v = 64, unit-variance weights: large
// enough that a computation takes a while.
inline attn::ModelConfig largeConfig(int tokens)
{
    attn::ModelConfig config;
    config.sentence = numberedSentence(tokens);
    config.dModel = 16;
    config.dK = 64;
    config.dV = 64;
    config.init = attn::InitMode::UnitVariance;
    return config;
}

// 600 tokens, d_model 64 in 8 split heads (head_dim 8), unit-variance
// weights: multi-head work the session gives its worker.
struct SplitHeads {
    attn::ModelConfig config;
    attn::HeadsConfig heads;
};
inline SplitHeads largeSplitHeads()
{
    SplitHeads s;
    s.config.sentence = numberedSentence(600);
    s.config.init = attn::InitMode::UnitVariance;
    s.config.dModel = 64;
    s.heads.heads = 8;
    s.heads.layout = attn::HeadLayout::Split;
    return s;
}

}  // namespace testconfigs
