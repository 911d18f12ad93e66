// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The multi-head parameters drawn from a seed.
//
//  - drawIndependentHeads, Article mode: as Raschka's article. With one
//    head, the single head of drawWeights (today's numbers). With h > 1,
//    after manual_seed(seed) and the single head's W_query, W_key, W_value,
//    the same stream gives torch.rand(h, d_k, d_model) (queries),
//    rand(h, d_k, d_model) (keys), rand(h, d_v, d_model) (values); head i's
//    W_q is the transpose of the first tensor's slice i, (d_model, d_k).
//    Stable modes: head 1 is drawWeights' head, head i > 1 has streams of
//    its own (drawStableWeight 3i - 2, 3i - 1, 3i), so adding a head keeps
//    the others.
//  - drawOutputProjection: W_o (h d_v, d_model); Article mode: the stream
//    continues after the heads' values with torch.rand(d_model, h d_v),
//    transposed (nn.Linear's (out, in) convention); stable modes: stream 250.
//  - drawTorchMha: torch.manual_seed(seed); nn.MultiheadAttention(E, h):
//    out_proj.weight kaiming_uniform_(a = sqrt(5)) (U(-1/sqrt(E), 1/sqrt(E))),
//    out_proj.bias U(-1/sqrt(E), 1/sqrt(E)), in_proj_weight xavier_uniform_
//    over (3E, E) (U(-sqrt(6/(4E)), +)), then both biases set to 0; with
//    `biased`, in_proj_bias.uniform_(-1, 1) then out_proj.bias.uniform_(-1, 1)
//    from the same stream (../shared/reference/torch_mha_cases.json).
//    The embeddings are the Article mode's (nn.Embedding after the same
//    seed), drawEmbeddings.
//  - packSplitHeads: h heads of (E, E/h) into the split layout, zero
//    biases and out_proj = identity (output = concat).

#include "matrix.h"
#include "model.h"
#include "multihead.h"

#include <cstdint>
#include <vector>

namespace attn {

std::vector<HeadWeights> drawIndependentHeads(const ModelConfig& config, int heads);
// Head i (0-based) of drawIndependentHeads in the stable modes, drawn alone
// from its own streams. (The Article mode's heads share one stream; there
// it gives the single head, drawWeights.)
HeadWeights drawIndependentHead(const ModelConfig& config, int i);
Matrix drawOutputProjection(const ModelConfig& config, int heads);
SplitHeads drawTorchMha(std::uint64_t seed, int embedDim, int heads, bool biased = false);
SplitHeads packSplitHeads(const std::vector<HeadWeights>& heads);

}  // namespace attn
