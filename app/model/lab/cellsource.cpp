// SPDX-License-Identifier: GPL-3.0-or-later
#include "cellsource.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace attnlab {

void CellSource::rowValues(int row, double* out) const
{
    for (int c = 0; c < cols(); ++c)
        out[c] = value(row, c);
}

double CellSource::rowMax(int row) const
{
    std::vector<double> values(static_cast<std::size_t>(cols()));
    rowValues(row, values.data());
    double largest = -std::numeric_limits<double>::infinity();
    for (const double v : values)
        if (std::isfinite(v))
            largest = std::max(largest, v);
    return largest;
}

void CellSource::sample(const std::vector<int>& rowAt, const std::vector<int>& colAt, double* out) const
{
    for (const int r : rowAt)
        for (const int c : colAt)
            *out++ = value(r, c);
}

namespace {

class MatrixCells : public CellSource {
public:
    explicit MatrixCells(std::shared_ptr<const attn::Matrix> m) : m_(std::move(m)) {}
    int rows() const override { return int(m_->rows()); }
    int cols() const override { return int(m_->cols()); }
    double value(int row, int col) const override { return (*m_)(row, col); }
    void rowValues(int row, double* out) const override
    {
        std::copy_n(m_->data() + std::size_t(row) * m_->cols(), m_->cols(), out);
    }

private:
    std::shared_ptr<const attn::Matrix> m_;
};

}  // namespace

std::shared_ptr<const CellSource> matrixCells(attn::Matrix values)
{
    return std::make_shared<MatrixCells>(std::make_shared<const attn::Matrix>(std::move(values)));
}

std::shared_ptr<const CellSource> sharedMatrixCells(std::shared_ptr<const attn::Matrix> values)
{
    return std::make_shared<MatrixCells>(std::move(values));
}

std::vector<int> cellsAtPixels(int cells, int pixels)
{
    std::vector<int> at(static_cast<std::size_t>(std::max(pixels, 0)));
    for (int p = 0; p < pixels; ++p)
        at[std::size_t(p)] = static_cast<int>((2LL * p + 1) * cells / (2LL * pixels));
    return at;
}

}  // namespace attnlab
