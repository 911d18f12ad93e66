// SPDX-License-Identifier: GPL-3.0-or-later
#include "flash_tiles.h"

#include "kernels.h"

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

// Whether query i sees every key from first to last: its visible keys are
// one range (none, causal, sliding) or the sink's and the window's.
bool seesWholeTile(const AttentionMask& mask, int i, int first, int last)
{
    if (mask.hides(i, first) || mask.hides(i, last))
        return false;
    if (mask.kind != AttentionMask::Kind::SinkWindow)
        return true;
    // The hidden gap between the sink and the window: sink .. i - window.
    return std::max(first, mask.sink) > std::min(last, i - mask.window);
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

FlashMemory flashMemoryBytes(int tokens, int dK, int dV, int blockRows, int blockCols)
{
    const long long n = tokens;
    FlashMemory bytes;
    bytes.inputsAndContext = 8 * n * (2LL * dK + 2LL * dV);
    bytes.oneTile =
        8 * (static_cast<long long>(blockRows) * blockCols + static_cast<long long>(blockRows) * (dV + 3));
    bytes.scoreMatrix = 8 * n * n;
    return bytes;
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
    // With the AVX2 kernels (kernels.h) each key block's K and V are packed
    // once (n x d in all, as the direct pass packs them) and a tile's
    // products are the kernels'; otherwise Eigen's.
    const bool fused = kernels::available();
    const int keyBlocks = (n + blockCols - 1) / blockCols;
    std::vector<kernels::PackedKeys> packedKeys(fused ? std::size_t(keyBlocks) : 0);
    std::vector<kernels::PackedValues> packedValues(fused ? std::size_t(keyBlocks) : 0);
    for (std::size_t J = 0; J < packedKeys.size(); ++J) {
        const int k0 = int(J) * blockCols;
        const int cols = std::min(blockCols, n - k0);
        kernels::packKeys(K.data() + std::ptrdiff_t(k0) * K.cols(), cols, int(K.cols()), &packedKeys[J]);
        kernels::packValues(V.data() + std::ptrdiff_t(k0) * dv, cols, int(dv), &packedValues[J]);
    }
    Matrix added;  // (rows, d_v): the tile's P V with the kernels
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
                if (fused) {
                    scores.resize(rows, cols);
                    kernels::scores(Q.data() + std::ptrdiff_t(q0) * Q.cols(), rows,
                                    packedKeys[std::size_t(k0 / blockCols)], scores.data(), cols);
                } else {
                    scores.noalias() = Q.middleRows(q0, rows) * K.middleRows(k0, cols).transpose();
                }
                for (int a = 0; a < rows; ++a) {
                    const int i = q0 + a;
                    auto row = scores.row(a).array();
                    // Divides, as the direct pass does (not a reciprocal).
                    row /= divisor;
                    // The row sees the whole tile (the common case), or the
                    // hidden entries become -inf.
                    const bool whole = seesWholeTile(mask, i, k0, k0 + cols - 1);
                    if (!whole)
                        for (int b = 0; b < cols; ++b)
                            if (mask.hides(i, k0 + b))
                                row(b) = -inf;
                    const double tileMax = row.maxCoeff();
                    const double mOld = step.m(a);
                    const double mNew = std::max(mOld, tileMax);
                    if (mNew == -inf) {  // no key seen yet, none here: the row keeps its state
                        row.setZero();
                        continue;
                    }
                    const double rescale = mNew == mOld ? 1.0 : std::exp(mOld - mNew);
                    row = (row - mNew).exp();
                    if (!whole)
                        for (int b = 0; b < cols; ++b)
                            if (mask.hides(i, k0 + b))
                                row(b) = 0.0;
                    step.rescale(a) = rescale;
                    step.l(a) = rescale * step.l(a) + row.sum();
                    step.m(a) = mNew;
                    if (rescale != 1.0)
                        step.O.row(a) *= rescale;
                }
                if (fused) {
                    added.resize(rows, dv);
                    kernels::context(scores.data(), cols, rows, packedValues[std::size_t(k0 / blockCols)],
                                     added.data(), dv);
                    step.O += added;
                } else {
                    step.O.noalias() += scores * V.middleRows(k0, cols);
                }
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
