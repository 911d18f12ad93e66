// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a heatmap's parts go for one size: title, column labels, row labels,
// cells, colour bar with its ticks, and the caption naming the colour scale.
// Pure geometry on plain numbers (text widths measured by the caller), so
// that it is computed the same way for the screen and for exported pictures
// and can be tested without a widget. Logical pixels throughout.

#include <QRect>
#include <QSize>

#include <algorithm>
#include <functional>

namespace attnlab {

// The compact layout (HeatmapLayoutInput::compact) of a map in a row of
// maps: off, or on with or without the row labels (which the first map of
// the row then gives for all).
enum class CompactLayout { Off, WithRowLabels, WithoutRowLabels };

// What the layout needs to know, all measured beforehand.
struct HeatmapLayoutInput {
    QSize size;
    int rows = 0;  // rows and columns shown (the zoomed block, or every cell)
    int cols = 0;
    int lineHeight = 0;  // height of a line of the font
    int emWidth = 0;     // width of "M", the unit of the labels' limits
    // The title (empty: none): its width and line height in the bold font.
    bool hasTitle = false;
    int titleWidth = 0;
    int titleHeight = 0;
    // The caption under the cells (empty: none) and its width in the font.
    bool hasCaption = false;
    int captionWidth = 0;
    int widestRowLabel = 0;     // in the bold font (the focus row's label is bold)
    int widestColumnLabel = 0;  // in the plain font
    int widestTickText = 0;     // the colour bar's numbers, every tick
    int endsTextWidth = 0;      // "low … high", 0 when the scale has under two ticks
    bool logScale = false;      // a log scale has one tick per decade that fits
    bool emptyRange = false;    // high == low: one tick
    // The line height of the font the cells' numbers are drawn in, when
    // that is smaller than the labels' (presentation mode); 0: lineHeight.
    int cellLineHeight = 0;
    // Laid out to give the cells the width (a row of maps too narrow for
    // their numbers, see HeatmapCompact): the colour bar under the cells,
    // the column labels read upwards, the row labels only when
    // `compactRowLabels`, and two lines kept for the caption whether or not
    // there is one, so that maps of one height with the same labels put
    // their rows at the same heights.
    bool compact = false;
    bool compactRowLabels = true;
    // Width of the widest value printed in a cell; called only when the
    // cells are tall enough for text at all (it is a pass over every value).
    std::function<int()> widestCellText;
};

struct HeatmapLayout {
    // Cells narrower than this are drawn as one scaled image (a hatch or text
    // would not show anyway).
    static constexpr int kMinDrawnCell = 8;
    // Width of the focus row's outline (line and halo) outside the cells.
    static constexpr int kFocusOutline = 4;
    // Cells may be at most this many times wider than tall (and vice versa).
    static constexpr double kMaxCellAspect = 2.0;

    static HeatmapLayout compute(const HeatmapLayoutInput& in);
    // The space kept around text (a number on each side of its cell, a title), for a line height.
    static int padding(int lineHeight) { return std::max(2, lineHeight / 4); }

    QSize size;
    int rows = 0;
    int cols = 0;
    QRect title;
    QRect rowLabels;     // left of the cells, as tall as the cells
    QRect columnLabels;  // above the cells, as wide as the cells
    QRect cells;
    QRect scaleBar;  // right of the cells; under them when compact
    QRect caption;   // under the cells, one or two lines (captionLines)
    int captionLines = 0;
    int tickLength = 0;
    int tickTextLeft = 0;      // x where the scale's numbers start (compact: y of their top)
    int labelGap = 0;          // between labels and cells
    int rowLabelWidth = 0;     // elide width of row labels
    int columnLabelWidth = 0;  // elide width of column labels (along the text)
    bool rotatedColumns = false;
    int rowLabelStep = 1;     // draw every n-th row label; 0 hides them
    int columnLabelStep = 1;  // likewise for columns
    bool cellText = false;    // values printed in the cells
    bool imageMode = false;   // cells drawn as one scaled image
    int scaleTicks = 5;
    bool endsOnOneLine = false;  // the bar is too short for stacked labels
    bool compact = false;        // laid out as HeatmapLayoutInput::compact says

    // Geometry of the shown cells, counted from the block's first row and
    // column: the rectangle of cell (row, col), and the row or column under
    // a coordinate (-1 outside the cells).
    QRect cellRect(int row, int col) const;
    int rowAt(int y) const;
    int columnAt(int x) const;
};

}  // namespace attnlab
