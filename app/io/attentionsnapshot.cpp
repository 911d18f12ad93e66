// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionsnapshot.h"

#include <utility>

namespace attnlab {

namespace {

attn::Status checkTokens(const attn::Tokenization& tokens, const attn::Matrix& X)
{
    if (int(tokens.tokens.size()) != X.rows())
        return attn::Error{"X has " + std::to_string(X.rows()) + " rows but there are "
                           + std::to_string(tokens.tokens.size()) + " tokens; X needs one row per token"};
    return attn::okStatus();
}

// The settings and inputs, d_model, d_k and d_v from the matrices.
void setInputs(AttentionSnapshot* s, const attn::ModelConfig& config, const attn::AttentionOptions& options,
               attn::Tokenization tokens, attn::Matrix X)
{
    s->config = config;
    s->config.dModel = int(X.cols());
    s->config.dK = int(s->weights.front().Wq.cols());
    s->config.dV = int(s->weights.front().Wv.cols());
    s->options = options;
    s->tokens = std::move(tokens);
    s->X = std::move(X);
}

}  // namespace

AttentionSnapshot singleHeadSnapshot(const attn::ModelConfig& config, const attn::AttentionOptions& options,
                                     attn::Model model, attn::AttentionResult result,
                                     attn::AttentionStats stats)
{
    AttentionSnapshot snapshot;
    snapshot.weights.push_back({std::move(model.Wq), std::move(model.Wk), std::move(model.Wv)});
    snapshot.result.heads.push_back(std::move(result));
    snapshot.result.stats.push_back(std::move(stats));
    setInputs(&snapshot, config, options, std::move(model.tokenization), std::move(model.X));
    return snapshot;
}

attn::Expected<AttentionSnapshot> computeSnapshot(const attn::ModelConfig& config,
                                                  const attn::AttentionOptions& options)
{
    attn::Expected<attn::Model> model = attn::buildModel(config);
    if (!model)
        return model.error();
    // The drawn matrices have the config's shapes and one row per token.
    return computeSnapshotFromMatrices(config, options, std::move(model).value());
}

attn::Expected<AttentionSnapshot> computeSnapshotFromMatrices(const attn::ModelConfig& config,
                                                              const attn::AttentionOptions& options,
                                                              attn::Model model)
{
    if (attn::Status s = checkTokens(model.tokenization, model.X); !s)
        return s.error();
    attn::AttentionResult result;
    attn::AttentionStats stats;
    const attn::Status status =
        attn::computeAttentionWithStatistics(model.X, model.Wq, model.Wk, model.Wv, options, &result, &stats);
    if (!status)
        return status.error();
    return singleHeadSnapshot(config, options, std::move(model), std::move(result), std::move(stats));
}

attn::Expected<AttentionSnapshot> computeMultiHeadSnapshot(const attn::ModelConfig& config,
                                                           const attn::AttentionOptions& options,
                                                           attn::Tokenization tokens, attn::Matrix X,
                                                           attn::IndependentHeads params,
                                                           std::string headInit)
{
    if (attn::Status s = checkTokens(tokens, X); !s)
        return s.error();
    AttentionSnapshot snapshot;
    if (attn::Status s = attn::computeMultiHeadInto(X, params, options, &snapshot.result); !s)
        return s.error();
    snapshot.multiHeadRun = true;
    snapshot.headInit = std::move(headInit);
    snapshot.weights = std::move(params.heads);
    snapshot.Wo = std::move(params.Wo);
    setInputs(&snapshot, config, options, std::move(tokens), std::move(X));
    return snapshot;
}

attn::Expected<AttentionSnapshot> computeMultiHeadSnapshot(const attn::ModelConfig& config,
                                                           const attn::AttentionOptions& options,
                                                           attn::Tokenization tokens, attn::Matrix X,
                                                           attn::SplitHeads params, std::string headInit)
{
    if (attn::Status s = checkTokens(tokens, X); !s)
        return s.error();
    AttentionSnapshot snapshot;
    if (attn::Status s = attn::computeMultiHeadInto(X, params, options, &snapshot.result); !s)
        return s.error();
    snapshot.multiHeadRun = true;
    snapshot.headInit = std::move(headInit);
    for (int i = 0; i < params.heads; ++i)
        snapshot.weights.push_back(params.head(i));
    snapshot.split = std::move(params);
    setInputs(&snapshot, config, options, std::move(tokens), std::move(X));
    return snapshot;
}

std::string placeholderSentence(int rows)
{
    std::string sentence;
    for (int i = 0; i < rows; ++i) {
        if (i > 0)
            sentence += ' ';
        sentence += 't' + std::to_string(i);
    }
    return sentence;
}

attn::Tokenization tokensForRows(const attn::ModelConfig& config, int rows)
{
    attn::Expected<attn::Tokenization> tokens = attn::tokenizeFor(config);
    if (tokens && int(tokens->tokens.size()) == rows)
        return std::move(tokens).value();
    attn::Expected<attn::Tokenization> placeholders =
        attn::tokenize(placeholderSentence(rows), attn::TokenizerMode::Article);
    return placeholders ? std::move(placeholders).value() : attn::Tokenization();
}

}  // namespace attnlab
