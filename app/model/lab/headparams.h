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
// `heads` with `count` heads.
attn::HeadsConfig withHeadCount(attn::HeadsConfig heads, int count);
// `heads` with another layout: the split layout has its output projection
// built in (outputProjection off), only it has PyTorch's initialisation
// (torchInit off otherwise).
attn::HeadsConfig withHeadLayout(attn::HeadsConfig heads, attn::HeadLayout layout);
// `heads` with W_o on or off (independent heads only) and with PyTorch's
// initialisation on or off (split heads only).
attn::HeadsConfig withOutputProjection(attn::HeadsConfig heads, bool on);
attn::HeadsConfig withTorchInit(attn::HeadsConfig heads, bool on);

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

// Calls visit(part, row, col, entry) for each entry of head `head`'s W_q
// (part 0), W_k (1) or W_v (2), of the parts in `parts` (attn::HeadParts),
// where `value` differs from `drawn`, in a fixed order: read in place where
// both have one layout (in the split layout W(r, c) is in_proj_weight's
// (part E + head head_dim + c, r), visited in that matrix's order), else
// copied out. A part whose shapes differ is not visited.
template <typename Visit>
void visitHeadDifferences(const attn::MultiHeadParams& value, const attn::MultiHeadParams& drawn, int head,
                          unsigned parts, Visit&& visit)
{
    const auto each = [&](int part, const auto& w, const auto& d, bool transposed) {
        if ((parts & (1u << part)) == 0 || w.rows() != d.rows() || w.cols() != d.cols())
            return;
        for (Eigen::Index i = 0; i < w.rows(); ++i)
            for (Eigen::Index j = 0; j < w.cols(); ++j)
                if (w(i, j) != d(i, j))
                    transposed ? visit(part, int(j), int(i), w(i, j)) : visit(part, int(i), int(j), w(i, j));
    };
    if (value.layout == attn::HeadLayout::Split && drawn.layout == attn::HeadLayout::Split) {
        const attn::SplitHeads& a = value.split;
        const attn::SplitHeads& b = drawn.split;
        if (a.embedDim() != b.embedDim() || a.headDim() != b.headDim())
            return;
        const Eigen::Index e = a.embedDim(), hd = a.headDim();
        for (int part = 0; part < 3; ++part) {
            const Eigen::Index first = part * e + head * hd;
            each(part, a.inProjWeight.middleRows(first, hd), b.inProjWeight.middleRows(first, hd), true);
        }
        return;
    }
    const auto three = [&](const attn::HeadWeights& w, const attn::HeadWeights& d) {
        each(0, w.Wq, d.Wq, false);
        each(1, w.Wk, d.Wk, false);
        each(2, w.Wv, d.Wv, false);
    };
    if (value.layout == attn::HeadLayout::Independent && drawn.layout == attn::HeadLayout::Independent)
        three(value.independent.heads[std::size_t(head)], drawn.independent.heads[std::size_t(head)]);
    else
        three(value.head(head), drawn.head(head));  // layouts differ: copied out to compare
}

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
