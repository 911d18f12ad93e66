// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmaplayout.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// Cell i of count spans [edge(i), edge(i + 1)) along an axis of length pixels.
int edge(int start, int length, int count, int i)
{
    return start + static_cast<int>(std::lround(double(i) * length / count));
}

// The index whose span holds coordinate x, or -1.
int indexAt(int start, int length, int count, int x)
{
    if (count <= 0 || x < start || x >= start + length)
        return -1;
    int i = std::clamp(static_cast<int>(double(x - start) * count / length), 0, count - 1);
    while (i > 0 && edge(start, length, count, i) > x)
        --i;
    while (i < count - 1 && edge(start, length, count, i + 1) <= x)
        ++i;
    return i;
}

// Whether cells of at least minW x minH pixels hold their numbers (the widest
// asked for only when they are tall and wide enough for text at all), with
// `pad` pixels on each side.
bool numbersFit(const HeatmapLayoutInput& in, int minW, int minH, int pad)
{
    const int line = in.cellLineHeight > 0 ? in.cellLineHeight : in.lineHeight;
    return minH >= line + 2 && minW >= line
           && minW >= (in.widestCellText ? in.widestCellText() : 0) + 2 * pad;
}

// Every n-th label, so that they never overlap: at least one and a half
// lines apart (the first and last are pulled inside the cells' extent,
// which may move them by half a line).
int labelStep(int lineH, double cell)
{
    return cell >= lineH ? 1 : static_cast<int>(std::ceil(1.5 * lineH / cell));
}

// l->title (the room it may take) narrowed to the title, centred over the
// cells when it fits there, else within the margins.
void centreTitle(const HeatmapLayoutInput& in, int margin, HeatmapLayout* l)
{
    const int titleW = std::min(in.titleWidth, l->title.width());
    const int x = std::clamp(l->cells.center().x() - titleW / 2, margin, l->size.width() - margin - titleW);
    l->title = QRect(x, margin, titleW, in.titleHeight);
}

HeatmapLayout computeCompact(const HeatmapLayoutInput& in);

}  // namespace

QRect HeatmapLayout::cellRect(int row, int col) const
{
    if (rows <= 0 || cols <= 0)
        return {};
    const int x0 = edge(cells.left(), cells.width(), cols, col);
    const int x1 = edge(cells.left(), cells.width(), cols, col + 1);
    const int y0 = edge(cells.top(), cells.height(), rows, row);
    const int y1 = edge(cells.top(), cells.height(), rows, row + 1);
    return QRect(x0, y0, x1 - x0, y1 - y0);
}

int HeatmapLayout::rowAt(int y) const
{
    return indexAt(cells.top(), cells.height(), rows, y);
}

int HeatmapLayout::columnAt(int x) const
{
    return indexAt(cells.left(), cells.width(), cols, x);
}

HeatmapLayout HeatmapLayout::compute(const HeatmapLayoutInput& in)
{
    if (in.compact)
        return computeCompact(in);
    HeatmapLayout l;
    const QSize size = in.size;
    l.size = size;
    l.rows = in.rows;
    l.cols = in.cols;
    const int rows = in.rows;
    const int cols = in.cols;
    const int lineH = in.lineHeight;
    const int pad = padding(lineH);
    const int margin = std::max(4, lineH / 2);

    int top = margin;
    if (in.hasTitle) {
        l.title = QRect(margin, margin, std::max(0, size.width() - 2 * margin), in.titleHeight);
        top += in.titleHeight + pad;
    }
    if (rows <= 0 || cols <= 0)
        return l;

    // Colour scale at the right: a gap wide enough that rotated column labels
    // (which extend half a line past their cell) stay clear of the bar, the
    // bar, tick marks and tick labels.
    int tickTextW = in.widestTickText;
    // The caption naming the colour scale takes a line under the cells, two
    // when it is wider than the map (it wraps rather than being cut), clear
    // of the focus row's outline below the cells.
    const int captionRoom = std::max(0, size.width() - 2 * margin);
    l.captionLines = !in.hasCaption ? 0 : (in.captionWidth > captionRoom ? 2 : 1);
    const int captionGap = std::max(pad, kFocusOutline + 1);
    const int captionH = l.captionLines > 0 ? l.captionLines * lineH + captionGap : 0;
    // A bar under two lines tall (a vector's strip) has no room for two
    // labels one above the other: it gets "low … high" on one line.
    const bool shortBar = size.height() - top - margin - captionH - lineH - pad < 2 * lineH + kFocusOutline;
    if (shortBar)
        tickTextW = std::max(tickTextW, in.endsTextWidth);
    const int barW = std::max(kMinDrawnCell, lineH * 3 / 4);
    const int tickLen = pad;
    const int scaleW = lineH + barW + tickLen + lineH / 2 + tickTextW;

    // Row labels at the left, elided to at most a quarter of the width.
    const int maxLabelW = in.emWidth * 12;
    l.rowLabelWidth = std::min({in.widestRowLabel, maxLabelW, size.width() / 4});
    // Labels keep clear of the focus row's outline, which lies outside the cells.
    l.labelGap = pad + kFocusOutline;
    const int rowLabelsW = l.rowLabelWidth > 0 ? l.rowLabelWidth + l.labelGap : 0;
    const int cellsMaxW = std::max(1, size.width() - 2 * margin - rowLabelsW - scaleW);
    const int widestCol = in.widestColumnLabel;

    // Column labels lie flat when every one fits above its cell, else they
    // are rotated and elided to at most a quarter of the height (or, where
    // that would elide them, lie flat over every few cells; below).
    double cellW = 0;
    double cellH = 0;
    int colLabelsH = 0;
    // The cells' size below column labels `labelsH` tall, within the aspect limit.
    const auto sizeCells = [&](int labelsH, double* w, double* h) {
        const int cellsMaxH = std::max(1, size.height() - top - labelsH - captionH - margin);
        *w = double(cellsMaxW) / cols;
        *h = double(cellsMaxH) / rows;
        *w = std::min(*w, *h * kMaxCellAspect);
        // Narrow cells (many columns) may be up to a line tall, so that a
        // vector of 1024 dimensions is not squashed to a hairline.
        *h = std::min(*h, std::max(*w * kMaxCellAspect, std::min(double(lineH), *h)));
    };
    for (const bool rotated : {false, true}) {
        l.rotatedColumns = rotated;
        l.columnLabelWidth = rotated ? std::min({widestCol, maxLabelW, size.height() / 4}) : widestCol;
        colLabelsH = widestCol == 0 ? 0 : (rotated ? l.columnLabelWidth : lineH) + l.labelGap;
        sizeCells(colLabelsH, &cellW, &cellH);
        if (!rotated && std::floor(cellW) >= widestCol + pad)
            break;
    }
    // Rotated labels elided to fit a short map ("1", "3", "…", "…") cannot be
    // read; flat ones over every step-th cell, each free to span `step`
    // cells, show whole labels, as long as at least two of them fit.
    int flatStep = 1;
    if (l.rotatedColumns && l.columnLabelWidth < widestCol) {
        const int flatH = lineH + l.labelGap;
        double w = 0, h = 0;
        sizeCells(flatH, &w, &h);
        // Half a line between neighbours, so that numbers do not run together.
        const int needed = w > 0 ? static_cast<int>(std::ceil((widestCol + lineH / 2.0) / w)) : cols;
        if (2 * needed <= cols) {
            l.rotatedColumns = false;
            l.columnLabelWidth = widestCol;
            colLabelsH = flatH;
            cellW = w;
            cellH = h;
            flatStep = needed;
        }
    }
    const int cellsW = std::max(1, static_cast<int>(std::floor(cellW * cols)));
    const int cellsH = std::max(1, static_cast<int>(std::floor(cellH * rows)));
    // Spare width (from the aspect limit) is split evenly left and right,
    // spare height goes below so that the title stays close to the cells.
    const int spareW = std::max(0, cellsMaxW - cellsW);
    const int cellsLeft = margin + rowLabelsW + spareW / 2;
    const int cellsTop = top + colLabelsH;
    l.cells = QRect(cellsLeft, cellsTop, cellsW, cellsH);
    l.rowLabels = QRect(cellsLeft - rowLabelsW, cellsTop, rowLabelsW, cellsH);
    l.columnLabels = QRect(cellsLeft, cellsTop - colLabelsH, cellsW, colLabelsH);
    l.scaleBar = QRect(l.cells.right() + 1 + lineH, cellsTop, barW, cellsH);
    l.caption = captionH > 0
                    ? QRect(margin, l.cells.bottom() + 1 + captionGap, captionRoom, l.captionLines * lineH)
                    : QRect();
    l.tickLength = tickLen;
    l.tickTextLeft = l.scaleBar.right() + 1 + tickLen + lineH / 2;
    if (in.hasTitle)
        centreTitle(in, margin, &l);

    const int minCellW = static_cast<int>(std::floor(cellW));
    const int minCellH = static_cast<int>(std::floor(cellH));
    // The numbers keep a padding of their own font's (smaller in
    // presentation mode).
    l.cellText =
        numbersFit(in, minCellW, minCellH, padding(in.cellLineHeight > 0 ? in.cellLineHeight : lineH));
    l.imageMode = std::min(minCellW, minCellH) < kMinDrawnCell;

    // Labels are thinned so that they never overlap.
    l.rowLabelStep = (l.rowLabelWidth > 0 && cellsH >= lineH) ? labelStep(lineH, cellH) : 0;
    l.columnLabelStep = 0;
    if (widestCol > 0 && cellsW >= lineH)
        l.columnLabelStep = l.rotatedColumns ? labelStep(lineH, cellW) : flatStep;

    l.scaleTicks = cellsH >= 6 * lineH ? 5 : (cellsH >= 3 * lineH ? 3 : 2);
    l.endsOnOneLine = cellsH < 2 * lineH;
    if (in.logScale)
        l.scaleTicks = std::max(2, static_cast<int>(cellsH / (1.5 * lineH)));  // decades
    if (in.emptyRange)
        l.scaleTicks = 1;
    return l;
}

namespace {

HeatmapLayout computeCompact(const HeatmapLayoutInput& in)
{
    HeatmapLayout l;
    l.compact = true;
    const QSize size = in.size;
    l.size = size;
    l.rows = in.rows;
    l.cols = in.cols;
    const int rows = in.rows;
    const int cols = in.cols;
    const int lineH = in.lineHeight;
    const int pad = HeatmapLayout::padding(lineH);
    // Room for the focus row's outline at the sides, and no more.
    const int outline = HeatmapLayout::kFocusOutline;
    const int margin = outline + 1;

    int top = margin;
    if (in.hasTitle) {
        l.title = QRect(margin, margin, std::max(0, size.width() - 2 * margin), in.titleHeight);
        top += in.titleHeight + pad;
    }
    if (rows <= 0 || cols <= 0)
        return l;

    l.labelGap = outline + 2;
    const int maxLabelW = in.emWidth * 12;
    l.rowLabelWidth = in.compactRowLabels ? std::min({in.widestRowLabel, maxLabelW, size.width() / 4}) : 0;
    const int rowLabelsW = l.rowLabelWidth > 0 ? l.rowLabelWidth + l.labelGap : 0;
    // Column labels read upwards whatever the cells' width, so that every
    // map of the row has the same height above its cells.
    const int widestCol = in.widestColumnLabel;
    l.rotatedColumns = widestCol > 0;
    l.columnLabelWidth = std::min({widestCol, maxLabelW, size.height() / 4});
    const int colLabelsH = widestCol > 0 ? l.columnLabelWidth + l.labelGap : 0;

    // Under the cells, clear of the focus row's outline: the bar, its tick
    // marks and numbers on one line, and two lines for the caption.
    const int captionGap = std::max(pad, outline + 1);
    const int barH = std::max(6, lineH / 2);
    const int tickLen = pad;
    const int below = captionGap + barH + tickLen + lineH + pad + 2 * lineH;

    const int cellsMaxW = std::max(1, size.width() - 2 * margin - rowLabelsW);
    const int cellsMaxH = std::max(1, size.height() - top - colLabelsH - below - margin);
    // The rows' height depends on the height alone (the maps of a row
    // line up); the cells are at most kMaxCellAspect times wider than tall.
    const double cellH = double(cellsMaxH) / rows;
    const double cellW = std::min(double(cellsMaxW) / cols, cellH * HeatmapLayout::kMaxCellAspect);
    const int cellsW = std::max(1, static_cast<int>(std::floor(cellW * cols)));
    const int cellsH = std::max(1, static_cast<int>(std::floor(cellH * rows)));
    const int cellsLeft = margin + rowLabelsW + std::max(0, cellsMaxW - cellsW) / 2;
    const int cellsTop = top + colLabelsH;
    l.cells = QRect(cellsLeft, cellsTop, cellsW, cellsH);
    l.rowLabels = QRect(cellsLeft - rowLabelsW, cellsTop, rowLabelsW, cellsH);
    l.columnLabels = QRect(cellsLeft, cellsTop - colLabelsH, cellsW, colLabelsH);
    l.scaleBar = QRect(cellsLeft, l.cells.bottom() + 1 + captionGap, cellsW, barH);
    l.tickLength = tickLen;
    l.tickTextLeft = l.scaleBar.bottom() + 1 + tickLen;
    const int captionRoom = std::max(0, size.width() - 2 * margin);
    l.captionLines = !in.hasCaption ? 0 : (in.captionWidth > captionRoom ? 2 : 1);
    if (l.captionLines > 0)
        l.caption = QRect(margin, l.tickTextLeft + lineH + pad, captionRoom, l.captionLines * lineH);
    if (in.hasTitle)
        centreTitle(in, margin, &l);

    const int minCellW = static_cast<int>(std::floor(cellW));
    const int minCellH = static_cast<int>(std::floor(cellH));
    // Two pixels either side of a number: the cells' colours keep
    // neighbours apart.
    l.cellText = numbersFit(in, minCellW, minCellH, 2);
    l.imageMode = std::min(minCellW, minCellH) < HeatmapLayout::kMinDrawnCell;
    // The row labels stand for the whole row of maps: every one while the
    // rows are four fifths of a line (a line's height includes room above
    // the capitals and below the descenders that neighbours may share).
    l.rowLabelStep = 0;
    if (l.rowLabelWidth > 0 && cellsH >= lineH)
        l.rowLabelStep = cellH >= 0.8 * lineH ? 1 : labelStep(lineH, cellH);
    l.columnLabelStep = widestCol > 0 && cellsW >= lineH ? labelStep(lineH, cellW) : 0;

    // The bar's numbers side by side, half a line apart; the two ends may
    // reach half a number past the bar.
    const int tickW = in.widestTickText + lineH / 2;
    const auto fits = [&](int n) { return n * tickW <= cellsW + in.widestTickText; };
    l.scaleTicks = fits(5) ? 5 : (fits(3) ? 3 : 2);
    l.endsOnOneLine = !fits(2);
    if (in.logScale)
        l.scaleTicks = std::max(2, (cellsW + in.widestTickText) / std::max(1, tickW));  // decades
    if (in.emptyRange)
        l.scaleTicks = 1;
    return l;
}

}  // namespace

}  // namespace attnlab
