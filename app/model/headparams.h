// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The session's multi-head parameters: drawn from the seed as the command
// line draws them (app/cli/multiheadcommand.cpp), one head's weights read
// and written in either layout, and the pass over them.
//
// In the split layout a head's W_q is a block of in_proj_weight seen
// transposed: W_q^i(r, c) is in_proj_weight(i*head_dim + c, r), W_k^i the
// block E rows further down, W_v^i 2E rows down. Reading and writing through
// that view copies numbers, so the split parameters stay bit for bit what
// they are (an imported module's, say).

#include "labfile.h"
#include "model.h"
#include "multihead.h"

#include <atomic>

namespace attnlab {

// config with the split layout's d_k = d_v = d_model / h (when h divides
// d_model); other layouts unchanged.
attn::ModelConfig headsModelConfig(const attn::ModelConfig& config, const attn::HeadsConfig& heads);

// Every head's parameters for config (already through headsModelConfig):
// the independent heads of drawIndependentHeads (with drawOutputProjection's
// W_o when asked), or the split layout of drawTorchMha (torchInit) or of the
// independent draw packed. Refused: h out of range, h not dividing d_model
// in the split layout, more weight entries than kMaxHeadWeightEntries.
attn::Expected<attn::MultiHeadParams> drawMultiHead(const attn::ModelConfig& config,
                                                    const attn::HeadsConfig& heads);

// Whether drawMultiHead's head can be drawn alone (drawHeadAlone): in the
// stable modes, not the Article mode's or torch-mha's single stream.
bool headDrawsAlone(const attn::ModelConfig& config, const attn::HeadsConfig& heads);
// Head i of drawMultiHead(config, heads), drawn alone where headDrawsAlone
// holds; refused as drawMultiHead refuses.
attn::Expected<attn::HeadWeights> drawHeadAlone(const attn::ModelConfig& config,
                                                const attn::HeadsConfig& heads, int i);

// Head `head`'s weights replaced by `weights` (the shapes of head(head)).
void setHeadWeights(attn::MultiHeadParams* params, int head, const attn::HeadWeights& weights);

// One cell of head `head`'s W_q (which 0), W_k (1) or W_v (2).
void setHeadCell(attn::MultiHeadParams* params, int head, int which, int row, int col, double value);

// That cell's value, false when it has none.
bool headCell(const attn::MultiHeadParams& params, int head, int which, int row, int col, double* value);

// The pass of params' layout.
attn::Status computeHeads(const attn::Matrix& X, const attn::MultiHeadParams& params,
                          const attn::AttentionOptions& options, attn::MultiHeadResult* result, int threads,
                          const std::atomic<bool>* cancel = nullptr);

// recomputeHeadsInto of params' layout: `heads` again over *result.
attn::Status recomputeHeads(const attn::Matrix& X, const attn::MultiHeadParams& params,
                            const std::vector<int>& heads, const attn::AttentionOptions& options,
                            attn::MultiHeadResult* result, int threads,
                            const std::atomic<bool>* cancel = nullptr, unsigned parts = attn::kHeadAllParts);

// `state` with its heads replaced by `split` (an imported
// nn.MultiheadAttention's, readMhaState): the split layout of split.heads
// heads, d_k = d_v = d_model / h, the selected head kept while it exists and
// W_q, W_k, W_v its copy. X, the sentence and the options stay.
LabState withSplitHeads(LabState state, attn::SplitHeads split);

// Bytes a MultiHeadResult of h heads over n tokens holds in its maps.
std::size_t multiHeadBytes(int heads, int tokens);

}  // namespace attnlab
