// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The numbers a map shows, read on demand: the model's results hand them to
// the renderer and the views without an n x n copy.

#include "matrix.h"

#include <memory>
#include <vector>

namespace attnlab {

// The numbers a map shows: a grid read on demand, so that a map of an n x n
// attention result needs no copy of it (and a derived map, such as the
// weights, no stored matrix at all).
class CellSource {
public:
    virtual ~CellSource() = default;
    virtual int rows() const = 0;
    virtual int cols() const = 0;
    virtual double value(int row, int col) const = 0;
    // Row `row` into out (cols() values); by default cell by cell.
    virtual void rowValues(int row, double* out) const;
    // The cells (rowAt[y], colAt[x]) into out, row-major (rowAt.size() x
    // colAt.size()): what a map's picture shows; by default cell by cell.
    virtual void sample(const std::vector<int>& rowAt, const std::vector<int>& colAt, double* out) const;
    // The largest finite value of row `row` (-inf when it has none), for a
    // map coloured row by row; by default read off rowValues.
    virtual double rowMax(int row) const;
};

// The cell at the centre of each of `pixels` pixels along `cells` cells:
// what a map's picture samples when it has more cells than pixels.
std::vector<int> cellsAtPixels(int cells, int pixels);

// A copy of `values`, or a matrix kept alive by its owner (no copy).
std::shared_ptr<const CellSource> matrixCells(attn::Matrix values);
std::shared_ptr<const CellSource> sharedMatrixCells(std::shared_ptr<const attn::Matrix> values);

}  // namespace attnlab
