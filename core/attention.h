// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Scaled dot-product self-attention with every intermediate kept for display.
//
//   Q = X W_q (n, d_k)   K = X W_k (n, d_k)   V = X W_v (n, d_v)
//   scores S = Q K^T (n, n)                   S(i, j) = q_i . k_j
//   scaled   = S / divisor  (+ a mask, attention_mask.h: -inf where it
//              hides key j from query i; causal hides j > i)
//   weights A = softmax(scaled) row by row    each query's row sums to 1
//   context Z = A V (n, d_v)

#include "attention_mask.h"
#include "expected.h"
#include "matrix.h"
#include "softmax.h"

#include <atomic>
#include <functional>
#include <string_view>
#include <vector>

namespace attn {

enum class ScaleMode { SqrtDk, None, Custom };

struct AttentionOptions {
    ScaleMode scale = ScaleMode::SqrtDk;
    double customDivisor = 1.0;  // used with ScaleMode::Custom
    bool causal = false;
    // A mask beyond causal (sliding:W, sink:S,window:W); none leaves the
    // choice to `causal`. setMask keeps the two in one canonical form:
    // causal alone for the causal mask, `mask` for the others.
    AttentionMask mask = AttentionMask::none();

    // The mask the pass applies.
    AttentionMask effectiveMask() const
    {
        if (mask.kind != AttentionMask::Kind::None)
            return mask;
        return causal ? AttentionMask::causal() : AttentionMask::none();
    }
    void setMask(const AttentionMask& m)
    {
        causal = m.kind == AttentionMask::Kind::Causal;
        mask = causal ? AttentionMask::none() : m;
    }
    bool operator==(const AttentionOptions& o) const
    {
        return scale == o.scale && customDivisor == o.customDivisor && causal == o.causal && mask == o.mask;
    }
    bool operator!=(const AttentionOptions& o) const { return !(*this == o); }
};

// Largest magnitude accepted in X and the weights: keeps every score finite
// (|s| <= d^2 * 1e60 at the dimension limits) so no view can show NaN.
inline constexpr double kMaxInputMagnitude = 1e30;

// The n x n maps are kept once: the raw scores. The scaled scores and the
// weights are exact functions of them (a division, and an exponential with
// the row's maximum and normaliser), so they are read on demand: bit for bit
// the numbers the softmax produced and A V used, at a third of the memory
// (at 4096 tokens one map is 128 MiB).
struct AttentionResult {
    Matrix Q;                               // (n, d_k)
    Matrix K;                               // (n, d_k)
    Matrix V;                               // (n, d_v)
    Matrix scores;                          // (n, n) raw q_i . k_j, never masked
    Matrix context;                         // (n, d_v)
    std::vector<SoftmaxRowScale> rowScale;  // (n) how each weight row was normalised
    double divisor = 1.0;
    bool causal = false;  // the mask is exactly causal (keys after the query hidden, no others)
    AttentionMask mask;   // the mask applied (none, causal, sliding, sink + window)
    SoftmaxKernel softmaxKernel = SoftmaxKernel::Baseline;  // how the rows were normalised
    double maxAbsScore = 0.0;                               // largest |score| over all cells
    double maxAbsKeptScore = 0.0;                           // largest |score| over the unmasked cells

    int tokens() const { return int(Q.rows()); }
    // The mask the numbers were computed with: `mask`, or causal for a
    // result that sets only `causal` (made by hand).
    AttentionMask appliedMask() const
    {
        return causal && mask.kind == AttentionMask::Kind::None ? AttentionMask::causal() : mask;
    }
    bool isMasked(int query, int key) const { return appliedMask().hides(query, key); }
    // The keys query `query` attends to; 0..keys-1 (a prefix) with no mask
    // or the causal one, one or two runs with the others.
    VisibleKeys visible(int query) const { return appliedMask().visible(query, tokens()); }
    // How many keys query `query` attends to.
    int keys(int query) const { return visible(query).count(); }

    // scores / divisor, -inf where masked.
    double scaled(int query, int key) const;
    // The softmax weight a_ij (0 where masked).
    double weights(int query, int key) const;
    // One row of each into `out` (n values).
    void scaledRow(int query, double* out) const;
    void weightsRow(int query, double* out) const;
    // The whole (n, n) maps, for export and tests.
    Matrix scaledMatrix() const;
    Matrix weightsMatrix() const;
};

// One row's softmax as the engine takes it: the raw scores of the keys
// `vis` packed in key order, divided by `divisor`, normalised; `out` (n)
// gets each weight at its key and 0 at the hidden ones.
SoftmaxRowScale softmaxAttendedRow(const double* scoreRow, int n, const VisibleKeys& vis, double divisor,
                                   SoftmaxKernel kernel, double* out);

// The custom divisor's range (the parameter panel's too). The floor keeps
// every intermediate finite: entries within kMaxInputMagnitude at d_model
// <= 2048, d_k <= 1024 bound |q . k| by 1024 * (2048 * 1e60)^2 < 4.3e129, so
// a scaled score is below 4.3e132 and the sum of the n^2 squares the
// statistics take stays below 1.6e7 * 1.9e265 < 3.1e272 (n <= 4096). A
// divisor of 1e-307 would give inf and NaN weights.
inline constexpr double kMinCustomDivisor = 1e-3;
inline constexpr double kMaxCustomDivisor = 1e6;

// An error naming the range for a custom divisor outside it (or not finite).
Status validateCustomDivisor(double divisor);

// sqrt(d_k), 1, or the custom divisor; an error for a custom divisor outside
// [kMinCustomDivisor, kMaxCustomDivisor].
Expected<double> scaleDivisor(const AttentionOptions& options, int dK);

// The entry budgets of size_limits.h, for sizes already within their own
// limits: X's n x d_model entries at most kMaxMatrixEntries, and W_q, W_k,
// W_v's d_model (2 d_k + d_v) together at most kMaxHeadWeightEntries. The
// error names the sizes and what fits at this d_model.
Status validateEmbeddingEntries(long long tokens, long long dModel);
Status validateWeightEntries(long long dModel, long long dK, long long dV);

// Shapes agree, sizes within limits and the entry budgets, every entry finite
// and within kMaxInputMagnitude; the error names the matrix and the cell
// (1-based).
Status validateInputs(const Matrix& X, const Matrix& Wq, const Matrix& Wk, const Matrix& Wv);

Expected<AttentionResult> computeAttention(const Matrix& X,   // (n, d_model)
                                           const Matrix& Wq,  // (d_model, d_k)
                                           const Matrix& Wk,  // (d_model, d_k)
                                           const Matrix& Wv,  // (d_model, d_v)
                                           const AttentionOptions& options);

// One query's row as the engine has it while it is at hand. The attended
// keys are `visible` (0..keys-1 with no mask or the causal one); their
// weights, raw and scaled scores are also given packed in key order:
// keptWeights[c] = exp(scaled[c] - scale.max) * scale.invSum for key
// visible.key(c). The other entries of the n are masked (weight 0).
struct WeightRow {
    const double* weights = nullptr;  // n values, 0 where masked
    const double* scores = nullptr;   // the n raw scores (the result's row)
    const double* scaled = nullptr;   // the `keys` attended scaled scores
    int keys = 0;
    int n = 0;
    SoftmaxRowScale scale;
    const double* keptWeights = nullptr;  // the `keys` attended weights
    const double* keptScores = nullptr;   // the `keys` attended raw scores
    VisibleKeys visible = {};

    // The packed arrays, or for a row made without them (a prefix row)
    // the first `keys` of weights and scores.
    const double* attendedWeights() const { return keptWeights ? keptWeights : weights; }
    const double* attendedScores() const { return keptScores ? keptScores : scores; }
    // The key of packed position c.
    int keyAt(int c) const { return keptWeights ? visible.key(c) : c; }
};

// Called with each query's row, e.g. to take its statistics without
// computing it again. With several threads it is called from all of them,
// for distinct rows.
using WeightRowVisitor = std::function<void(int query, const WeightRow& row)>;

// The message of a computation stopped by its cancel flag (its kind is
// ErrorKind::Cancelled: isCancelled, expected.h).
inline constexpr const char* kCancelledMessage = "The computation was cancelled.";

// Recomputes into an existing result, reusing its storage (the interactive
// path). Same checks as computeAttention. `threads` > 1 shares the query
// panels among that many threads (the calling one included); the numbers
// do not depend on it. `cancel`, if set, is read before each panel of query
// rows: once it is true every thread stops within one panel and the call
// returns kCancelledMessage, the result's contents unspecified (a caller
// that superseded the request drops it).
Status computeAttentionInto(const Matrix& X, const Matrix& Wq, const Matrix& Wk, const Matrix& Wv,
                            const AttentionOptions& options, AttentionResult* result,
                            const WeightRowVisitor& visit = {}, int threads = 1,
                            const std::atomic<bool>* cancel = nullptr);

// The same pass from projections already made: result->Q (n, d_k), K
// (n, d_k) and V (n, d_v) are set by the caller (a multi-head pass takes
// them as column blocks of one packed projection, with its bias); the
// scores, softmax and context follow exactly as in computeAttentionInto.
// An error for shapes that do not fit or an entry that is not finite.
Status computeAttentionFromProjections(const AttentionOptions& options, AttentionResult* result,
                                       const WeightRowVisitor& visit = {}, int threads = 1,
                                       const std::atomic<bool>* cancel = nullptr);

// X W (n, cols) as the pass projects: with the kernels each entry is one
// fused chain over d_model in order, so a column block of X W is bit for
// bit X times that block of W. Shapes are the caller's to check.
void projectInto(const Matrix& X, const Matrix& W, Matrix* out);

// X Wt^T (n, rows of Wt), the same numbers as projectInto(X, Wt^T) without
// the transposed copy: nn.Linear's x W^T for W (out, in).
void projectTransposedInto(const Matrix& X, const Matrix& Wt, Matrix* out);

const char* scaleModeName(ScaleMode mode);  // "sqrt-dk", "none", "custom"

}  // namespace attn
