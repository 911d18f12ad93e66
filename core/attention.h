// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Scaled dot-product self-attention with every intermediate kept for display.
//
//   Q = X W_q (n, d_k)   K = X W_k (n, d_k)   V = X W_v (n, d_v)
//   scores S = Q K^T (n, n)                   S(i, j) = q_i . k_j
//   scaled   = S / divisor  (+ causal mask: -inf where j > i)
//   weights A = softmax(scaled) row by row    each query's row sums to 1
//   context Z = A V (n, d_v)

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
    // With causal, a sliding window of this many keys (Mistral's
    // sliding_window w): query i sees keys j with i - w < j <= i. 0: none.
    int window = 0;
    bool operator==(const AttentionOptions& o) const
    {
        return scale == o.scale && customDivisor == o.customDivisor && causal == o.causal
               && window == o.window;
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
    bool causal = false;
    int window = 0;                                         // AttentionOptions::window (with causal)
    SoftmaxKernel softmaxKernel = SoftmaxKernel::Baseline;  // how the rows were normalised
    double maxAbsScore = 0.0;                               // largest |score| over all cells
    double maxAbsKeptScore = 0.0;                           // largest |score| over the unmasked cells

    int tokens() const { return int(Q.rows()); }
    bool isMasked(int query, int key) const { return causal && (key > query || key < firstKey(query)); }
    // Keys query `query` attends to: firstKey(query)..keys(query)-1 (the
    // first is 0 unless a sliding window hides the earlier keys).
    int keys(int query) const { return causal ? query + 1 : tokens(); }
    int firstKey(int query) const { return causal && window > 0 && query >= window ? query - window + 1 : 0; }

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

// One query's row as the engine has it while it is at hand: weights[j] =
// exp(scaled[j - first] - scale.max) * scale.invSum for the attended keys
// first..keys-1; the other entries of the n are masked (weight 0). `first`
// is 0 unless a sliding window hides the earlier keys.
struct WeightRow {
    const double* weights = nullptr;  // n values, 0 where masked
    const double* scores = nullptr;   // the n raw scores (the result's row)
    const double* scaled = nullptr;   // the keys - first scaled scores of keys first..keys-1
    int keys = 0;
    int n = 0;
    SoftmaxRowScale scale;
    int first = 0;
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
