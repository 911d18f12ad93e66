// SPDX-License-Identifier: GPL-3.0-or-later
#include "headparams.h"

#include "multihead_init.h"
#include "size_limits.h"

#include <algorithm>
#include <string>
#include <utility>

namespace attnlab {

namespace {

// Row offset of W_q (0), W_k (1) or W_v (2) of `head` in in_proj_weight.
int splitRow(const attn::SplitHeads& split, int head, int which)
{
    return which * split.embedDim() + head * split.headDim();
}

// Why drawMultiHead(config, heads) refuses, if it does.
attn::Status validateDraw(const attn::ModelConfig& config, const attn::HeadsConfig& heads)
{
    if (attn::Status s = attn::validateHeadCount(heads.heads); !s)
        return s;
    const int h = heads.heads, e = config.dModel;
    if (heads.layout == attn::HeadLayout::Split)
        return attn::validateSplitHeads(e, h);
    const long long entries = 1LL * h * e * (2LL * config.dK + config.dV);
    if (entries > attn::kMaxHeadWeightEntries)
        return attn::Error{std::to_string(h) + " heads with d_model " + std::to_string(e) + ", d_k "
                           + std::to_string(config.dK) + " and d_v " + std::to_string(config.dV) + " need "
                           + std::to_string(entries) + " weight entries; at most "
                           + std::to_string(attn::kMaxHeadWeightEntries) + " are allowed."};
    return attn::okStatus();
}

}  // namespace

attn::ModelConfig headsModelConfig(const attn::ModelConfig& config, const attn::HeadsConfig& heads)
{
    attn::ModelConfig c = config;
    if (heads.layout == attn::HeadLayout::Split && heads.heads >= 1 && config.dModel % heads.heads == 0)
        c.dK = c.dV = config.dModel / heads.heads;
    return c;
}

attn::Expected<attn::MultiHeadParams> drawMultiHead(const attn::ModelConfig& config,
                                                    const attn::HeadsConfig& heads)
{
    if (attn::Status s = validateDraw(config, heads); !s)
        return s.error();
    attn::MultiHeadParams p;
    p.layout = heads.layout;
    const int h = heads.heads;
    if (heads.layout == attn::HeadLayout::Split) {
        p.split = heads.torchInit
                      ? attn::drawTorchMha(config.seed, config.dModel, h)
                      : attn::packSplitHeads(attn::drawIndependentHeads(headsModelConfig(config, heads), h));
        return p;
    }
    p.independent.heads = attn::drawIndependentHeads(config, h);
    if (heads.outputProjection)
        p.independent.Wo = attn::drawOutputProjection(config, h);
    return p;
}

bool headDrawsAlone(const attn::ModelConfig& config, const attn::HeadsConfig& heads)
{
    return config.init != attn::InitMode::Article
           && !(heads.layout == attn::HeadLayout::Split && heads.torchInit);
}

attn::Expected<attn::HeadWeights> drawHeadAlone(const attn::ModelConfig& config,
                                                const attn::HeadsConfig& heads, int i)
{
    if (attn::Status s = validateDraw(config, heads); !s)
        return s.error();
    if (i < 0 || i >= heads.heads || !headDrawsAlone(config, heads))
        return attn::Error{"Head " + std::to_string(i + 1) + " cannot be drawn alone."};
    return attn::drawIndependentHead(headsModelConfig(config, heads), i);
}

void setHeadWeights(attn::MultiHeadParams* params, int head, const attn::HeadWeights& weights)
{
    if (params->layout == attn::HeadLayout::Independent) {
        params->independent.heads[std::size_t(head)] = weights;
        return;
    }
    attn::SplitHeads& s = params->split;
    const int hd = s.headDim();
    s.inProjWeight.middleRows(splitRow(s, head, 0), hd) = weights.Wq.transpose();
    s.inProjWeight.middleRows(splitRow(s, head, 1), hd) = weights.Wk.transpose();
    s.inProjWeight.middleRows(splitRow(s, head, 2), hd) = weights.Wv.transpose();
}

void setHeadCell(attn::MultiHeadParams* params, int head, int which, int row, int col, double value)
{
    if (params->layout == attn::HeadLayout::Independent) {
        attn::HeadWeights& w = params->independent.heads[std::size_t(head)];
        (which == 0 ? w.Wq : which == 1 ? w.Wk : w.Wv)(row, col) = value;
        return;
    }
    attn::SplitHeads& s = params->split;
    s.inProjWeight(splitRow(s, head, which) + col, row) = value;
}

bool headCell(const attn::MultiHeadParams& params, int head, int which, int row, int col, double* value)
{
    if (head < 0 || head >= params.headCount() || which < 0 || which > 2 || row < 0 || col < 0)
        return false;
    if (params.layout == attn::HeadLayout::Independent) {
        const attn::HeadWeights& w = params.independent.heads[std::size_t(head)];
        const attn::Matrix& m = which == 0 ? w.Wq : which == 1 ? w.Wk : w.Wv;
        if (row >= m.rows() || col >= m.cols())
            return false;
        *value = m(row, col);
        return true;
    }
    const attn::SplitHeads& s = params.split;
    if (row >= s.embedDim() || col >= s.headDim())
        return false;
    *value = s.inProjWeight(splitRow(s, head, which) + col, row);
    return true;
}

attn::Status computeHeads(const attn::Matrix& X, const attn::MultiHeadParams& params,
                          const attn::AttentionOptions& options, attn::MultiHeadResult* result, int threads,
                          const std::atomic<bool>* cancel)
{
    if (params.layout == attn::HeadLayout::Split)
        return attn::computeMultiHeadInto(X, params.split, options, result, threads, cancel);
    return attn::computeMultiHeadInto(X, params.independent, options, result, threads, cancel);
}

attn::Status recomputeHeads(const attn::Matrix& X, const attn::MultiHeadParams& params,
                            const std::vector<int>& heads, const attn::AttentionOptions& options,
                            attn::MultiHeadResult* result, int threads, const std::atomic<bool>* cancel,
                            unsigned parts)
{
    if (params.layout == attn::HeadLayout::Split)
        return attn::recomputeHeadsInto(X, params.split, heads, options, result, threads, cancel, parts);
    return attn::recomputeHeadsInto(X, params.independent, heads, options, result, threads, cancel, parts);
}

std::size_t multiHeadBytes(int heads, int tokens)
{
    // Raw scores, scaled scores and weights per head, and the average.
    return (3 * std::size_t(heads) + 1) * std::size_t(tokens) * std::size_t(tokens) * sizeof(double);
}

LabState withSplitHeads(LabState state, attn::SplitHeads split)
{
    const int h = split.heads;
    state.heads.heads = h;
    state.heads.layout = attn::HeadLayout::Split;
    state.heads.outputProjection = false;
    state.heads.torchInit = false;
    state.config.dK = state.config.dV = split.headDim();
    state.multiHead = attn::MultiHeadParams();
    state.multiHead.layout = attn::HeadLayout::Split;
    state.multiHead.split = std::move(split);
    state.selectedHead = std::clamp(state.selectedHead, 0, h - 1);
    const attn::HeadWeights shown = state.multiHead.head(state.selectedHead);
    state.Wq = shown.Wq;
    state.Wk = shown.Wk;
    state.Wv = shown.Wv;
    return state;
}

attn::HeadsConfig withHeadCount(attn::HeadsConfig heads, int count)
{
    heads.heads = count;
    return heads;
}

attn::HeadsConfig withHeadLayout(attn::HeadsConfig heads, attn::HeadLayout layout)
{
    heads.layout = layout;
    if (layout == attn::HeadLayout::Split)
        heads.outputProjection = false;  // out_proj is part of the split layout
    else
        heads.torchInit = false;
    return heads;
}

attn::HeadsConfig withOutputProjection(attn::HeadsConfig heads, bool on)
{
    heads.outputProjection = on && heads.layout == attn::HeadLayout::Independent;
    return heads;
}

attn::HeadsConfig withTorchInit(attn::HeadsConfig heads, bool on)
{
    heads.torchInit = on && heads.layout == attn::HeadLayout::Split;
    return heads;
}

}  // namespace attnlab
