// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a heatmap draws from its cells, read from a CellSource: the range of
// its values, the decimals they need, and the cells coloured at pixel
// centres. HeatmapRenderer keeps these until its cells or its scale change.

#include "cellsource.h"
#include "heatmapcolorscale.h"

#include <QImage>
#include <QRect>

#include <functional>
#include <limits>

namespace attnlab {

// -inf is a masked cell (hatched, not coloured).
inline bool isMaskedCell(double v)
{
    return v == -std::numeric_limits<double>::infinity();
}

// The smallest and largest finite, unmasked value (infinities when there is
// none), and whether a NaN is among them.
struct CellExtremes {
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    bool anyNaN = false;
};
CellExtremes cellExtremes(const CellSource& cells);

// Two significant digits of the largest magnitude of `e`, at most `decimals`
// (all of them when every value is 0): 145 and 29.6 need none after the
// point, 1.0 one, 0.5 two.
int fewestDecimals(const CellExtremes& e, int decimals);

// The cells of `block` (in cells) at the centres of width x height pixels,
// read in one go (a source may share the reading among the maps of one
// result), coloured with `scale`; NaN and masked cells colormap::kMasked.
// `rowMax` gives a row's largest value when the scale is per row. The rows
// are coloured on two threads: a 512 x 512 map is a quarter of a million
// colours, about 4 ms on one core.
QImage colouredCells(const CellSource& cells, const QRect& block, int width, int height,
                     const HeatmapColorScale& scale, const std::function<double(int row)>& rowMax);

}  // namespace attnlab
