#pragma once
// Maps of an attention result read straight from the session's shared result:
// the raw scores as stored, the scaled scores and the weights as the result
// derives them (bit for bit the engine's numbers). No n x n copy is made.

#include "attention.h"
#include "heatmapview.h"

#include <algorithm>
#include <memory>

namespace attnlab {

enum class ResultMap { Scores, Scaled, Weights };

class ResultCells : public CellSource {
public:
    ResultCells(std::shared_ptr<const attn::AttentionResult> result, ResultMap map)
        : result_(std::move(result)), map_(map)
    {
    }
    int rows() const override { return result_->tokens(); }
    int cols() const override { return result_->tokens(); }
    double value(int row, int col) const override
    {
        switch (map_) {
        case ResultMap::Scores: return result_->scores(row, col);
        case ResultMap::Scaled: return result_->scaled(row, col);
        case ResultMap::Weights: return result_->weights(row, col);
        }
        return 0.0;
    }
    void rowValues(int row, double* out) const override
    {
        switch (map_) {
        case ResultMap::Scores:
            std::copy_n(result_->scores.data() + std::size_t(row) * cols(), cols(), out);
            return;
        case ResultMap::Scaled: result_->scaledRow(row, out); return;
        case ResultMap::Weights: result_->weightsRow(row, out); return;
        }
    }

private:
    std::shared_ptr<const attn::AttentionResult> result_;
    ResultMap map_;
};

inline std::shared_ptr<const CellSource> resultCells(std::shared_ptr<const attn::AttentionResult> result,
                                                     ResultMap map)
{
    return std::make_shared<ResultCells>(std::move(result), map);
}

}  // namespace attnlab
