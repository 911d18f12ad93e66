// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Multi-head results for the view tests, computed by the engine: the
// article's h heads (drawIndependentHeads after its single head), and runs
// of any size from the stable streams.

#include "model.h"
#include "multihead.h"
#include "multihead_init.h"

#include <QString>
#include <QStringList>

#include <memory>

namespace headresults {

struct Run {
    std::shared_ptr<const attn::MultiHeadResult> result;
    QStringList tokens;
    attn::Matrix X;                 // what the heads ran over
    attn::IndependentHeads params;  // the heads they ran with
};

inline QStringList tokenLabels(const attn::Model& model)
{
    QStringList labels;
    for (const std::string& t : model.tokenization.tokens)
        labels << QString::fromStdString(t);
    return labels;
}

// `config`'s sentence through h independent heads, with W_o when asked.
inline Run run(const attn::ModelConfig& config, int heads, bool outputProjection = false,
               const attn::AttentionOptions& options = {})
{
    const attn::Expected<attn::Model> model = attn::buildModel(config);
    if (!model.ok())
        qFatal("buildModel: %s", model.error().message.c_str());
    attn::IndependentHeads params;
    params.heads = attn::drawIndependentHeads(config, heads);
    if (outputProjection)
        params.Wo = attn::drawOutputProjection(config, heads);
    attn::Expected<attn::MultiHeadResult> r = attn::computeMultiHead(model->X, params, options);
    if (!r.ok())
        qFatal("computeMultiHead: %s", r.error().message.c_str());
    return {std::make_shared<const attn::MultiHeadResult>(std::move(r).value()), tokenLabels(*model),
            model->X, std::move(params)};
}

// The article's sentence and h heads (h = 3 is its multi-head example).
inline Run article(int heads = 3, bool outputProjection = false)
{
    return run(attn::ModelConfig{}, heads, outputProjection);
}

// A sentence of `words` words (w0 w1 ...), small dimensions, stable streams.
inline Run sized(int words, int heads, int dModel = 8, int dK = 4, int dV = 3)
{
    attn::ModelConfig config;
    std::string sentence;
    for (int i = 0; i < words; ++i)
        sentence += (i ? " w" : "w") + std::to_string(i);
    config.sentence = sentence;
    config.tokenizer = attn::TokenizerMode::Article;
    config.init = attn::InitMode::UnitVariance;
    config.dModel = dModel;
    config.dK = dK;
    config.dV = dV;
    return run(config, heads);
}

}  // namespace headresults
