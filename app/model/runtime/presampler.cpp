// SPDX-License-Identifier: GPL-3.0-or-later
#include "presampler.h"

#include "cellsource.h"

#include <algorithm>

namespace attnlab {

Presampler::Presampler(int n, const QList<QSize>& sizes)
{
    for (const QSize& size : sizes) {
        if (size.isEmpty() || (size.width() >= n && size.height() >= n))
            continue;
        if (!cache_)
            cache_ = std::make_shared<ResultSampleCache>();
        if (cache_->grids.size() >= ResultSampleCache::kMaxGrids)
            break;
        SampleGrid& g = cache_->grids.emplace_back();
        g.rowAt = cellsAtPixels(n, size.height());
        g.colAt = cellsAtPixels(n, size.width());
        const std::size_t cells = std::size_t(size.width()) * std::size_t(size.height());
        g.scores.resize(cells);
        g.weights.resize(cells);
        std::vector<int>& first = firstY_.emplace_back(std::size_t(n) + 1, size.height());
        for (int y = size.height() - 1; y >= 0; --y)
            first[std::size_t(g.rowAt[std::size_t(y)])] = y;
        for (int i = n - 1; i >= 0; --i)
            first[std::size_t(i)] = std::min(first[std::size_t(i)], first[std::size_t(i) + 1]);
    }
}

void Presampler::visit(int i, const attn::WeightRow& row) const
{
    for (std::size_t k = 0; k < cache_->grids.size(); ++k) {
        SampleGrid& g = cache_->grids[k];
        const std::size_t w = g.colAt.size();
        for (int y = firstY_[k][std::size_t(i)]; y < firstY_[k][std::size_t(i) + 1]; ++y) {
            double* scores = g.scores.data() + std::size_t(y) * w;
            double* weights = g.weights.data() + std::size_t(y) * w;
            for (std::size_t x = 0; x < w; ++x) {
                const int j = g.colAt[x];
                scores[x] = row.scores[j];
                weights[x] = row.weights[j];  // 0 where masked
            }
        }
    }
}

}  // namespace attnlab
