// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Multi-head attention: h scaled dot-product heads side by side, each one
// the single-head pass of attention.h (its numbers, mask, scale mode and
// statistics), then their contexts concatenated and optionally projected.
//
// Two layouts:
//  - Independent (Raschka's article): head i has W_q^i, W_k^i (d_model, d_k)
//    and W_v^i (d_model, d_v) of its own; concat = [Z_1 | ... | Z_h]
//    (n, h d_v); with W_o (h d_v, d_out), output = concat W_o.
//  - Split (torch.nn.MultiheadAttention): E = d_model, head_dim = E / h.
//    in_proj_weight (3E, E) holds W_q | W_k | W_v as rows, applied as
//    [q | k | v] = x in_proj_weight^T + in_proj_bias; head i takes features
//    i*head_dim .. (i+1)*head_dim - 1 of q, k and v; output = concat
//    out_proj_weight^T + out_proj_bias (n, E).
// weightsAverage is the sum of the heads' weights over h, as the module
// returns with average_attn_weights=True.

#include "attention.h"
#include "expected.h"
#include "matrix.h"
#include "statistics.h"

#include <atomic>
#include <string_view>
#include <vector>

namespace attn {

inline constexpr int kMaxHeads = 64;
// The heads keep h raw n x n maps: at most 2^27 entries (1 GiB) in all.
inline constexpr long long kMaxHeadScoreEntries = 1LL << 27;

enum class HeadLayout { Independent, Split };

const char* headLayoutName(HeadLayout layout);  // "independent", "split"
bool parseHeadLayout(std::string_view name, HeadLayout* layout);

// One head's projections as the single-head engine takes them.
struct HeadWeights {
    Matrix Wq;  // (d_model, d_k)
    Matrix Wk;  // (d_model, d_k)
    Matrix Wv;  // (d_model, d_v)
};

struct IndependentHeads {
    std::vector<HeadWeights> heads;  // h of them, all of the same shapes
    Matrix Wo;                       // (h d_v, d_out), or empty: no output projection
};

// nn.MultiheadAttention's parameters in its own layout (state_dict keys
// in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias).
struct SplitHeads {
    int heads = 1;
    Matrix inProjWeight;    // (3E, E)
    RowVector inProjBias;   // (3E)
    Matrix outProjWeight;   // (E, E)
    RowVector outProjBias;  // (E)

    int embedDim() const { return int(inProjWeight.cols()); }
    int headDim() const { return heads > 0 ? embedDim() / heads : 0; }
    // Head i's projections as the independent layout holds them (biases
    // aside): W_q^i = (rows i*head_dim .. of the W_q block)^T, (E, head_dim).
    HeadWeights head(int i) const;
};

// The choices of the parameter panel and the lab file: how many heads and
// how they are laid out.
struct HeadsConfig {
    int heads = 1;
    HeadLayout layout = HeadLayout::Independent;
    bool outputProjection = false;  // independent: W_o after the concat (split: out_proj always)
    bool torchInit = false;         // split: nn.MultiheadAttention's own initialisation (torch-mha)
    // False for today's single head, which every view and file shows as before.
    bool multiHead() const { return heads > 1 || layout == HeadLayout::Split || outputProjection; }
    bool operator==(const HeadsConfig& o) const
    {
        return heads == o.heads && layout == o.layout && outputProjection == o.outputProjection
               && torchInit == o.torchInit;
    }
    bool operator!=(const HeadsConfig& o) const { return !(*this == o); }
};

// Every head's parameters, in one of the two layouts.
struct MultiHeadParams {
    HeadLayout layout = HeadLayout::Independent;
    IndependentHeads independent;  // when layout is Independent
    SplitHeads split;              // when layout is Split

    int headCount() const
    {
        return layout == HeadLayout::Split ? split.heads : int(independent.heads.size());
    }
    // Head i's W_q, W_k, W_v as the single-head engine takes them.
    HeadWeights head(int i) const
    {
        return layout == HeadLayout::Split ? split.head(i) : independent.heads[std::size_t(i)];
    }
};

struct MultiHeadResult {
    HeadLayout layout = HeadLayout::Independent;
    std::vector<AttentionResult> heads;  // h single-head results
    std::vector<AttentionStats> stats;   // per head, as computeStatistics gives them
    Matrix weightsAverage;               // (n, n)
    Matrix concat;                       // (n, h d_v)
    Matrix output;                       // (n, d_out), empty without an output projection
    Matrix inProjection;                 // split: X in_proj_weight^T + in_proj_bias (n, 3E)

    int headCount() const { return int(heads.size()); }
    bool hasOutput() const { return output.size() > 0; }
};

// A copy of `r`, its heads and matrices copied on `threads` at once (a
// field added above is copied there too): at n = 512, h = 8 the 40 MB took
// 9 ms on one thread, most of it the new pages' faults.
MultiHeadResult copyMultiHeadResult(const MultiHeadResult& r, int threads);

// h within 1..kMaxHeads, or an error saying so.
Status validateHeadCount(int heads);
// E divisible by h (and h valid), and in_proj_weight (3E x E) within
// kMaxHeadWeightEntries (E <= 1024); the error says which head sizes divide E.
Status validateSplitHeads(int embedDim, int heads);
// Every shape of `params` against X (n, E); the error names the parameter
// by its state_dict key and gives the expected shape.
Status validateSplitParameters(const Matrix& X, const SplitHeads& params);

// The passes. `threads` is handed to each head's pass (the numbers do not
// depend on it); `cancel` stops them as it stops computeAttentionInto. The
// result's contents are unspecified after an error.
Status computeMultiHeadInto(const Matrix& X, const IndependentHeads& params, const AttentionOptions& options,
                            MultiHeadResult* result, int threads = 1,
                            const std::atomic<bool>* cancel = nullptr);
Status computeMultiHeadInto(const Matrix& X, const SplitHeads& params, const AttentionOptions& options,
                            MultiHeadResult* result, int threads = 1,
                            const std::atomic<bool>* cancel = nullptr);

// Which of a head's projections changed, for recomputeHeadsInto: bits of
// W_q (or the q block of in_proj), W_k and W_v. A block that did not change
// keeps its product from *result; with W_v alone the weights are the same
// numbers, so the average is kept too.
enum HeadParts : unsigned { kHeadQuery = 1u, kHeadKey = 2u, kHeadValue = 4u, kHeadAllParts = 7u };

// The heads listed in `heads` computed again after their parameters
// changed (independent: their W_q, W_k, W_v; split: their blocks of
// in_proj_weight and in_proj_bias), then the average, the concat and the
// output; the other heads are kept. *result must hold the pass over the
// same X and options and the parameters as they were. With the AVX2
// kernels the numbers are bit for bit those of computeMultiHeadInto over
// `params` (its products are split by row panels and column blocks, and
// weightsRow is the softmax's own row); without them the whole pass runs.
Status recomputeHeadsInto(const Matrix& X, const IndependentHeads& params, const std::vector<int>& heads,
                          const AttentionOptions& options, MultiHeadResult* result, int threads = 1,
                          const std::atomic<bool>* cancel = nullptr, unsigned parts = kHeadAllParts);
Status recomputeHeadsInto(const Matrix& X, const SplitHeads& params, const std::vector<int>& heads,
                          const AttentionOptions& options, MultiHeadResult* result, int threads = 1,
                          const std::atomic<bool>* cancel = nullptr, unsigned parts = kHeadAllParts);

// One head's pass on its own, ahead of the others (a window shows the
// head it has selected first): its Q, K and V from X and `weights`, then
// its maps and statistics. Split layout: the weights are the head's blocks
// of in_proj_weight transposed (SplitHeads::head) and `inBias` its q, k
// and v segments of in_proj_bias (3 head_dim entries; splitHeadBias),
// projected as the packed product projects them; independent layout:
// Q = X W_q as the whole pass does, `inBias` null. Where headAloneExact
// holds, the numbers are those of the whole pass's head bit for bit.
Status computeHeadAlone(const Matrix& X, HeadLayout layout, const HeadWeights& weights,
                        const RowVector* inBias, const AttentionOptions& options, AttentionResult* head,
                        AttentionStats* stats, int threads = 1, const std::atomic<bool>* cancel = nullptr);
// Always for the independent layout; for the split one with the kernels
// (without them the packed product is blocked by size, see
// recomputeHeadsInto).
bool headAloneExact(HeadLayout layout);
// Head i's q, k and v segments of in_proj_bias, (3 head_dim).
RowVector splitHeadBias(const SplitHeads& params, int i);

Expected<MultiHeadResult> computeMultiHead(const Matrix& X, const IndependentHeads& params,
                                           const AttentionOptions& options);
Expected<MultiHeadResult> computeMultiHead(const Matrix& X, const SplitHeads& params,
                                           const AttentionOptions& options);

}  // namespace attn
