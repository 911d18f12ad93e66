// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The cells of an n-token result at the pictures the maps draw, for the
// engine's visitor to fill row by row: query row i is sampled at rows
// firstY[i] .. firstY[i + 1] - 1 of a picture (its rows map to
// non-decreasing query rows). No grid where the maps draw every cell.

#include "attention.h"
#include "resultcells.h"

#include <QList>
#include <QSize>

#include <memory>
#include <vector>

namespace attnlab {

class Presampler {
public:
    // `sizes`: the pictures' sizes in pixels (width x height cells).
    Presampler(int n, const QList<QSize>& sizes);

    // Null when no picture samples (each draws every cell).
    std::shared_ptr<ResultSampleCache> cache() const { return cache_; }
    // Called from the engine's threads, for distinct rows.
    void visit(int i, const attn::WeightRow& row) const;

private:
    std::shared_ptr<ResultSampleCache> cache_;
    std::vector<std::vector<int>> firstY_;  // per grid
};

}  // namespace attnlab
