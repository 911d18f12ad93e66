#include "attention.h"

#include "size_limits.h"
#include "softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace attn {
namespace {

std::string shapeText(const Matrix& m)
{
    return "(" + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) + ")";
}

Status checkEntries(const char* name, const Matrix& m)
{
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const double v = m(i, j);
            if (std::isfinite(v) && std::abs(v) <= kMaxInputMagnitude)
                continue;
            std::ostringstream msg;
            msg << name << ", row " << i + 1 << ", column " << j + 1 << ": ";
            if (std::isnan(v))
                msg << "NaN is not a number; enter a finite value.";
            else if (!std::isfinite(v))
                msg << (v > 0 ? "+" : "-") << "infinity is not allowed; enter a finite value.";
            else
                msg << v << " is too large; values must lie within +/-" << kMaxInputMagnitude << ".";
            return Error{msg.str()};
        }
    }
    return okStatus();
}

}  // namespace

const char* scaleModeName(ScaleMode mode)
{
    switch (mode) {
    case ScaleMode::SqrtDk: return "sqrt-dk";
    case ScaleMode::None: return "none";
    case ScaleMode::Custom: return "custom";
    }
    return "sqrt-dk";
}

Expected<double> scaleDivisor(const AttentionOptions& options, int dK)
{
    switch (options.scale) {
    case ScaleMode::SqrtDk:
        return std::sqrt(double(dK));
    case ScaleMode::None:
        return 1.0;
    case ScaleMode::Custom:
        if (!std::isfinite(options.customDivisor) || options.customDivisor <= 0.0) {
            std::ostringstream msg;
            msg << "The custom scale divisor must be a positive finite number; got "
                << options.customDivisor << ".";
            return Error{msg.str()};
        }
        return options.customDivisor;
    }
    return Error{"Unknown scale mode."};
}

Status validateInputs(const Matrix& X, const Matrix& Wq, const Matrix& Wk, const Matrix& Wv)
{
    const Eigen::Index n = X.rows();
    const Eigen::Index d = X.cols();
    if (n < 1 || n > kMaxTokens)
        return Error{"X has " + std::to_string(n) + " rows (tokens); between 1 and "
                     + std::to_string(kMaxTokens) + " are allowed."};
    if (d < 1 || d > kMaxDModel)
        return Error{"X has " + std::to_string(d) + " columns (d_model); between 1 and "
                     + std::to_string(kMaxDModel) + " are allowed."};
    auto checkWeight = [&](const char* name, const Matrix& w) -> Status {
        if (w.rows() != d)
            return Error{std::string(name) + " is " + shapeText(w) + " but must have d_model = "
                         + std::to_string(d) + " rows to multiply X " + shapeText(X) + "."};
        if (w.cols() < 1 || w.cols() > kMaxDHead)
            return Error{std::string(name) + " has " + std::to_string(w.cols())
                         + " columns; between 1 and " + std::to_string(kMaxDHead)
                         + " are allowed."};
        return okStatus();
    };
    if (Status s = checkWeight("W_q", Wq); !s) return s;
    if (Status s = checkWeight("W_k", Wk); !s) return s;
    if (Status s = checkWeight("W_v", Wv); !s) return s;
    if (Wq.cols() != Wk.cols())
        return Error{"W_q " + shapeText(Wq) + " and W_k " + shapeText(Wk)
                     + " must have the same d_k so that q . k is defined."};
    if (Status s = checkEntries("X", X); !s) return s;
    if (Status s = checkEntries("W_q", Wq); !s) return s;
    if (Status s = checkEntries("W_k", Wk); !s) return s;
    return checkEntries("W_v", Wv);
}

Status computeAttentionInto(const Matrix& X, const Matrix& Wq, const Matrix& Wk,
                            const Matrix& Wv, const AttentionOptions& options,
                            AttentionResult* r)
{
    if (Status s = validateInputs(X, Wq, Wk, Wv); !s)
        return s;
    const Expected<double> divisor = scaleDivisor(options, int(Wq.cols()));
    if (!divisor)
        return divisor.error();

    r->Q.noalias() = X * Wq;  // (n, d_k)
    r->K.noalias() = X * Wk;  // (n, d_k)
    r->V.noalias() = X * Wv;  // (n, d_v)
    r->divisor = *divisor;
    r->causal = options.causal;
    const Eigen::Index n = X.rows();
    r->scores.resize(n, n);
    r->scaled.resize(n, n);
    r->weights.resize(n, n);
    r->context.resize(n, Wv.cols());
    const double minusInf = -std::numeric_limits<double>::infinity();
    // A panel of query rows at a time: its scores, then scaling and softmax
    // row by row, then its context rows. The panel's score and weight rows
    // are still in cache when the softmax and A V read them, instead of
    // making three trips over n x n maps in main memory. 64 rows keep the
    // repacking of K and V per panel small next to the products.
    constexpr Eigen::Index kPanelRows = 64;
    for (Eigen::Index i0 = 0; i0 < n; i0 += kPanelRows) {
        const Eigen::Index rows = std::min(kPanelRows, n - i0);
        r->scores.middleRows(i0, rows).noalias() = r->Q.middleRows(i0, rows) * r->K.transpose();
        for (Eigen::Index i = i0; i < i0 + rows; ++i) {
            const double* scoreRow = r->scores.data() + i * n;
            double* scaledRow = r->scaled.data() + i * n;
            double* weightRow = r->weights.data() + i * n;
            // Query i may attend to keys 0..i only with a causal mask; the
            // diagonal is always kept, so no row is fully masked.
            const Eigen::Index keys = options.causal ? i + 1 : n;
            // Divides, as the formula (and PyTorch) does: multiplying by the
            // reciprocal can differ in the last bit.
            scaledSoftmaxRow(scoreRow, r->divisor, scaledRow, weightRow, int(keys));
            std::fill(scaledRow + keys, scaledRow + n, minusInf);
            std::fill(weightRow + keys, weightRow + n, 0.0);
        }
        r->context.middleRows(i0, rows).noalias() = r->weights.middleRows(i0, rows) * r->V;
    }
    return okStatus();
}

Expected<AttentionResult> computeAttention(const Matrix& X, const Matrix& Wq, const Matrix& Wk,
                                           const Matrix& Wv, const AttentionOptions& options)
{
    AttentionResult result;
    if (Status s = computeAttentionInto(X, Wq, Wk, Wv, options, &result); !s)
        return s.error();
    return result;
}

}  // namespace attn
