// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Everything one run of the model produced, as the exporters need it: the
// settings, the inputs (tokens, X, weights), the attention result and its
// statistics.

#include "attention.h"
#include "expected.h"
#include "model.h"
#include "statistics.h"

namespace attnlab {

struct AttentionSnapshot {
    attn::ModelConfig config;
    attn::AttentionOptions options;
    attn::Model model;  // tokens, X (n, d_model), W_q, W_k (d_model, d_k), W_v (d_model, d_v)
    attn::AttentionResult result;
    attn::AttentionStats stats;
};

// buildModel, computeAttention, computeStatistics; the first error stops it.
attn::Expected<AttentionSnapshot> computeSnapshot(const attn::ModelConfig& config,
                                                  const attn::AttentionOptions& options);

// Attention over given matrices (from files, a saved lab, hand edits) instead
// of drawn ones: model.X (n, d_model), model.Wq, model.Wk (d_model, d_k),
// model.Wv (d_model, d_v), and model.tokenization with n tokens. The
// snapshot's config takes d_model, d_k and d_v from the matrices; its
// sentence, seed and init are kept as given (they describe where the
// matrices came from). Shapes and entries are checked by the engine.
attn::Expected<AttentionSnapshot> computeSnapshotFromMatrices(const attn::ModelConfig& config,
                                                              const attn::AttentionOptions& options,
                                                              attn::Model model);

// The tokens that label `rows` rows of a given X: the sentence's tokens when
// it has exactly that many, otherwise t0, t1, ... (vocabulary and ids as the
// tokenizer would give them for the sentence "t0 t1 ...").
attn::Tokenization tokensForRows(const attn::ModelConfig& config, int rows);

// "t0 t1 ... t<rows-1>": a sentence whose article tokenization has `rows` tokens.
std::string placeholderSentence(int rows);

}  // namespace attnlab
