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

#include <string_view>

namespace attn {

enum class ScaleMode { SqrtDk, None, Custom };

struct AttentionOptions {
    ScaleMode scale = ScaleMode::SqrtDk;
    double customDivisor = 1.0;  // used with ScaleMode::Custom
    bool causal = false;
};

// Largest magnitude accepted in X and the weights: keeps every score finite
// (|s| <= d^2 * 1e60 at the dimension limits) so no view can show NaN.
inline constexpr double kMaxInputMagnitude = 1e30;

struct AttentionResult {
    Matrix Q;        // (n, d_k)
    Matrix K;        // (n, d_k)
    Matrix V;        // (n, d_v)
    Matrix scores;   // (n, n) raw q_i . k_j, never masked
    Matrix scaled;   // (n, n) scores / divisor, -inf where masked
    Matrix weights;  // (n, n) row-wise softmax of scaled
    Matrix context;  // (n, d_v)
    double divisor = 1.0;
    bool causal = false;

    int tokens() const { return int(Q.rows()); }
    bool isMasked(int query, int key) const { return causal && key > query; }
};

// sqrt(d_k), 1, or the custom divisor; an error for a custom divisor that is
// zero, negative or not finite.
Expected<double> scaleDivisor(const AttentionOptions& options, int dK);

// Shapes agree, sizes within limits, every entry finite and within
// kMaxInputMagnitude; the error names the matrix and the cell (1-based).
Status validateInputs(const Matrix& X, const Matrix& Wq, const Matrix& Wk, const Matrix& Wv);

Expected<AttentionResult> computeAttention(const Matrix& X,   // (n, d_model)
                                           const Matrix& Wq,  // (d_model, d_k)
                                           const Matrix& Wk,  // (d_model, d_k)
                                           const Matrix& Wv,  // (d_model, d_v)
                                           const AttentionOptions& options);

// Recomputes into an existing result, reusing its storage (the interactive
// path). Same checks as computeAttention.
Status computeAttentionInto(const Matrix& X, const Matrix& Wq, const Matrix& Wk,
                            const Matrix& Wv, const AttentionOptions& options,
                            AttentionResult* result);

const char* scaleModeName(ScaleMode mode);  // "sqrt-dk", "none", "custom"

}  // namespace attn
