// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Everything one run of attention produced, as the exporters and the lab
// file need it: the settings, the inputs (tokens, X), h heads (their
// projections, results and statistics) and, with several heads, their
// average, concatenation and output. The lesson's single head is h = 1;
// a multi-head run (attention-lab --heads ...) is marked `multiHeadRun`,
// with one head too, because its files name every head (attentionexport.h).

#include "attention.h"
#include "expected.h"
#include "model.h"
#include "multihead.h"
#include "statistics.h"

#include <string>
#include <vector>

namespace attnlab {

struct AttentionSnapshot {
    attn::ModelConfig config;  // d_model of X, d_k and d_v of every head
    attn::AttentionOptions options;
    attn::Tokenization tokens;               // one per row of X
    attn::Matrix X;                          // (n, d_model)
    std::vector<attn::HeadWeights> weights;  // per head; split: sliced from in_proj_weight
    // Per head its result and statistics. weightsAverage, concat and
    // output are a multi-head run's; the single head keeps none (its
    // average is its weights, its concatenation its context).
    attn::MultiHeadResult result;

    // A multi-head run's parameters besides the heads' own.
    bool multiHeadRun = false;
    std::string headInit;    // where the heads' parameters came from
    attn::Matrix Wo;         // independent layout with an output projection
    attn::SplitHeads split;  // split layout

    int headCount() const { return result.headCount(); }
    attn::HeadLayout layout() const { return result.layout; }
    // Head i (0-based); head 0 is the one the single-head keys and files show.
    const attn::AttentionResult& head(int i = 0) const { return result.heads[std::size_t(i)]; }
    const attn::AttentionStats& stats(int i = 0) const { return result.stats[std::size_t(i)]; }
    const attn::HeadWeights& headWeights(int i = 0) const { return weights[std::size_t(i)]; }
};

// The single head (h = 1) of a computed run: `model`'s tokens, X and
// projections, its result and statistics. d_model, d_k and d_v are taken
// from the matrices (with a problem the config is the refused request).
AttentionSnapshot singleHeadSnapshot(const attn::ModelConfig& config, const attn::AttentionOptions& options,
                                     attn::Model model, attn::AttentionResult result,
                                     attn::AttentionStats stats);

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

// A multi-head run: the passes over X (n, d_model) with `tokens` labelling
// its rows, in either layout. The config takes d_model, d_k and d_v from
// the matrices.
attn::Expected<AttentionSnapshot> computeMultiHeadSnapshot(const attn::ModelConfig& config,
                                                           const attn::AttentionOptions& options,
                                                           attn::Tokenization tokens, attn::Matrix X,
                                                           attn::IndependentHeads params,
                                                           std::string headInit);
attn::Expected<AttentionSnapshot> computeMultiHeadSnapshot(const attn::ModelConfig& config,
                                                           const attn::AttentionOptions& options,
                                                           attn::Tokenization tokens, attn::Matrix X,
                                                           attn::SplitHeads params, std::string headInit);

// The tokens that label `rows` rows of a given X: the sentence's tokens when
// it has exactly that many, otherwise t0, t1, ... (vocabulary and ids as the
// tokenizer would give them for the sentence "t0 t1 ...").
attn::Tokenization tokensForRows(const attn::ModelConfig& config, int rows);

// "t0 t1 ... t<rows-1>": a sentence whose article tokenization has `rows` tokens.
std::string placeholderSentence(int rows);

}  // namespace attnlab
