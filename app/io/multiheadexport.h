// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The export of one multi-head run (attention-lab --heads ...).
//
// attention.json: every key of the single-head export (attentionexport.h)
// for head 1, the head the single-head views show, with d_k and d_v its
// sizes; then head_layout ("independent" or "split"), num_heads,
// head_init (article, normal, unit-variance, torch-mha or mha-state),
// heads (h objects with W_q, W_k, W_v, Q, K, V, scores (raw),
// scaled_scores (masked entries null), weights, context), weights_average
// (n, n), concat (n, h d_v), and, with an output projection, output
// (n, d_out) and, in the independent layout, W_o (h d_v, d_out). The split
// layout adds in_proj_weight (3E, E), in_proj_bias (3E), out_proj_weight
// (E, E) and out_proj_bias (E) in PyTorch's own layout. With one head and
// no projection every single-head key keeps its meaning.
//
// CSV and .npy: the single-head files (head 1), then per head i = 1..h
// NAME_head<i> for W_q, W_k, W_v, Q, K, V, scores, scaled_scores,
// weights, context, and weights_average, concat, output, W_o,
// in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias where they
// apply (a bias is one row).

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "multihead.h"
#include "stagedwrite.h"

#include <ostream>
#include <string>
#include <vector>

namespace attnlab {

struct MultiHeadSnapshot {
    AttentionSnapshot focus;  // head 1 as the single-head export writes it
    attn::HeadLayout layout = attn::HeadLayout::Independent;
    std::string headInit;                    // where the heads' parameters came from
    std::vector<attn::HeadWeights> weights;  // per head; split: sliced from in_proj_weight
    attn::Matrix Wo;                         // independent layout with an output projection
    attn::SplitHeads split;                  // split layout
    attn::MultiHeadResult result;
};

// The passes over X (n, d_model) with `tokens` labelling its rows. The
// focus's config takes d_model, d_k and d_v from the matrices.
attn::Expected<MultiHeadSnapshot> computeMultiHeadSnapshot(const attn::ModelConfig& config,
                                                           const attn::AttentionOptions& options,
                                                           attn::Tokenization tokens, attn::Matrix X,
                                                           attn::IndependentHeads params,
                                                           std::string headInit);
attn::Expected<MultiHeadSnapshot> computeMultiHeadSnapshot(const attn::ModelConfig& config,
                                                           const attn::AttentionOptions& options,
                                                           attn::Tokenization tokens, attn::Matrix X,
                                                           attn::SplitHeads params, std::string headInit);

void writeMultiHeadJson(std::ostream& out, const MultiHeadSnapshot& snapshot);

// attention.json and the CSV and .npy files as `formats` asks (pictures are
// not written here). The writers refer to `snapshot`, which must outlive
// the files.
std::vector<OutputFile> multiHeadExportFiles(const MultiHeadSnapshot& snapshot, const ExportFormats& formats);

// The result's own files, as CSV and .npy as `formats` asks (the window's
// export, which has no parameters at hand here): per head i = 1..h
// Q_head<i>, K, V, scores, scaled_scores, weights, context, then
// weights_average, concat and output (with a projection), named and
// labelled as above. The writers refer to `result` and `tokens`.
std::vector<OutputFile> multiHeadResultFiles(const attn::MultiHeadResult& result,
                                             const std::vector<std::string>& tokens,
                                             const ExportFormats& formats);

// One matrix as the CSV above: query/key labels for an (n, n) map, token
// rows and dimension columns otherwise.
std::string multiHeadMatrixCsv(const attn::Matrix& m, const std::vector<std::string>& tokens, bool queryKey);

}  // namespace attnlab
