// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmapcells.h"

#include "colormap.h"
#include "twohalves.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab {

CellExtremes cellExtremes(const CellSource& cells)
{
    CellExtremes e;
    const int rows = cells.rows();
    const int cols = cells.cols();
    if (rows == 0 || cols == 0)
        return e;
    std::vector<double> row(static_cast<std::size_t>(cols));
    for (int r = 0; r < rows; ++r) {
        cells.rowValues(r, row.data());
        for (const double v : row) {
            if (std::isnan(v)) {
                e.anyNaN = true;
            } else if (!isMaskedCell(v)) {
                e.low = std::min(e.low, v);
                e.high = std::max(e.high, v);
            }
        }
    }
    return e;
}

int fewestDecimals(const CellExtremes& e, int decimals)
{
    double largest = 0.0;
    for (const double v : {e.low, e.high})
        if (std::isfinite(v))
            largest = std::max(largest, std::abs(v));
    if (largest == 0.0)
        return decimals;
    return std::clamp(1 - static_cast<int>(std::floor(std::log10(largest))), 0, decimals);
}

QImage colouredCells(const CellSource& cells, const QRect& block, int width, int height,
                     const HeatmapColorScale& scale, const std::function<double(int row)>& rowMax)
{
    QImage image(width, height, QImage::Format_RGB32);
    std::vector<int> columnAt = cellsAtPixels(block.width(), width);
    std::vector<int> rowAt = cellsAtPixels(block.height(), height);
    for (int& c : columnAt)
        c += block.left();
    for (int& r : rowAt)
        r += block.top();
    std::vector<double> values(std::size_t(width) * std::size_t(height));
    cells.sample(rowAt, columnAt, values.data());
    // Each row's largest value taken here (rowMax may fill a cache), so
    // that the rows can be coloured on two threads.
    std::vector<double> maxima(std::size_t(height), 0.0);
    if (scale.drawnScale() == MapScale::PerRow)
        for (int y = 0; y < height; ++y)
            maxima[std::size_t(y)] = rowMax(rowAt[std::size_t(y)]);
    uchar* bits = image.bits();
    const qsizetype stride = image.bytesPerLine();
    inTwoHalves(std::size_t(height), std::size_t(width), [&](std::size_t first, std::size_t last) {
        const double* v = values.data() + first * std::size_t(width);
        for (std::size_t y = first; y < last; ++y) {
            auto* line = reinterpret_cast<QRgb*>(bits + qsizetype(y) * stride);
            const double m = maxima[y];
            for (int x = 0; x < width; ++x, ++v)
                line[x] = std::isnan(*v) || isMaskedCell(*v) ? colormap::kMasked : scale.rgb(*v, m);
        }
    });
    return image;
}

}  // namespace attnlab
