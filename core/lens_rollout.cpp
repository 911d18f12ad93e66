// SPDX-License-Identifier: GPL-3.0-or-later
#include "lens_rollout.h"

#include <algorithm>

namespace attn {

Expected<LogitLens> logitLens(const DecoderModel& model, const DecoderResult& result, int k,
                              double temperature, int threads, const std::atomic<bool>* cancel)
{
    const int n = result.tokens();
    const int layers = int(result.layers.size());
    if (k < 1)
        return Error{"The logit lens keeps at least 1 token a position."};
    for (const DecoderLayer& layer : result.layers)
        if (layer.hidden.rows() != n)
            return Error{"The pass did not keep the residual stream the logit lens reads."};
    LogitLens lens;
    lens.layers = layers;
    lens.positions = n;
    lens.tops.reserve(std::size_t(layers) * std::size_t(n));
    constexpr int kRows = 64;
    for (int l = 0; l < layers; ++l) {
        const Matrix& hidden = result.layers[std::size_t(l)].hidden;
        for (int begin = 0; begin < n; begin += kRows) {
            if (cancel && cancel->load(std::memory_order_relaxed))
                return cancelledError(kDecoderCancelled);
            const int rows = std::min(kRows, n - begin);
            const Expected<Matrix> logits = model.readOut(hidden.middleRows(begin, rows), threads);
            if (!logits)
                return logits.error();
            for (int r = 0; r < rows; ++r)
                lens.tops.push_back(topTokens(logits->row(r), k, temperature));
        }
    }
    return lens;
}

Expected<Matrix> attentionRollout(const DecoderModel& model, const DecoderResult& result)
{
    const DecoderConfig& c = model.config();
    const int n = result.tokens();
    if (int(result.layers.size()) != c.layers || n < 1)
        return Error{"The result is not one of this model's passes."};
    Matrix rollout;
    std::vector<double> row(static_cast<std::size_t>(n));
    for (int l = 0; l < c.layers; ++l) {
        Matrix mean = Matrix::Zero(n, n);
        const DecoderLayer& layer = result.layers[std::size_t(l)];
        for (int h = 0; h < c.heads; ++h) {
            Expected<AttentionResult> recomputed = Error{""};
            const AttentionResult* head = nullptr;
            if (int(layer.heads.size()) == c.heads) {
                head = &layer.heads[std::size_t(h)];
            } else {
                recomputed = model.head(result, l, h);
                if (!recomputed)
                    return recomputed.error();
                head = &recomputed.value();
            }
            if (head->tokens() != n)
                return Error{"The result is not one of this model's passes."};
            for (int i = 0; i < n; ++i) {
                head->weightsRow(i, row.data());
                for (int j = 0; j < n; ++j)
                    mean(i, j) += row[std::size_t(j)];
            }
        }
        Matrix b = 0.5 * (mean / double(c.heads));
        b.diagonal().array() += 0.5;
        for (int i = 0; i < n; ++i)
            b.row(i) /= b.row(i).sum();
        rollout = l == 0 ? b : Matrix(b * rollout);
    }
    return rollout;
}

}  // namespace attn
