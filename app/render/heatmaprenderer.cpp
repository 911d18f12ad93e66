// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmaprenderer.h"

#include "colormap.h"
#include "displaylabel.h"
#include "numbertext.h"
#include "heatmapcells.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

HeatmapRenderer::HeatmapRenderer() : cells_(matrixCells(attn::Matrix()))
{
}

HeatmapRenderer::~HeatmapRenderer() = default;

void HeatmapRenderer::invalidate(bool colours)
{
    layoutValid_ = false;
    if (colours) {
        cellImageStale_ = true;
        widestTextStale_ = true;
        extremesStale_ = true;
    }
}

void HeatmapRenderer::setSmallestCellPointSize(double pointSize)
{
    if (pointSize == smallestCellPointSize_)
        return;
    smallestCellPointSize_ = pointSize;
    invalidate(false);
}

void HeatmapRenderer::setCompactLayout(CompactLayout compact)
{
    if (compact == compact_)
        return;
    compact_ = compact;
    invalidate(false);
}

void HeatmapRenderer::setFont(const QFont& font)
{
    if (font == font_ && font.resolveMask() == font_.resolveMask())
        return;
    font_ = font;
    cellFont_ = font;
    widestRowLabel_ = widestColumnLabel_ = -1;
    numberGlyphs_.reset();
    labelPainter_.clearCache();
    invalidate(false);
}

void HeatmapRenderer::setTitle(const QString& title)
{
    title_ = title;
    invalidate(false);
}

void HeatmapRenderer::setColorMap(MapColors map)
{
    if (map == scale_.map)
        return;
    scale_.map = map;
    invalidate(true);
}

void HeatmapRenderer::setCells(std::shared_ptr<const CellSource> cells, const QStringList& rowLabels,
                               const QStringList& colLabels)
{
    cells_ = cells ? std::move(cells) : matrixCells(attn::Matrix());
    const int rows = rowCount();
    const int cols = columnCount();
    // Bounded before anything measures them (displaylabel.h).
    QStringList rowsIn = rowLabels.mid(0, rows);
    for (QString& label : rowsIn)
        label = displayLabel(label);
    for (int r = rowsIn.size(); r < rows; ++r)
        rowsIn << QString::number(r);
    QStringList colsIn = colLabels.mid(0, cols);
    for (QString& label : colsIn)
        label = displayLabel(label);
    for (int c = colsIn.size(); c < cols; ++c)
        colsIn << QString::number(c);
    // Measuring every label is the costly part of a layout at thousands of
    // tokens; the widths are kept while the labels stay the same.
    if (rowsIn != rowLabels_) {
        rowLabels_ = rowsIn;
        widestRowLabel_ = -1;
    }
    if (colsIn != colLabels_) {
        colLabels_ = colsIn;
        widestColumnLabel_ = -1;
    }
    if (focusRow_ >= rows)
        focusRow_ = -1;
    // A zoomed block stays where it is while it fits (a d_k step keeps it).
    if (!block_.isNull())
        setShownBlock(block_);
    rowMax_.clear();
    invalidate(true);
}

bool HeatmapRenderer::setSameCells(std::shared_ptr<const CellSource> cells)
{
    if (!cells || cells->rows() != rowCount() || cells->cols() != columnCount())
        return false;
    cells_ = std::move(cells);
    return true;
}

void HeatmapRenderer::setRange(double lo, double hi)
{
    if (!std::isfinite(lo) || !std::isfinite(hi))
        return;
    scale_.lo = std::min(lo, hi);
    scale_.hi = std::max(lo, hi);
    invalidate(true);  // the scale's tick labels change width too
}

void HeatmapRenderer::setColorScale(MapScale scale, double logLow)
{
    const double low = logLow > 0.0 && std::isfinite(logLow) ? logLow : scale_.logLow;
    if (scale == scale_.scale && low == scale_.logLow)
        return;
    scale_.scale = scale;
    scale_.logLow = low;
    invalidate(true);
}

MapScale HeatmapRenderer::colorScale() const
{
    return scale_.drawnScale();
}

void HeatmapRenderer::setScaleCaption(const QString& caption)
{
    if (caption == scaleCaption_)
        return;
    scaleCaption_ = caption;
    invalidate(false);
}

void HeatmapRenderer::setDecimals(int decimals)
{
    scale_.decimals = std::clamp(decimals, 0, 10);
    invalidate(true);
}

bool HeatmapRenderer::setFocusRow(int row)
{
    const int clamped = (row >= 0 && row < rowCount()) ? row : -1;
    if (clamped == focusRow_)
        return false;
    focusRow_ = clamped;
    return true;
}

QRect HeatmapRenderer::shownBlock() const
{
    return block_.isNull() ? QRect(0, 0, columnCount(), rowCount()) : block_;
}

bool HeatmapRenderer::setShownBlock(const QRect& block)
{
    const int rows = rowCount();
    const int cols = columnCount();
    QRect b;
    if (rows > 0 && cols > 0 && block.isValid()) {
        const int h = std::clamp(block.height(), 1, rows);
        const int w = std::clamp(block.width(), 1, cols);
        b = QRect(std::clamp(block.left(), 0, cols - w), std::clamp(block.top(), 0, rows - h), w, h);
        if (b == QRect(0, 0, cols, rows))
            b = QRect();
    }
    if (b == block_)
        return false;
    block_ = b;
    cellImageStale_ = true;  // the values themselves (and their widest text) stay
    layoutValid_ = false;
    return true;
}

QString HeatmapRenderer::captionText() const
{
    if (!isZoomed())
        return scaleCaption_;
    const QRect b = shownBlock();
    // Rows and columns counted from 1, as the tooltips do.
    const QString zoom = tr("rows %1–%2, columns %3–%4 of %5 × %6 (0: all)")
                             .arg(b.top() + 1)
                             .arg(b.bottom() + 1)
                             .arg(b.left() + 1)
                             .arg(b.right() + 1)
                             .arg(rowCount())
                             .arg(columnCount());
    return scaleCaption_.isEmpty() ? zoom : scaleCaption_ + QStringLiteral(" · ") + zoom;
}

const HeatmapLayout& HeatmapRenderer::layout(const QSize& size) const
{
    if (layoutValid_ && layoutCache_.size == size)
        return layoutCache_;
    const QFontMetrics fm(font_);
    const QFontMetrics boldFm(HeatmapLabelPainter::boldFont(font_));
    if (widestRowLabel_ < 0) {
        widestRowLabel_ = 0;
        for (const QString& label : rowLabels_)
            widestRowLabel_ = std::max(widestRowLabel_, boldFm.horizontalAdvance(label));
    }
    if (widestColumnLabel_ < 0) {
        widestColumnLabel_ = 0;
        for (const QString& label : colLabels_)
            widestColumnLabel_ = std::max(widestColumnLabel_, fm.horizontalAdvance(label));
    }
    HeatmapLayoutInput in;
    in.size = size;
    const QRect block = shownBlock();
    in.rows = block.height();
    in.cols = block.width();
    in.lineHeight = fm.height();
    in.emWidth = fm.horizontalAdvance(QLatin1Char('M'));
    in.hasTitle = !title_.isEmpty();
    in.titleWidth = in.hasTitle ? boldFm.horizontalAdvance(title_) : 0;
    in.titleHeight = boldFm.height();
    const QString caption = captionText();
    in.hasCaption = !caption.isEmpty();
    in.captionWidth = in.hasCaption ? fm.horizontalAdvance(caption) : 0;
    in.widestRowLabel = widestRowLabel_;
    in.widestColumnLabel = widestColumnLabel_;
    const std::vector<HeatmapColorScale::Tick> allTicks = scale_.ticks(std::numeric_limits<int>::max());
    for (const HeatmapColorScale::Tick& tick : allTicks)
        in.widestTickText = std::max(in.widestTickText, fm.horizontalAdvance(tick.text));
    in.endsTextWidth = allTicks.size() >= 2 ? fm.horizontalAdvance(HeatmapColorScale::endsText(allTicks)) : 0;
    in.logScale = colorScale() == MapScale::Log;
    in.emptyRange = scale_.emptyRange();
    in.compact = compact_ != CompactLayout::Off;
    in.compactRowLabels = compact_ == CompactLayout::WithRowLabels;
    // Cells too narrow for the values at the scale's decimals print them with
    // fewer, down to two significant digits of the largest magnitude
    // ("-28.9" becomes "-29" before the numbers go). Only tried when the
    // cells were tall and wide enough for the width to be measured at all.
    if (cellDecimals_ != scale_.decimals) {
        cellDecimals_ = scale_.decimals;
        widestTextStale_ = true;
    }
    bool measured = false;
    cellFont_ = font_;
    QFontMetrics cellFm(cellFont_);
    in.cellLineHeight = cellFm.height();
    in.widestCellText = [this, &cellFm, &measured] {
        measured = true;
        return cellFm.horizontalAdvance(widestCellText());
    };
    layoutCache_ = HeatmapLayout::compute(in);
    const auto fewerDecimals = [&] {
        findExtremes();
        const int fewest = fewestDecimals(extremes_, scale_.decimals);
        while (!layoutCache_.cellText && cellDecimals_ > fewest) {
            --cellDecimals_;
            widestTextStale_ = true;
            layoutCache_ = HeatmapLayout::compute(in);
        }
    };
    if (!layoutCache_.cellText && measured)
        fewerDecimals();
    // Then a smaller font for the numbers, down to the smallest allowed
    // (also where the cells were too short for a line of the larger one).
    const double fontSize = font_.pointSizeF();
    if (!layoutCache_.cellText && (measured || !layoutCache_.imageMode) && fontSize > 0
        && smallestCellPointSize_ > 0 && smallestCellPointSize_ < fontSize) {
        for (double factor = 0.9; !layoutCache_.cellText; factor -= 0.1) {
            const double pointSize = std::max(smallestCellPointSize_, fontSize * factor);
            cellFont_ = font_;
            cellFont_.setPointSizeF(pointSize);
            cellFm = QFontMetrics(cellFont_);
            in.cellLineHeight = cellFm.height();
            cellDecimals_ = scale_.decimals;
            widestTextStale_ = true;
            layoutCache_ = HeatmapLayout::compute(in);
            fewerDecimals();
            if (pointSize <= smallestCellPointSize_)
                break;
        }
        if (!layoutCache_.cellText)
            cellFont_ = font_;
    }
    if (!layoutCache_.cellText && measured) {
        cellDecimals_ = scale_.decimals;
        widestTextStale_ = true;
    }
    layoutValid_ = true;
    return layoutCache_;
}

QRect HeatmapRenderer::cellRect(const QSize& size, int row, int col) const
{
    const QRect b = shownBlock();
    if (!b.contains(col, row))
        return {};
    return layout(size).cellRect(row - b.top(), col - b.left());
}

int HeatmapRenderer::rowAt(const QSize& size, int y) const
{
    const int i = layout(size).rowAt(y);
    return i < 0 ? -1 : i + shownBlock().top();
}

int HeatmapRenderer::columnAt(const QSize& size, int x) const
{
    const int i = layout(size).columnAt(x);
    return i < 0 ? -1 : i + shownBlock().left();
}

QStringList HeatmapRenderer::scaleTickTexts(const QSize& size) const
{
    const HeatmapLayout& l = layout(size);
    const std::vector<HeatmapColorScale::Tick> ticks = scale_.ticks(l.scaleTicks);
    if (l.endsOnOneLine && ticks.size() >= 2)
        return {HeatmapColorScale::endsText(ticks)};
    QStringList texts;
    for (const HeatmapColorScale::Tick& tick : ticks)
        texts << tick.text;
    return texts;
}

QStringList HeatmapRenderer::shownColumnLabels(const QSize& size) const
{
    QStringList shown;
    const HeatmapLayout& l = layout(size);
    if (l.columnLabelStep <= 0)
        return shown;
    const QFontMetrics fm(font_);
    const QRect b = shownBlock();
    for (int c = b.left(); c <= b.right(); c += l.columnLabelStep)
        shown << HeatmapLabelPainter::elided(fm, colLabels_.value(c), l.columnLabelWidth);
    return shown;
}

double HeatmapRenderer::rowMaxAt(int row) const
{
    if (rowMax_.size() != std::size_t(rowCount()))
        rowMax_.assign(std::size_t(rowCount()), std::numeric_limits<double>::quiet_NaN());
    double& m = rowMax_[std::size_t(row)];
    if (std::isnan(m))
        m = cells_->rowMax(row);
    return m;
}

QColor HeatmapRenderer::colorFor(double value) const
{
    return scale_.linearColor(value);
}

QColor HeatmapRenderer::cellColor(int row, int col) const
{
    const double v = cells_->value(row, col);
    if (std::isnan(v) || isMaskedCell(v))
        return QColor::fromRgb(colormap::kMasked);
    return QColor::fromRgb(scale_.rgb(v, colorScale() == MapScale::PerRow ? rowMaxAt(row) : 0.0));
}

void HeatmapRenderer::ensureCellImage(int width, int height) const
{
    if (rowCount() == 0 || columnCount() == 0) {
        cellImage_ = QImage();
        return;
    }
    if (!cellImageStale_ && cellImage_.size() == QSize(width, height))
        return;
    // Zoomed in, only the block.
    cellImage_ = colouredCells(*cells_, shownBlock(), width, height, scale_,
                               [this](int row) { return rowMaxAt(row); });
    cellImageStale_ = false;
}

void HeatmapRenderer::findExtremes() const
{
    if (!extremesStale_)
        return;
    extremesStale_ = false;
    extremes_ = cellExtremes(*cells_);
}

const QString& HeatmapRenderer::widestCellText() const
{
    if (!widestTextStale_)
        return widestCellText_;
    widestTextStale_ = false;
    widestCellText_.clear();
    findExtremes();
    // The printed texts are as wide as their character count in practice
    // (digits share one width), so the longest one decides legibility.
    widestCellText_ = extremes_.anyNaN ? formatValue(std::numeric_limits<double>::quiet_NaN()) : QString();
    for (const double v : {extremes_.low, extremes_.high}) {
        if (std::isinf(v))
            continue;
        const QString text = formatCell(v);
        if (text.size() > widestCellText_.size())
            widestCellText_ = text;
    }
    return widestCellText_;
}

void HeatmapRenderer::paint(QPainter& painter, const QSize& size, const HeatmapStyle& style) const
{
    const HeatmapLayout& l = layout(size);
    painter.save();
    painter.setFont(font_);
    painter.fillRect(QRect(QPoint(0, 0), size), style.background);
    painter.setPen(style.text);
    if (!title_.isEmpty()) {
        painter.save();
        const QFont titleFont = HeatmapLabelPainter::boldFont(font_);
        painter.setFont(titleFont);
        const QString text = HeatmapLabelPainter::elided(QFontMetrics(titleFont), title_, l.title.width());
        painter.drawText(l.title, Qt::AlignHCenter | Qt::AlignVCenter, text);
        painter.restore();
    }
    if (rowCount() == 0 || columnCount() == 0) {
        const QRect rest(0, l.title.bottom() + 1, size.width(), size.height() - l.title.bottom() - 1);
        painter.drawText(rest, Qt::AlignCenter, tr("No data"));
        painter.restore();
        return;
    }
    if (style.screen && (!numberGlyphs_ || numberGlyphs_->font() != cellFont_))
        numberGlyphs_ = std::make_unique<NumberGlyphs>(cellFont_);
    painter.setFont(cellFont_);
    paintCells(painter, l, style);
    painter.setFont(font_);
    labelPainter_.paintLabels(painter, l, style, font_, shownBlock(), focusRow_, rowLabels_, colLabels_);
    HeatmapLabelPainter::paintScale(painter, l, style, font_, scale_);
    HeatmapLabelPainter::paintCaption(painter, l, style, font_, captionText());
    painter.restore();
}

void HeatmapRenderer::prepareCellImage(const QRect& target, qreal devicePixelRatio) const
{
    const QRect b = shownBlock();
    if (b.isEmpty() || target.isEmpty())
        return;
    // No more pixels than the device shows (the image is scaled without
    // smoothing, so each pixel shows the cell at its centre either way).
    const int width =
        std::clamp(static_cast<int>(std::ceil(target.width() * devicePixelRatio)), 1, b.width());
    const int height =
        std::clamp(static_cast<int>(std::ceil(target.height() * devicePixelRatio)), 1, b.height());
    ensureCellImage(width, height);
}

void HeatmapRenderer::paintCellImage(QPainter& painter, const QRect& target) const
{
    if (shownBlock().isEmpty() || target.isEmpty())
        return;
    prepareCellImage(target, painter.device() ? painter.device()->devicePixelRatio() : 1.0);
    painter.save();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QRectF(target), cellImage_);
    painter.restore();
}

void HeatmapRenderer::paintCells(QPainter& painter, const HeatmapLayout& l, const HeatmapStyle& style) const
{
    const QRect b = shownBlock();
    const int rows = b.height();
    const int cols = b.width();
    if (l.imageMode) {
        paintCellImage(painter, l.cells);
    } else {
        ensureCellImage(cols, rows);
        const QBrush hatch(QColor::fromRgb(colormap::kMaskedHatch), Qt::BDiagPattern);
        const QColor masked = QColor::fromRgb(colormap::kMasked);
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < cols; ++c) {
                const QRect rect = l.cellRect(r, c);
                const double v = cells_->value(b.top() + r, b.left() + c);
                if (std::isnan(v) || isMaskedCell(v)) {
                    painter.fillRect(rect, masked);
                    painter.fillRect(rect, hatch);
                    if (std::isnan(v) && l.cellText) {
                        painter.setPen(colormap::contrastingText(masked));
                        painter.drawText(rect, Qt::AlignCenter, formatValue(v));
                    }
                    continue;
                }
                const QColor color = QColor::fromRgb(cellImage_.pixel(c, r));
                painter.fillRect(rect, color);
                if (l.cellText) {
                    painter.setPen(colormap::contrastingText(color));
                    const QString text = formatCell(v);
                    if (!style.screen || !numberGlyphs_ || !numberGlyphs_->drawCentred(painter, rect, text))
                        painter.drawText(rect, Qt::AlignCenter, text);
                }
            }
        }
    }

    painter.save();
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(style.frame, 1));
    painter.drawRect(QRectF(l.cells).adjusted(-0.5, -0.5, 0.5, 0.5));
    if (focusRow_ >= b.top() && focusRow_ <= b.bottom()) {
        // A 2 px line in the text colour just outside the row, with a 2 px
        // halo in the background colour around it, so that the row stands out
        // on blue, white and red cells alike and in light and dark palettes.
        const int r = focusRow_ - b.top();
        const QRectF row = l.cellRect(r, 0).united(l.cellRect(r, cols - 1));
        // A pen of width w drawn on a rectangle grown by w / 2 covers exactly
        // the w pixels outside it.
        const auto outline = [&](const QColor& color, double w) {
            painter.setPen(QPen(color, w, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
            painter.drawRect(row.adjusted(-w / 2, -w / 2, w / 2, w / 2));
        };
        outline(style.background, HeatmapLayout::kFocusOutline);
        outline(style.text, HeatmapLayout::kFocusOutline / 2.0);
    }
    painter.restore();
}

}  // namespace attnlab
