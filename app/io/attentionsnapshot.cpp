// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionsnapshot.h"

namespace attnlab {

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
    if (int(model.tokenization.tokens.size()) != model.X.rows())
        return attn::Error{"X has " + std::to_string(model.X.rows()) + " rows but there are "
                           + std::to_string(model.tokenization.tokens.size())
                           + " tokens; X needs one row per token"};
    AttentionSnapshot snapshot;
    const attn::Status status = attn::computeAttentionWithStatistics(
        model.X, model.Wq, model.Wk, model.Wv, options, &snapshot.result, &snapshot.stats);
    if (!status)
        return status.error();
    snapshot.config = config;
    snapshot.config.dModel = int(model.X.cols());
    snapshot.config.dK = int(model.Wq.cols());
    snapshot.config.dV = int(model.Wv.cols());
    snapshot.options = options;
    snapshot.model = std::move(model);
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
