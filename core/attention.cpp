// SPDX-License-Identifier: GPL-3.0-or-later
#include "attention.h"

#include "kernels.h"
#include "size_limits.h"
#include "softmax.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <thread>
#include <utility>

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

// Scores, scaling, softmax and context from r->Q, r->K, r->V.
Status attend(const AttentionOptions& options, double divisor, AttentionResult* r,
              const WeightRowVisitor& visit, int threads, const std::atomic<bool>* cancel)
{
    const bool fused = kernels::available();
    const AttentionMask mask = options.effectiveMask();
    r->divisor = divisor;
    r->mask = mask;
    r->causal = mask.kind == AttentionMask::Kind::Causal;
    r->softmaxKernel = fused ? SoftmaxKernel::Avx2 : SoftmaxKernel::Baseline;
    const Eigen::Index n = r->Q.rows();
    r->scores.resize(n, n);
    r->context.resize(n, r->V.cols());
    r->rowScale.resize(std::size_t(n));
    // A panel of query rows at a time: its scores, then scaling and softmax
    // row by row into a panel of weights, then its context rows. The weights
    // live only in the panel (in cache when A V reads them): the result keeps
    // each row's normaliser instead, from which any weight is recomputed
    // exactly. With Eigen's products 256 rows keep its repacking of K and V
    // per panel small next to the products (64 rows cost a third more at
    // 4096 tokens); the AVX2 kernels pack K and V once per pass, and 64 rows
    // of weights stay in L2 (1 MiB at 2048 tokens).
    kernels::PackedKeys packedKeys;
    kernels::PackedValues packedValues;
    if (fused) {
        kernels::packKeys(r->K.data(), int(n), int(r->K.cols()), &packedKeys);
        kernels::packValues(r->V.data(), int(n), int(r->V.cols()), &packedValues);
    }
    const Eigen::Index kPanelRows = fused ? 64 : 256;
    const Eigen::Index panels = (n + kPanelRows - 1) / kPanelRows;
    std::atomic<Eigen::Index> nextPanel{0};
    std::atomic<bool> cancelled{false};
    struct Extremes {
        double all = 0.0, kept = 0.0;
    };
    auto work = [&](Extremes* extremes) {
        Matrix weights(std::min(kPanelRows, n), n);
        std::vector<double> scaled(static_cast<std::size_t>(n));
        // A row of two runs (sink + window) is softmaxed packed.
        std::vector<double> packedScores, packedWeights;
        if (mask.kind == AttentionMask::Kind::SinkWindow) {
            packedScores.resize(static_cast<std::size_t>(n));
            packedWeights.resize(static_cast<std::size_t>(n));
        }
        for (Eigen::Index p = nextPanel++; p < panels; p = nextPanel++) {
            if (cancel && cancel->load(std::memory_order_relaxed)) {
                cancelled.store(true, std::memory_order_relaxed);
                return;
            }
            const Eigen::Index i0 = p * kPanelRows;
            const Eigen::Index rows = std::min(kPanelRows, n - i0);
            if (fused)
                kernels::scores(r->Q.data() + i0 * r->Q.cols(), int(rows), packedKeys,
                                r->scores.data() + i0 * n, n);
            else
                r->scores.middleRows(i0, rows).noalias() = r->Q.middleRows(i0, rows) * r->K.transpose();
            for (Eigen::Index i = i0; i < i0 + rows; ++i) {
                const double* scoreRow = r->scores.data() + i * n;
                double* weightRow = weights.data() + (i - i0) * n;
                // The keys query i attends to: all, 0..i (causal), or one or
                // two runs of 0..i; every mask keeps the diagonal, so no row
                // is fully masked. The softmax runs over them packed in key
                // order: a run in place, two runs copied together.
                const VisibleKeys vis = mask.visible(int(i), int(n));
                const int keys = vis.count();
                const double* keptScores = scoreRow + vis.from;
                double* keptWeights = weightRow + vis.from;
                if (vis.head > 0) {
                    std::copy(scoreRow, scoreRow + vis.head, packedScores.begin());
                    std::copy(scoreRow + vis.from, scoreRow + vis.to, packedScores.begin() + vis.head);
                    keptScores = packedScores.data();
                    keptWeights = packedWeights.data();
                }
                // Divides, as the formula (and PyTorch) does: multiplying by
                // the reciprocal can differ in the last bit.
                r->rowScale[std::size_t(i)] = scaledSoftmaxRow(keptScores, r->divisor, scaled.data(),
                                                               keptWeights, keys, r->softmaxKernel);
                if (vis.head > 0) {
                    std::copy(keptWeights, keptWeights + vis.head, weightRow);
                    std::fill(weightRow + vis.head, weightRow + vis.from, 0.0);
                    std::copy(keptWeights + vis.head, keptWeights + keys, weightRow + vis.from);
                } else {
                    std::fill(weightRow, weightRow + vis.from, 0.0);
                }
                std::fill(weightRow + vis.to, weightRow + n, 0.0);
                const Eigen::Map<const Eigen::ArrayXd> row(scoreRow, n);
                const double kept = Eigen::Map<const Eigen::ArrayXd>(keptScores, keys).abs().maxCoeff();
                extremes->kept = std::max(extremes->kept, kept);
                if (vis.prefix())
                    extremes->all = std::max(
                        {extremes->all, kept, vis.to < n ? row.tail(n - vis.to).abs().maxCoeff() : 0.0});
                else
                    extremes->all = std::max(extremes->all, row.abs().maxCoeff());
                if (visit)
                    visit(int(i), WeightRow{weightRow, scoreRow, scaled.data(), keys, int(n),
                                            r->rowScale[std::size_t(i)], keptWeights, keptScores, vis});
            }
            // Every mask but none hides the keys after the query: the
            // kernel skips those zeros.
            if (fused)
                kernels::context(weights.data(), n, int(rows), packedValues,
                                 r->context.data() + i0 * r->context.cols(), r->context.cols(),
                                 mask.kind != AttentionMask::Kind::None ? int(i0) : -1);
            else
                r->context.middleRows(i0, rows).noalias() = weights.topRows(rows) * r->V;
        }
    };
    const int helpers = int(std::clamp<Eigen::Index>(threads, 1, panels)) - 1;
    std::vector<Extremes> extremes(std::size_t(helpers) + 1);
    std::vector<std::thread> pool;
    for (int t = 0; t < helpers; ++t)
        pool.emplace_back(work, &extremes[std::size_t(t) + 1]);
    work(&extremes[0]);
    for (std::thread& t : pool)
        t.join();
    if (cancelled.load())
        return cancelledError(kCancelledMessage);
    r->maxAbsScore = r->maxAbsKeptScore = 0.0;
    for (const Extremes& e : extremes) {
        r->maxAbsScore = std::max(r->maxAbsScore, e.all);
        r->maxAbsKeptScore = std::max(r->maxAbsKeptScore, e.kept);
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

Status validateCustomDivisor(double divisor)
{
    if (std::isfinite(divisor) && divisor >= kMinCustomDivisor && divisor <= kMaxCustomDivisor)
        return okStatus();
    std::ostringstream msg;
    msg << "The custom scale divisor must be a number from " << kMinCustomDivisor << " to "
        << kMaxCustomDivisor << "; got " << divisor << ".";
    return Error{msg.str()};
}

Expected<double> scaleDivisor(const AttentionOptions& options, int dK)
{
    switch (options.scale) {
    case ScaleMode::SqrtDk: return std::sqrt(double(dK));
    case ScaleMode::None: return 1.0;
    case ScaleMode::Custom:
        if (Status valid = validateCustomDivisor(options.customDivisor); !valid)
            return valid.error();
        return options.customDivisor;
    }
    return Error{"Unknown scale mode."};
}

Status validateEmbeddingEntries(long long tokens, long long dModel)
{
    if (tokens * dModel <= kMaxMatrixEntries)
        return okStatus();
    return Error{"X of " + std::to_string(tokens) + " tokens at d_model " + std::to_string(dModel)
                 + " would hold " + std::to_string(tokens * dModel) + " entries; at most "
                 + std::to_string(kMaxMatrixEntries) + " are allowed, so at d_model " + std::to_string(dModel)
                 + " at most " + std::to_string(kMaxMatrixEntries / dModel) + " tokens."};
}

Status validateWeightEntries(long long dModel, long long dK, long long dV)
{
    const long long entries = dModel * (2 * dK + dV);
    if (entries <= kMaxHeadWeightEntries)
        return okStatus();
    return Error{"W_q, W_k and W_v at d_model " + std::to_string(dModel) + ", d_k " + std::to_string(dK)
                 + ", d_v " + std::to_string(dV) + " would hold " + std::to_string(entries)
                 + " entries together; at most " + std::to_string(kMaxHeadWeightEntries)
                 + " are allowed, so at d_model " + std::to_string(dModel) + " 2 d_k + d_v is at most "
                 + std::to_string(kMaxHeadWeightEntries / dModel) + "."};
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
            return Error{std::string(name) + " has " + std::to_string(w.cols()) + " columns; between 1 and "
                         + std::to_string(kMaxDHead) + " are allowed."};
        return okStatus();
    };
    if (Status s = checkWeight("W_q", Wq); !s)
        return s;
    if (Status s = checkWeight("W_k", Wk); !s)
        return s;
    if (Status s = checkWeight("W_v", Wv); !s)
        return s;
    if (Wq.cols() != Wk.cols())
        return Error{"W_q " + shapeText(Wq) + " and W_k " + shapeText(Wk)
                     + " must have the same d_k so that q . k is defined."};
    if (Status s = validateEmbeddingEntries(n, d); !s)
        return s;
    if (Status s = validateWeightEntries(d, Wq.cols(), Wv.cols()); !s)
        return s;
    if (Status s = checkEntries("X", X); !s)
        return s;
    if (Status s = checkEntries("W_q", Wq); !s)
        return s;
    if (Status s = checkEntries("W_k", Wk); !s)
        return s;
    return checkEntries("W_v", Wv);
}

void projectInto(const Matrix& X, const Matrix& W, Matrix* out)
{
    if (kernels::available()) {
        // X W as the context kernel's product: the rows of X weigh the rows
        // of W (its "values", d_model of them).
        kernels::PackedValues packed;
        kernels::packValues(W.data(), int(W.rows()), int(W.cols()), &packed);
        out->resize(X.rows(), W.cols());
        constexpr Eigen::Index kRows = 256;  // bounds the kernel's working copy
        for (Eigen::Index i0 = 0; i0 < X.rows(); i0 += kRows)
            kernels::context(X.data() + i0 * X.cols(), X.cols(), int(std::min(kRows, X.rows() - i0)), packed,
                             out->data() + i0 * out->cols(), out->cols());
    } else {
        out->noalias() = X * W;
    }
}

void projectTransposedInto(const Matrix& X, const Matrix& Wt, Matrix* out)
{
    if (!kernels::available()) {
        out->noalias() = X * Wt.transpose();
        return;
    }
    kernels::PackedValues packed;
    kernels::packValuesTransposed(Wt.data(), int(Wt.cols()), int(Wt.rows()), &packed);
    out->resize(X.rows(), Wt.rows());
    constexpr Eigen::Index kRows = 256;  // bounds the kernel's working copy
    for (Eigen::Index i0 = 0; i0 < X.rows(); i0 += kRows)
        kernels::context(X.data() + i0 * X.cols(), X.cols(), int(std::min(kRows, X.rows() - i0)), packed,
                         out->data() + i0 * out->cols(), out->cols());
}

Status computeAttentionInto(const Matrix& X, const Matrix& Wq, const Matrix& Wk, const Matrix& Wv,
                            const AttentionOptions& options, AttentionResult* r,
                            const WeightRowVisitor& visit, int threads, const std::atomic<bool>* cancel)
{
    if (Status s = validateInputs(X, Wq, Wk, Wv); !s)
        return s;
    if (Status s = validateAttentionMask(options.effectiveMask()); !s)
        return s;
    const Expected<double> divisor = scaleDivisor(options, int(Wq.cols()));
    if (!divisor)
        return divisor.error();
    projectInto(X, Wq, &r->Q);  // (n, d_k)
    projectInto(X, Wk, &r->K);  // (n, d_k)
    projectInto(X, Wv, &r->V);  // (n, d_v)
    return attend(options, *divisor, r, visit, threads, cancel);
}

Status computeAttentionFromProjections(const AttentionOptions& options, AttentionResult* r,
                                       const WeightRowVisitor& visit, int threads,
                                       const std::atomic<bool>* cancel)
{
    const Eigen::Index n = r->Q.rows();
    if (n < 1 || n > kMaxTokens)
        return Error{"Q has " + std::to_string(n) + " rows (tokens); between 1 and "
                     + std::to_string(kMaxTokens) + " are allowed."};
    if (r->K.rows() != n || r->V.rows() != n || r->K.cols() != r->Q.cols() || r->Q.cols() < 1
        || r->V.cols() < 1)
        return Error{"Q " + shapeText(r->Q) + ", K " + shapeText(r->K) + " and V " + shapeText(r->V)
                     + " must have one row per token, and Q and K the same d_k."};
    for (const auto& [name, m] :
         {std::pair<const char*, const Matrix*>{"Q", &r->Q}, {"K", &r->K}, {"V", &r->V}})
        if (!m->allFinite())
            return Error{std::string(name) + " has an entry that is not finite."};
    if (Status s = validateAttentionMask(options.effectiveMask()); !s)
        return s;
    const Expected<double> divisor = scaleDivisor(options, int(r->Q.cols()));
    if (!divisor)
        return divisor.error();
    return attend(options, *divisor, r, visit, threads, cancel);
}

double AttentionResult::scaled(int query, int key) const
{
    if (isMasked(query, key))
        return -std::numeric_limits<double>::infinity();
    return scores(query, key) / divisor;
}

double AttentionResult::weights(int query, int key) const
{
    if (isMasked(query, key))
        return 0.0;
    // The entry at its position among the attended keys, as the engine
    // softmaxed them packed.
    const VisibleKeys vis = visible(query);
    return scaledSoftmaxEntry(scores(query, key) / divisor, rowScale[std::size_t(query)], vis.position(key),
                              vis.count(), softmaxKernel);
}

void AttentionResult::scaledRow(int query, double* out) const
{
    const int n = tokens();
    const VisibleKeys vis = visible(query);
    const double* row = scores.data() + std::size_t(query) * n;
    const double hidden = -std::numeric_limits<double>::infinity();
    std::fill(out, out + n, hidden);
    for (int j = 0; j < vis.head; ++j)
        out[j] = row[j] / divisor;
    for (int j = vis.from; j < vis.to; ++j)
        out[j] = row[j] / divisor;
}

SoftmaxRowScale softmaxAttendedRow(const double* scoreRow, int n, const VisibleKeys& vis, double divisor,
                                   SoftmaxKernel kernel, double* out)
{
    const int kept = vis.count();
    std::vector<double> scaled(static_cast<std::size_t>(kept));
    std::fill(out, out + n, 0.0);
    if (vis.head == 0)
        return scaledSoftmaxRow(scoreRow + vis.from, divisor, scaled.data(), out + vis.from, kept, kernel);
    std::vector<double> packed(static_cast<std::size_t>(kept)), weights(packed.size());
    std::copy(scoreRow, scoreRow + vis.head, packed.begin());
    std::copy(scoreRow + vis.from, scoreRow + vis.to, packed.begin() + vis.head);
    const SoftmaxRowScale scale =
        scaledSoftmaxRow(packed.data(), divisor, scaled.data(), weights.data(), kept, kernel);
    std::copy(weights.begin(), weights.begin() + vis.head, out);
    std::copy(weights.begin() + vis.head, weights.end(), out + vis.from);
    return scale;
}

void AttentionResult::weightsRow(int query, double* out) const
{
    // The row computed again the way the engine did: the same numbers.
    const int n = tokens();
    softmaxAttendedRow(scores.data() + std::size_t(query) * n, n, visible(query), divisor, softmaxKernel,
                       out);
}

Matrix AttentionResult::scaledMatrix() const
{
    const int n = tokens();
    Matrix m(n, n);
    for (int i = 0; i < n; ++i)
        scaledRow(i, m.data() + std::size_t(i) * n);
    return m;
}

Matrix AttentionResult::weightsMatrix() const
{
    const int n = tokens();
    Matrix m(n, n);
    for (int i = 0; i < n; ++i)
        weightsRow(i, m.data() + std::size_t(i) * n);
    return m;
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
