// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Draws a labelled heatmap with QPainter: title, cells (values printed in
// them when they fit, masked cells hatched, one scaled image above the
// legible size), row and column labels, the focus row's outline, the colour
// scale and its caption. Holds what is drawn (a CellSource, labels, colour
// map and scale, decimals, the shown block) and the caches that make a
// repaint cheap; the geometry comes from HeatmapLayout. Serves the screen
// (HeatmapView) and exported pictures alike, and needs no widget.

#include "cellsource.h"
#include "heatmapcells.h"
#include "heatmapcolorscale.h"
#include "heatmaplabelpainter.h"
#include "heatmaplayout.h"
#include "heatmapstyle.h"
#include "mapscale.h"
#include "matrix.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QImage>
#include <QRect>
#include <QString>
#include <QStringList>

#include <limits>
#include <memory>
#include <vector>

class QPainter;

namespace attnlab {

class NumberGlyphs;

class HeatmapRenderer {
    Q_DECLARE_TR_FUNCTIONS(HeatmapView)
public:
    HeatmapRenderer();
    ~HeatmapRenderer();
    HeatmapRenderer(const HeatmapRenderer&) = delete;
    HeatmapRenderer& operator=(const HeatmapRenderer&) = delete;

    void setFont(const QFont& font);
    const QFont& font() const { return font_; }
    // The cells' numbers may be drawn smaller than font(), down to
    // `pointSize`, before they go for want of width (presentation mode's
    // larger font: the numbers keep the normal size there). 0: no smaller.
    void setSmallestCellPointSize(double pointSize);
    // Laid out compactly, or not (HeatmapLayoutInput::compact).
    void setCompactLayout(CompactLayout compact);
    CompactLayout compactLayout() const { return compact_; }
    // The font the cells' numbers are drawn in at the last layout.
    const QFont& cellFont() const { return cellFont_; }
    void setTitle(const QString& title);
    const QString& title() const { return title_; }
    void setColorMap(MapColors map);
    MapColors colorMap() const { return scale_.map; }
    // Missing labels are numbered from 0, extra ones are ignored.
    void setCells(std::shared_ptr<const CellSource> cells, const QStringList& rowLabels,
                  const QStringList& colLabels);
    // The same numbers from another owner (a result that kept them): the
    // labels and every cache stay. False, and nothing changes, when the
    // shape differs.
    bool setSameCells(std::shared_ptr<const CellSource> cells);
    const CellSource& cells() const { return *cells_; }
    int rowCount() const { return cells_->rows(); }
    int columnCount() const { return cells_->cols(); }
    const QStringList& rowLabels() const { return rowLabels_; }
    const QStringList& columnLabels() const { return colLabels_; }
    // Ignored unless both are finite; diverging maps draw [-m, m], m = max(|lo|, |hi|).
    void setRange(double lo, double hi);
    double rangeLow() const { return scale_.lo; }
    double rangeHigh() const { return scale_.hi; }
    void setColorScale(MapScale scale, double logLow);
    MapScale colorScale() const;  // as drawn: Linear on a diverging map
    double logLow() const { return scale_.logLow; }
    void setScaleCaption(const QString& caption);
    const QString& scaleCaption() const { return scaleCaption_; }
    void setDecimals(int decimals);  // clamped to [0, 10]
    int decimals() const { return scale_.decimals; }
    // -1 (or out of range): none. True when it changed.
    bool setFocusRow(int row);
    int focusRow() const { return focusRow_; }
    // The block of cells shown, clamped to the map; every cell for a null
    // rectangle (or the whole map). True when it changed.
    bool setShownBlock(const QRect& block);
    QRect shownBlock() const;
    bool isZoomed() const { return !block_.isNull(); }

    const HeatmapLayout& layout(const QSize& size) const;  // cached
    // Draws everything in (0, 0, size) of the painter's coordinates.
    void paint(QPainter& painter, const QSize& size, const HeatmapStyle& style) const;

    // Only the cells of the shown block, as one image sampled at its pixels'
    // centres, filling `target` (masked cells grey, no text): a small map
    // such as a tile of the head grid.
    void paintCellImage(QPainter& painter, const QRect& target) const;
    // The image paintCellImage draws for `target` on a device of that pixel
    // ratio, made now (sampled and coloured) if it is not at hand: so that
    // many tiles' images can be made on several threads before they are
    // painted (each renderer on one thread at a time).
    void prepareCellImage(const QRect& target, qreal devicePixelRatio) const;

    QColor colorFor(double value) const;  // linear, under the map and range
    QColor cellColor(int row, int col) const;
    // Cell geometry in map rows and columns (empty outside the shown block).
    QRect cellRect(const QSize& size, int row, int col) const;
    int rowAt(const QSize& size, int y) const;  // -1 outside the shown rows
    int columnAt(const QSize& size, int x) const;
    QStringList scaleTickTexts(const QSize& size) const;
    QStringList shownColumnLabels(const QSize& size) const;
    QString formatValue(double value) const { return scale_.formatValue(value); }
    // As printed in the cells: with fewer decimals when the cells are narrow
    // (see layout()).
    QString formatCell(double value) const { return scale_.formatValue(value, cellDecimals_); }
    int cellDecimals() const { return cellDecimals_; }
    const HeatmapColorScale& colorScaleSpec() const { return scale_; }
    QString captionText() const;  // the scale's caption, and the shown block when zoomed
    const QString& widestCellText() const;

private:
    double rowMaxAt(int row) const;
    void findExtremes() const;
    void invalidate(bool colours);
    void ensureCellImage(int width, int height) const;
    void paintCells(QPainter& painter, const HeatmapLayout& l, const HeatmapStyle& style) const;

    QFont font_;
    double smallestCellPointSize_ = 0.0;
    CompactLayout compact_ = CompactLayout::Off;
    mutable QFont cellFont_;  // font_, or smaller (see setSmallestCellPointSize)
    QString title_;
    std::shared_ptr<const CellSource> cells_;
    QStringList rowLabels_;
    QStringList colLabels_;
    HeatmapColorScale scale_;
    QString scaleCaption_;
    int focusRow_ = -1;
    QRect block_;  // null when every cell is shown

    mutable std::vector<double> rowMax_;  // per row, filled when first drawn
    // Cells sampled at their centres onto width x height pixels (cols x rows
    // when the cells are legible), rebuilt only when stale: a 2048 x 2048 map
    // costs the same as the widget's area.
    mutable QImage cellImage_;
    mutable bool cellImageStale_ = true;
    mutable QString widestCellText_;
    mutable bool widestTextStale_ = true;
    mutable CellExtremes extremes_;
    mutable bool extremesStale_ = true;
    mutable int cellDecimals_ = 2;  // decimals of the printed cells, from the last layout
    mutable HeatmapLayout layoutCache_;
    mutable bool layoutValid_ = false;
    // Widest row (bold) and column label, -1 until measured.
    mutable int widestRowLabel_ = -1;
    mutable int widestColumnLabel_ = -1;
    mutable std::unique_ptr<NumberGlyphs> numberGlyphs_;  // for cell text on screen
    mutable HeatmapLabelPainter labelPainter_;            // caches the labels' text
};

}  // namespace attnlab
