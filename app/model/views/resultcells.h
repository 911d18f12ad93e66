// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Maps of an attention result read straight from the session's shared result:
// the raw scores as stored, the scaled scores and the weights as the result
// derives them (bit for bit the engine's numbers). No n x n copy is made.

#include "attention.h"
#include "cellsource.h"
#include "twohalves.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

namespace attnlab {

enum class ResultMap { Scores, Scaled, Weights };

// The scores at the cells a picture shows (rowAt x colAt), read once for
// the maps of one result (scattered reads over a 128 MiB map cost more than
// the colours), the scaled scores and weights derived from them; or the
// weights too, when the engine took them while it had each row
// (Session::presampled), and then no exponential is taken here.
struct SampleGrid {
    std::vector<int> rowAt;
    std::vector<int> colAt;
    std::vector<double> scores;
    std::vector<double> weights;  // empty unless taken by the engine
};

// The grids of one result's maps: the three pipeline maps share their rows
// but can differ by a few columns (their colour scales' labels differ in
// width), so there is one grid per picture size.
struct ResultSampleCache {
    std::vector<SampleGrid> grids;
    static constexpr std::size_t kMaxGrids = 4;

    const SampleGrid* find(const std::vector<int>& rowAt, const std::vector<int>& colAt) const
    {
        for (const SampleGrid& g : grids)
            if (g.rowAt == rowAt && g.colAt == colAt)
                return &g;
        return nullptr;
    }
};

class ResultCells : public CellSource {
public:
    ResultCells(std::shared_ptr<const attn::AttentionResult> result, ResultMap map,
                std::shared_ptr<ResultSampleCache> cache = {})
        : result_(std::move(result)), map_(map), cache_(std::move(cache))
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

    double rowMax(int row) const override
    {
        // A weight row's largest entry is exp(0) times the row's 1 / sum.
        if (map_ == ResultMap::Weights)
            return result_->rowScale[std::size_t(row)].invSum;
        return CellSource::rowMax(row);
    }

    void sample(const std::vector<int>& rowAt, const std::vector<int>& colAt, double* out) const override
    {
        const attn::AttentionResult& r = *result_;
        const std::size_t w = colAt.size();
        const SampleGrid* grid = cache_ ? cache_->find(rowAt, colAt) : nullptr;
        SampleGrid own;
        if (!grid) {
            SampleGrid* fresh = &own;
            if (cache_) {
                if (cache_->grids.size() >= ResultSampleCache::kMaxGrids)
                    cache_->grids.erase(cache_->grids.begin());
                fresh = &cache_->grids.emplace_back();
            }
            fresh->rowAt = rowAt;
            fresh->colAt = colAt;
            fresh->scores.resize(rowAt.size() * w);
            inTwoHalves(rowAt.size(), w, [&](std::size_t first, std::size_t last) {
                for (std::size_t y = first; y < last; ++y) {
                    const double* row = r.scores.data() + std::size_t(rowAt[y]) * r.scores.cols();
                    for (std::size_t x = 0; x < w; ++x)
                        fresh->scores[y * w + x] = row[colAt[x]];
                }
            });
            grid = fresh;
        }
        const double* scores = grid->scores.data();
        if (map_ == ResultMap::Weights && !grid->weights.empty()) {
            std::copy(grid->weights.begin(), grid->weights.end(), out);
            return;
        }
        // The weights' exponentials (or the scaled scores), two halves of
        // the rows at once.
        inTwoHalves(rowAt.size(), w, [&](std::size_t first, std::size_t last) {
            double* o = out + first * w;
            for (std::size_t y = first; y < last; ++y) {
                const int i = rowAt[y];
                const attn::VisibleKeys vis = r.visible(i);
                const int keys = vis.count();
                for (std::size_t x = 0; x < w; ++x) {
                    const int j = colAt[x];
                    const double s = scores[y * w + x];
                    const bool seen = j < vis.head || (j >= vis.from && j < vis.to);
                    double v = s;
                    if (map_ == ResultMap::Scaled)
                        v = seen ? s / r.divisor : -std::numeric_limits<double>::infinity();
                    else if (map_ == ResultMap::Weights)
                        v = seen ? attn::scaledSoftmaxEntry(s / r.divisor, r.rowScale[std::size_t(i)],
                                                            vis.position(j), keys, r.softmaxKernel)
                                 : 0.0;
                    *o++ = v;
                }
            }
        });
    }

private:
    std::shared_ptr<const attn::AttentionResult> result_;
    ResultMap map_;
    std::shared_ptr<ResultSampleCache> cache_;
};

inline std::shared_ptr<const CellSource> resultCells(std::shared_ptr<const attn::AttentionResult> result,
                                                     ResultMap map,
                                                     std::shared_ptr<ResultSampleCache> cache = {})
{
    return std::make_shared<ResultCells>(std::move(result), map, std::move(cache));
}

}  // namespace attnlab
