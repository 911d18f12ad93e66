// SPDX-License-Identifier: GPL-3.0-or-later
#include "flash_tiles.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attn {
namespace {

std::string shapeText(const Matrix& m)
{
    return "(" + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) + ")";
}

Status validateFlashInputs(const Matrix& Q, const Matrix& K, const Matrix& V, double divisor)
{
    const Eigen::Index n = Q.rows();
    if (n < 1 || K.rows() != n || V.rows() != n || K.cols() != Q.cols() || Q.cols() < 1 || V.cols() < 1)
        return Error{"Q " + shapeText(Q) + ", K " + shapeText(K) + " and V " + shapeText(V)
                     + " must have one row per token (at least one), and Q and K the same d_k."};
    if (!Q.allFinite() || !K.allFinite() || !V.allFinite())
        return Error{"Q, K and V must hold finite numbers only."};
    if (!std::isfinite(divisor) || !(divisor > 0))
        return Error{"The scale divisor must be a finite number above 0; got " + std::to_string(divisor)
                     + "."};
    return okStatus();
}

}  // namespace

Status validateFlashBlocks(long long blockRows, long long blockCols, int tokens)
{
    for (const auto& [value, what] :
         {std::pair{blockRows, "query block B_r"}, {blockCols, "key block B_c"}}) {
        if (value < 1 || value > tokens)
            return Error{std::string("The ") + what + " must be from 1 to " + std::to_string(tokens)
                         + " (the tokens); got " + std::to_string(value) + "."};
    }
    return okStatus();
}

long long flashStepCount(int tokens, int blockRows, int blockCols)
{
    if (tokens < 1 || blockRows < 1 || blockCols < 1)
        return 0;
    return ((long long)tokens + blockRows - 1) / blockRows
           * (((long long)tokens + blockCols - 1) / blockCols);
}

Expected<Matrix> flashAttention(const Matrix& Q, const Matrix& K, const Matrix& V, double divisor,
                                const AttentionMask& mask, int blockRows, int blockCols,
                                const FlashStepVisitor& visit)
{
    if (Status s = validateFlashInputs(Q, K, V, divisor); !s)
        return s.error();
    const int n = int(Q.rows());
    if (Status s = validateFlashBlocks(blockRows, blockCols, n); !s)
        return s.error();
    if (Status s = validateAttentionMask(mask); !s)
        return s.error();
    const double inf = std::numeric_limits<double>::infinity();
    const Eigen::Index dv = V.cols();
    Matrix context(n, dv);
    FlashStep step;
    Matrix scores;  // (rows, cols) of the tile: raw, then the exponentials
    for (int q0 = 0; q0 < n; q0 += blockRows) {
        const int rows = std::min(blockRows, n - q0);
        step.queryFirst = q0;
        step.queryLast = q0 + rows - 1;
        step.m.setConstant(rows, -inf);
        step.l.setZero(rows);
        step.O.setZero(rows, dv);
        for (int k0 = 0; k0 < n; k0 += blockCols) {
            const int cols = std::min(blockCols, n - k0);
            step.keyFirst = k0;
            step.keyLast = k0 + cols - 1;
            step.skipped = mask.hidesTile(step.queryFirst, step.queryLast, step.keyFirst, step.keyLast);
            step.rescale.setOnes(rows);
            if (!step.skipped) {
                scores.noalias() = Q.middleRows(q0, rows) * K.middleRows(k0, cols).transpose();
                for (int a = 0; a < rows; ++a) {
                    const int i = q0 + a;
                    // Divides, as the direct pass does (not a reciprocal).
                    double tileMax = -inf;
                    for (int b = 0; b < cols; ++b) {
                        if (mask.hides(i, k0 + b)) {
                            scores(a, b) = -inf;
                            continue;
                        }
                        scores(a, b) /= divisor;
                        tileMax = std::max(tileMax, scores(a, b));
                    }
                    const double mOld = step.m(a);
                    const double mNew = std::max(mOld, tileMax);
                    if (mNew == -inf) {  // no key seen yet, none here: the row keeps its state
                        scores.row(a).setZero();
                        continue;
                    }
                    const double rescale = mNew == mOld ? 1.0 : std::exp(mOld - mNew);
                    double sum = 0.0;
                    for (int b = 0; b < cols; ++b) {
                        const double p = scores(a, b) == -inf ? 0.0 : std::exp(scores(a, b) - mNew);
                        scores(a, b) = p;
                        sum += p;
                    }
                    step.rescale(a) = rescale;
                    step.l(a) = rescale * step.l(a) + sum;
                    step.m(a) = mNew;
                    if (rescale != 1.0)
                        step.O.row(a) *= rescale;
                }
                step.O.noalias() += scores * V.middleRows(k0, cols);
            }
            if (visit)
                visit(step);
            ++step.index;
        }
        for (int a = 0; a < rows; ++a)
            context.row(q0 + a) = step.O.row(a) / step.l(a);
    }
    return context;
}

Expected<FlashRun> flashAttentionSteps(const Matrix& Q, const Matrix& K, const Matrix& V, double divisor,
                                       const AttentionMask& mask, int blockRows, int blockCols)
{
    FlashRun run;
    if (Q.rows() >= 1 && blockRows >= 1 && blockCols >= 1 && blockRows <= Q.rows() && blockCols <= Q.rows())
        run.steps.reserve(std::size_t(flashStepCount(int(Q.rows()), blockRows, blockCols)));
    Expected<Matrix> context = flashAttention(Q, K, V, divisor, mask, blockRows, blockCols,
                                              [&run](const FlashStep& step) { run.steps.push_back(step); });
    if (!context)
        return context.error();
    run.context = std::move(context).value();
    return run;
}

double maxAbsDifference(const Matrix& a, const Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numeric_limits<double>::infinity();
    double largest = 0.0;
    for (Eigen::Index i = 0; i < a.size(); ++i) {
        const double d = std::abs(a.data()[i] - b.data()[i]);
        if (!(d <= largest))  // NaN too
            largest = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
    }
    return largest;
}

}  // namespace attn
