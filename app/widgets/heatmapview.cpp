// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmapview.h"

#include "colormap.h"
#include "focusframe.h"
#include "numbertext.h"
#include "presentation.h"

#include <QEvent>
#include <QFontMetrics>
#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attnlab {
namespace {

// The value range the colour scale spans: [-m, m] or [lo, hi].
struct ScaleRange {
    double low;
    double high;
};

ScaleRange scaleRange(HeatmapView::ColorMap map, double lo, double hi)
{
    if (map == HeatmapView::ColorMap::Diverging) {
        const double m = std::max(std::abs(lo), std::abs(hi));
        return {-m, m};
    }
    return {lo, hi};
}

double tickValue(const ScaleRange& range, int i, int count)
{
    if (count < 2)
        return range.low;
    return range.low + (range.high - range.low) * i / (count - 1);
}

bool isMasked(double v)
{
    return v == -std::numeric_limits<double>::infinity();
}

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

// QFontMetrics::elidedText() may elide a text that measures exactly the
// width it is given; elide only what is really too wide.
QString elided(const QFontMetrics& fm, const QString& text, int width)
{
    return fm.horizontalAdvance(text) <= width ? text : fm.elidedText(text, Qt::ElideRight, width);
}

QFont boldFont(QFont font)
{
    font.setBold(true);
    return font;
}

// Cells narrower than this are drawn as one scaled image (a hatch or text
// would not show anyway).
constexpr int kMinDrawnCell = 8;
// Width of the focus row's outline (line and halo) outside the cells.
constexpr int kFocusOutline = 4;
// Cells may be at most this many times wider than tall (and vice versa).
constexpr double kMaxCellAspect = 2.0;
// Up to this many rows and columns the size hint leaves room for the values.
constexpr int kLegibleCells = 32;

}  // namespace

HeatmapView::~HeatmapView() = default;

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent), cells_(matrixCells(attn::Matrix()))
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    invalidateCellImage();
}

void HeatmapView::setTitle(const QString& title)
{
    title_ = title;
    // Screen readers announce the map by its title.
    if (!title.isEmpty())
        setAccessibleName(title);
    invalidateLayout();
}

QString HeatmapView::title() const
{
    return title_;
}

void HeatmapView::setColorMap(ColorMap map)
{
    if (map == colorMap_)
        return;
    colorMap_ = map;
    invalidateCellImage();
    invalidateLayout();
}

HeatmapView::ColorMap HeatmapView::colorMap() const
{
    return colorMap_;
}

void HeatmapView::setData(const attn::Matrix& values, const QStringList& rowLabels,
                          const QStringList& colLabels)
{
    setCells(matrixCells(values), rowLabels, colLabels);
}

void HeatmapView::setCells(std::shared_ptr<const CellSource> cells, const QStringList& rowLabels,
                           const QStringList& colLabels)
{
    cells_ = cells ? std::move(cells) : matrixCells(attn::Matrix());
    const int rows = rowCount();
    const int cols = columnCount();
    QStringList rowsIn = rowLabels.mid(0, rows);
    for (int r = rowsIn.size(); r < rows; ++r)
        rowsIn << QString::number(r);
    QStringList colsIn = colLabels.mid(0, cols);
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
    hoverRow_ = hoverCol_ = -1;
    // A zoomed block stays where it is while it fits (a d_k step keeps it).
    if (!block_.isNull())
        setShownBlock(block_);
    rowMax_.clear();
    invalidateCellImage();
    invalidateLayout();
}

attn::Matrix HeatmapView::values() const
{
    attn::Matrix m(rowCount(), columnCount());
    for (int r = 0; r < m.rows(); ++r)
        cells_->rowValues(r, m.data() + std::size_t(r) * m.cols());
    return m;
}

double HeatmapView::value(int row, int col) const
{
    return cells_->value(row, col);
}

int HeatmapView::rowCount() const
{
    return cells_->rows();
}

int HeatmapView::columnCount() const
{
    return cells_->cols();
}

QStringList HeatmapView::rowLabels() const
{
    return rowLabels_;
}

QStringList HeatmapView::columnLabels() const
{
    return colLabels_;
}

void HeatmapView::setRange(double lo, double hi)
{
    if (!std::isfinite(lo) || !std::isfinite(hi))
        return;
    lo_ = std::min(lo, hi);
    hi_ = std::max(lo, hi);
    invalidateCellImage();
    invalidateLayout();  // the scale's tick labels change width
}

void HeatmapView::setColorScale(ColorScale scale, double logLow)
{
    const double low = logLow > 0.0 && std::isfinite(logLow) ? logLow : logLow_;
    if (scale == colorScale_ && low == logLow_)
        return;
    colorScale_ = scale;
    logLow_ = low;
    invalidateCellImage();
    invalidateLayout();  // the scale's ticks change
}

HeatmapView::ColorScale HeatmapView::colorScale() const
{
    return colorMap_ == ColorMap::Diverging ? ColorScale::Linear : colorScale_;
}

double HeatmapView::logLow() const
{
    return logLow_;
}

void HeatmapView::setScaleCaption(const QString& caption)
{
    if (caption == scaleCaption_)
        return;
    scaleCaption_ = caption;
    invalidateLayout();
}

QString HeatmapView::scaleCaption() const
{
    return scaleCaption_;
}

QStringList HeatmapView::scaleTickTexts() const
{
    const Layout& l = layout(size());
    const std::vector<Tick> ticks = scaleTicks(l.scaleTicks);
    if (l.endsOnOneLine && ticks.size() >= 2)
        return {endsText(ticks)};
    QStringList texts;
    for (const Tick& tick : ticks)
        texts << tick.text;
    return texts;
}

double HeatmapView::rowMaxAt(int row) const
{
    if (rowMax_.size() != std::size_t(rowCount()))
        rowMax_.assign(std::size_t(rowCount()), std::numeric_limits<double>::quiet_NaN());
    double& m = rowMax_[std::size_t(row)];
    if (std::isnan(m))
        m = cells_->rowMax(row);
    return m;
}

QRgb HeatmapView::scaledRgb(double value, double rowMax) const
{
    switch (colorScale()) {
    case ColorScale::Linear: break;
    case ColorScale::PerRow:
        // A row of zeros (or all masked) is drawn in the low colour.
        return colormap::sequentialRgb(value, lo_, rowMax > lo_ ? rowMax : lo_ + 1.0);
    case ColorScale::Log: return colormap::sequentialLogRgb(value, logLow_, hi_);
    }
    const ScaleRange range = scaleRange(colorMap_, lo_, hi_);
    return colorMap_ == ColorMap::Diverging ? colormap::divergingRgb(value, range.high)
                                            : colormap::sequentialRgb(value, range.low, range.high);
}

QColor HeatmapView::cellColor(int row, int col) const
{
    const double v = cells_->value(row, col);
    if (std::isnan(v) || isMasked(v))
        return QColor::fromRgb(colormap::kMasked);
    return QColor::fromRgb(scaledRgb(v, colorScale() == ColorScale::PerRow ? rowMaxAt(row) : 0.0));
}

double HeatmapView::rangeLow() const
{
    return lo_;
}

double HeatmapView::rangeHigh() const
{
    return hi_;
}

void HeatmapView::setDecimals(int decimals)
{
    decimals_ = std::clamp(decimals, 0, 10);
    invalidateCellImage();  // also the widest cell text
    invalidateLayout();
}

int HeatmapView::decimals() const
{
    return decimals_;
}

void HeatmapView::setFocusRow(int row)
{
    const int clamped = (row >= 0 && row < rowCount()) ? row : -1;
    if (clamped == focusRow_)
        return;
    focusRow_ = clamped;
    if (isZoomed() && clamped >= 0 && (clamped < firstShownRow() || clamped >= firstShownRow() + shownRows()))
        panBy(clamped < firstShownRow() ? clamped - firstShownRow()
                                        : clamped - (firstShownRow() + shownRows()) + 1,
              0);
    update();
}

int HeatmapView::shownRows() const
{
    return block_.isNull() ? rowCount() : block_.height();
}

int HeatmapView::shownColumns() const
{
    return block_.isNull() ? columnCount() : block_.width();
}

int HeatmapView::firstShownRow() const
{
    return block_.isNull() ? 0 : block_.top();
}

int HeatmapView::firstShownColumn() const
{
    return block_.isNull() ? 0 : block_.left();
}

QRect HeatmapView::shownBlock() const
{
    return QRect(firstShownColumn(), firstShownRow(), shownColumns(), shownRows());
}

bool HeatmapView::isZoomed() const
{
    return !block_.isNull();
}

void HeatmapView::setShownBlock(const QRect& block)
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
        return;
    block_ = b;
    hoverRow_ = hoverCol_ = -1;
    cellImageStale_ = true;  // the values themselves (and their widest text) stay
    invalidateLayout();
    emit shownBlockChanged(shownBlock());
}

void HeatmapView::zoomBy(double factor, int row, int col)
{
    if (!(factor > 0.0) || rowCount() == 0 || columnCount() == 0)
        return;
    const QRect b = shownBlock();
    if (row < 0)
        row = b.top() + b.height() / 2;
    if (col < 0)
        col = b.left() + b.width() / 2;
    // Both sides by the same factor, at least one cell.
    const int h = std::clamp(static_cast<int>(std::lround(b.height() / factor)), 1, rowCount());
    const int w = std::clamp(static_cast<int>(std::lround(b.width() / factor)), 1, columnCount());
    // The anchor cell keeps its place within the block.
    const double fy = (row - b.top() + 0.5) / b.height();
    const double fx = (col - b.left() + 0.5) / b.width();
    const int top = static_cast<int>(std::lround(row + 0.5 - fy * h));
    const int left = static_cast<int>(std::lround(col + 0.5 - fx * w));
    setShownBlock(QRect(left, top, w, h));
}

void HeatmapView::panBy(int rows, int cols)
{
    if (isZoomed())
        setShownBlock(shownBlock().translated(cols, rows));
}

void HeatmapView::resetZoom()
{
    setShownBlock(QRect());
}

QString HeatmapView::captionText() const
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

int HeatmapView::focusRow() const
{
    return focusRow_;
}

void HeatmapView::setToolTipProvider(std::function<QString(int row, int col)> provider)
{
    toolTipProvider_ = std::move(provider);
}

QColor HeatmapView::colorFor(double value) const
{
    const ScaleRange range = scaleRange(colorMap_, lo_, hi_);
    if (colorMap_ == ColorMap::Diverging)
        return colormap::diverging(value, range.high);
    return colormap::sequential(value, range.low, range.high);
}

bool HeatmapView::cellAt(const QPoint& pos, int* row, int* col) const
{
    const Layout& l = layout(size());
    const int r = rowAtY(l, pos.y());
    const int c = columnAtX(l, pos.x());
    if (r < 0 || c < 0)
        return false;
    if (row)
        *row = r;
    if (col)
        *col = c;
    return true;
}

QRect HeatmapView::cellRect(int row, int col) const
{
    if (row < firstShownRow() || col < firstShownColumn() || row >= firstShownRow() + shownRows()
        || col >= firstShownColumn() + shownColumns())
        return {};
    return cellRectIn(layout(size()), row, col);
}

QRect HeatmapView::cellsArea() const
{
    return layout(size()).cells;
}

bool HeatmapView::cellTextVisible() const
{
    return layout(size()).cellText;
}

bool HeatmapView::cellImageMode() const
{
    return layout(size()).imageMode;
}

QImage HeatmapView::renderImage(const QSize& size, qreal devicePixelRatio) const
{
    const qreal dpr = devicePixelRatio > 0 ? devicePixelRatio : 1.0;
    QImage image((QSizeF(size) * dpr).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    // Same dots per inch as the widget so that fonts match the layout.
    image.setDotsPerMeterX(static_cast<int>(std::lround(logicalDpiX() / 0.0254)));
    image.setDotsPerMeterY(static_cast<int>(std::lround(logicalDpiY() / 0.0254)));
    image.fill(palette().color(QPalette::Window));
    QPainter painter(&image);
    paintInto(painter, size);
    return image;
}

void HeatmapView::renderTo(QPainter& painter, const QSize& size) const
{
    painter.save();
    paintInto(painter, size);
    painter.restore();
}

QSize HeatmapView::minimumSizeHint() const
{
    return {220, 200};
}

QSize HeatmapView::sizeHint() const
{
    const QFontMetrics fm = fontMetrics();
    const int rows = rowCount();
    const int cols = columnCount();
    if (rows == 0 || cols == 0)
        return {480, 400};
    // Room for the printed values when the matrix is small, else a few
    // pixels per cell; the labels and scale take about a quarter more.
    const bool small = rows <= kLegibleCells && cols <= kLegibleCells;
    if (small)
        ensureWidestText();
    const int cellW = std::max(fm.height(), small ? fm.horizontalAdvance(widestCellText_) : 0) + 8;
    const int cellH = fm.height() + 8;
    const int w = small ? cols * cellW : cols * 2;
    const int h = small ? rows * cellH : rows * 2;
    const int extra = fm.horizontalAdvance(QLatin1Char('M')) * 16;
    return QSize(w + extra, h + extra / 2 + 2 * fm.height())
        .expandedTo(minimumSizeHint())
        .boundedTo(QSize(900, 800));
}

void HeatmapView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    if (!numberGlyphs_ || numberGlyphs_->font() != font())
        numberGlyphs_ = std::make_unique<NumberGlyphs>(font());
    screenPaint_ = true;
    paintInto(painter, size());
    screenPaint_ = false;
    // Keyboard focus (Up/Down then move the focused query).
    if (hasFocus())
        drawFocusFrame(painter, *this);
}

void HeatmapView::mouseMoveEvent(QMouseEvent* event)
{
    if (pressRow_ >= 0 && (event->buttons() & Qt::LeftButton)) {
        const QPoint delta = event->position().toPoint() - pressPos_;
        if (!dragging_ && delta.manhattanLength() >= QApplication::startDragDistance())
            dragging_ = true;
        if (dragging_) {
            // The block follows the pointer, a cell per cell width moved.
            const QRect cells = layout(size()).cells;
            const int dc = static_cast<int>(
                std::lround(double(delta.x()) * pressBlock_.width() / std::max(1, cells.width())));
            const int dr = static_cast<int>(
                std::lround(double(delta.y()) * pressBlock_.height() / std::max(1, cells.height())));
            setShownBlock(pressBlock_.translated(-dc, -dr));
            setCursor(Qt::ClosedHandCursor);
            event->accept();
            return;
        }
    }
    int row = -1;
    int col = -1;
    if (cellAt(event->position().toPoint(), &row, &col)) {
        if (row != hoverRow_ || col != hoverCol_) {
            hoverRow_ = row;
            hoverCol_ = col;
            emit cellHovered(row, col);
        }
    } else {
        hoverRow_ = hoverCol_ = -1;
    }
    QWidget::mouseMoveEvent(event);
}

void HeatmapView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    const QPoint pos = event->position().toPoint();
    const Layout& l = layout(size());
    const int row = rowAtY(l, pos.y());
    const bool onCell = row >= 0 && columnAtX(l, pos.x()) >= 0;
    const bool onRowLabel = row >= 0 && pos.x() >= 0 && pos.x() < l.cells.left();
    if (onCell && isZoomed()) {
        // Zoomed in: a drag pans; the row is clicked on release.
        pressPos_ = pos;
        pressBlock_ = shownBlock();
        pressRow_ = row;
        dragging_ = false;
        event->accept();
        return;
    }
    if (onCell || onRowLabel) {
        emit rowClicked(row);
        event->accept();
        return;
    }
    QWidget::mousePressEvent(event);
}

void HeatmapView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && pressRow_ >= 0) {
        const int row = pressRow_;
        const bool dragged = dragging_;
        pressRow_ = -1;
        dragging_ = false;
        unsetCursor();
        if (!dragged)
            emit rowClicked(row);
        event->accept();
        return;
    }
    QWidget::mouseReleaseEvent(event);
}

void HeatmapView::wheelEvent(QWheelEvent* event)
{
    const QPoint angle = event->angleDelta();
    const Layout& l = layout(size());
    if (event->modifiers() & Qt::ControlModifier) {
        // 1.25 per notch, about the cell under the pointer.
        const QPoint pos = event->position().toPoint();
        const QRect b = shownBlock();
        const int row = rowAtY(l, std::clamp(pos.y(), l.cells.top(), l.cells.bottom()));
        const int col = columnAtX(l, std::clamp(pos.x(), l.cells.left(), l.cells.right()));
        zoomBy(std::pow(1.25, angle.y() / 120.0), row >= 0 ? row : b.center().y(),
               col >= 0 ? col : b.center().x());
        event->accept();
        return;
    }
    if (!isZoomed()) {
        event->ignore();  // the page scrolls
        return;
    }
    // A notch moves an eighth of the block (at least a cell); Shift or a
    // sideways wheel moves along the columns.
    const bool sideways = (event->modifiers() & Qt::ShiftModifier) || angle.x() != 0;
    const int notches = sideways ? (angle.x() != 0 ? angle.x() : angle.y()) : angle.y();
    const QRect b = shownBlock();
    const int stepSize = std::max(1, (sideways ? b.width() : b.height()) / 8);
    const int cells = -static_cast<int>(std::lround(notches / 120.0 * stepSize));
    if (sideways)
        panBy(0, cells == 0 ? (notches > 0 ? -1 : 1) : cells);
    else
        panBy(cells == 0 ? (notches > 0 ? -1 : 1) : cells, 0);
    event->accept();
}

void HeatmapView::keyPressEvent(QKeyEvent* event)
{
    const QRect b = shownBlock();
    const int rowStep = std::max(1, b.height() / 8);
    const int colStep = std::max(1, b.width() / 8);
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(1.5); break;
    case Qt::Key_Minus: zoomBy(1 / 1.5); break;
    case Qt::Key_0: resetZoom(); break;
    case Qt::Key_Left:
    case Qt::Key_Right:
        if (!isZoomed()) {
            QWidget::keyPressEvent(event);
            return;
        }
        panBy(0, event->key() == Qt::Key_Left ? -colStep : colStep);
        break;
    case Qt::Key_Up:
    case Qt::Key_Down:
        // Plain Up/Down move the focused query (the window's filter).
        if (!shift || !isZoomed()) {
            QWidget::keyPressEvent(event);
            return;
        }
        panBy(event->key() == Qt::Key_Up ? -rowStep : rowStep, 0);
        break;
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
        if (!isZoomed()) {
            QWidget::keyPressEvent(event);
            return;
        }
        panBy(event->key() == Qt::Key_PageUp ? -b.height() : b.height(), 0);
        break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

bool HeatmapView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        int row = -1;
        int col = -1;
        if (!cellAt(help->pos(), &row, &col)) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        QString text;
        if (toolTipProvider_)
            text = toolTipProvider_(row, col);
        else
            text = tr("%1, %2: %3")
                       .arg(rowLabelAt(row), columnLabelAt(col), formatValue(cells_->value(row, col)));
        QToolTip::showText(help->globalPos(), text, this, cellRect(row, col));
        return true;
    }
    if (event->type() == QEvent::Leave)
        hoverRow_ = hoverCol_ = -1;
    if (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut)
        update();
    return QWidget::event(event);
}

void HeatmapView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    update();
}

void HeatmapView::changeEvent(QEvent* event)
{
    switch (event->type()) {
    case QEvent::FontChange:
    case QEvent::StyleChange:
        widestRowLabel_ = widestColumnLabel_ = -1;
        numberGlyphs_.reset();
        labelTexts_[0].clear();
        labelTexts_[1].clear();
        invalidateLayout();
        updateGeometry();
        break;
    case QEvent::PaletteChange: update(); break;
    default: break;
    }
    QWidget::changeEvent(event);
}

HeatmapView::Layout HeatmapView::computeLayout(const QSize& size, const QFontMetrics& fm) const
{
    Layout l;
    l.size = size;
    // Zoomed in, the shown block is laid out as if it were the whole map.
    const int rows = shownRows();
    const int cols = shownColumns();
    const int lineH = fm.height();
    const int pad = std::max(2, lineH / 4);
    const int margin = std::max(4, lineH / 2);

    int top = margin;
    const QFontMetrics titleFm(boldFont(font()));
    if (!title_.isEmpty()) {
        l.title = QRect(margin, margin, std::max(0, size.width() - 2 * margin), titleFm.height());
        top += titleFm.height() + pad;
    }
    if (rows == 0 || cols == 0)
        return l;

    // Colour scale at the right: a gap wide enough that rotated column labels
    // (which extend half a line past their cell) stay clear of the bar, the
    // bar, tick marks and tick labels.
    const ScaleRange range = scaleRange(colorMap_, lo_, hi_);
    int tickTextW = 0;
    const std::vector<Tick> allTicks = scaleTicks(std::numeric_limits<int>::max());
    for (const Tick& tick : allTicks)
        tickTextW = std::max(tickTextW, fm.horizontalAdvance(tick.text));
    // The caption naming the colour scale takes a line under the cells.
    const int captionH = captionText().isEmpty() ? 0 : lineH + pad;
    // A bar under two lines tall (a vector's strip) has no room for two
    // labels one above the other: it gets "low … high" on one line.
    const bool shortBar = size.height() - top - margin - captionH - lineH - pad < 2 * lineH + kFocusOutline;
    if (shortBar && allTicks.size() >= 2)
        tickTextW = std::max(tickTextW, fm.horizontalAdvance(endsText(allTicks)));
    const int barW = std::max(kMinDrawnCell, lineH * 3 / 4);
    const int tickLen = pad;
    const int scaleW = lineH + barW + tickLen + lineH / 2 + tickTextW;

    // Row labels at the left, elided to at most a quarter of the width. The
    // bold font is measured because the focus row's label is bold.
    const QFontMetrics boldFm(boldFont(font()));
    const int maxLabelW = fm.horizontalAdvance(QLatin1Char('M')) * 12;
    if (widestRowLabel_ < 0) {
        widestRowLabel_ = 0;
        for (const QString& label : rowLabels_)
            widestRowLabel_ = std::max(widestRowLabel_, boldFm.horizontalAdvance(label));
    }
    const int widestRow = widestRowLabel_;
    l.rowLabelWidth = std::min({widestRow, maxLabelW, size.width() / 4});
    // Labels keep clear of the focus row's outline, which lies outside the cells.
    l.labelGap = pad + kFocusOutline;
    const int rowLabelsW = l.rowLabelWidth > 0 ? l.rowLabelWidth + l.labelGap : 0;
    const int cellsMaxW = std::max(1, size.width() - 2 * margin - rowLabelsW - scaleW);

    if (widestColumnLabel_ < 0) {
        widestColumnLabel_ = 0;
        for (const QString& label : colLabels_)
            widestColumnLabel_ = std::max(widestColumnLabel_, fm.horizontalAdvance(label));
    }
    const int widestCol = widestColumnLabel_;

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
                    ? QRect(margin, l.cells.bottom() + 1 + pad, std::max(0, size.width() - 2 * margin), lineH)
                    : QRect();
    l.tickLength = tickLen;
    l.tickTextLeft = l.scaleBar.right() + 1 + tickLen + lineH / 2;
    if (!title_.isEmpty()) {
        // Centred over the cells when it fits there, else within the margins.
        const int titleW = std::min(titleFm.horizontalAdvance(title_), l.title.width());
        const int x = std::clamp(l.cells.center().x() - titleW / 2, margin, size.width() - margin - titleW);
        l.title = QRect(x, margin, titleW, titleFm.height());
    }

    const int minCellW = static_cast<int>(std::floor(cellW));
    const int minCellH = static_cast<int>(std::floor(cellH));
    // The widest text is looked for (a pass over every value) only when the
    // cells are tall enough for text at all.
    if (minCellH >= lineH + 2 && minCellW >= lineH)
        ensureWidestText();
    l.cellText = minCellH >= lineH + 2 && minCellW >= lineH
                 && minCellW >= fm.horizontalAdvance(widestCellText_) + 2 * pad;
    l.imageMode = std::min(minCellW, minCellH) < kMinDrawnCell;

    // Labels are thinned so that they never overlap: every step-th one, at
    // least one and a half lines apart (the first and last are pulled inside
    // the cells' extent, which may move them by half a line).
    auto step = [lineH](double cell) {
        return cell >= lineH ? 1 : static_cast<int>(std::ceil(1.5 * lineH / cell));
    };
    l.rowLabelStep = (l.rowLabelWidth > 0 && cellsH >= lineH) ? step(cellH) : 0;
    l.columnLabelStep = 0;
    if (widestCol > 0 && cellsW >= lineH)
        l.columnLabelStep = l.rotatedColumns ? step(cellW) : flatStep;

    l.scaleTicks = cellsH >= 6 * lineH ? 5 : (cellsH >= 3 * lineH ? 3 : 2);
    l.endsOnOneLine = cellsH < 2 * lineH;
    if (colorScale() == ColorScale::Log)
        l.scaleTicks = std::max(2, static_cast<int>(cellsH / (1.5 * lineH)));  // decades
    if (!(range.high > range.low))
        l.scaleTicks = 1;
    return l;
}

const HeatmapView::Layout& HeatmapView::layout(const QSize& size) const
{
    if (!layoutValid_ || layoutCache_.size != size) {
        layoutCache_ = computeLayout(size, fontMetrics());
        layoutValid_ = true;
    }
    return layoutCache_;
}

void HeatmapView::invalidateLayout()
{
    layoutValid_ = false;
    update();
}

void HeatmapView::paintInto(QPainter& painter, const QSize& size) const
{
    const Layout& l = layout(size);
    painter.setFont(font());
    painter.fillRect(QRect(QPoint(0, 0), size), palette().color(QPalette::Window));
    painter.setPen(palette().color(QPalette::WindowText));
    if (!title_.isEmpty()) {
        painter.save();
        const QFont titleFont = boldFont(font());
        painter.setFont(titleFont);
        const QString text = elided(QFontMetrics(titleFont), title_, l.title.width());
        painter.drawText(l.title, Qt::AlignHCenter | Qt::AlignVCenter, text);
        painter.restore();
    }
    if (rowCount() == 0 || columnCount() == 0) {
        const QRect rest(0, l.title.bottom() + 1, size.width(), size.height() - l.title.bottom() - 1);
        painter.drawText(rest, Qt::AlignCenter, tr("No data"));
        return;
    }
    paintCells(painter, l);
    paintLabels(painter, l);
    paintScale(painter, l);
    if (!l.caption.isEmpty()) {
        const QString text = elided(QFontMetrics(font()), captionText(), l.caption.width());
        painter.drawText(l.caption, Qt::AlignHCenter | Qt::AlignVCenter, text);
    }
}

void HeatmapView::paintCells(QPainter& painter, const Layout& l) const
{
    const int rows = shownRows();
    const int cols = shownColumns();
    const int row0 = firstShownRow();
    const int col0 = firstShownColumn();
    if (l.imageMode) {
        // No more pixels than the device shows (the image is scaled without
        // smoothing, so each pixel shows the cell at its centre either way).
        const qreal dpr = painter.device() ? painter.device()->devicePixelRatio() : 1.0;
        const int width = std::clamp(static_cast<int>(std::ceil(l.cells.width() * dpr)), 1, cols);
        const int height = std::clamp(static_cast<int>(std::ceil(l.cells.height() * dpr)), 1, rows);
        ensureCellImage(width, height);
        painter.save();
        painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
        painter.drawImage(QRectF(l.cells), cellImage_);
        painter.restore();
    } else {
        ensureCellImage(cols, rows);
        const QBrush hatch(QColor::fromRgb(colormap::kMaskedHatch), Qt::BDiagPattern);
        const QColor masked = QColor::fromRgb(colormap::kMasked);
        for (int r = row0; r < row0 + rows; ++r) {
            for (int c = col0; c < col0 + cols; ++c) {
                const QRect rect = cellRectIn(l, r, c);
                const double v = cells_->value(r, c);
                if (std::isnan(v) || isMasked(v)) {
                    painter.fillRect(rect, masked);
                    painter.fillRect(rect, hatch);
                    if (std::isnan(v) && l.cellText) {
                        painter.setPen(colormap::contrastingText(masked));
                        painter.drawText(rect, Qt::AlignCenter, formatValue(v));
                    }
                    continue;
                }
                const QColor color = QColor::fromRgb(cellImage_.pixel(c - col0, r - row0));
                painter.fillRect(rect, color);
                if (l.cellText) {
                    painter.setPen(colormap::contrastingText(color));
                    const QString text = formatValue(v);
                    if (!screenPaint_ || !numberGlyphs_ || !numberGlyphs_->drawCentred(painter, rect, text))
                        painter.drawText(rect, Qt::AlignCenter, text);
                }
            }
        }
    }

    painter.save();
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(palette().color(QPalette::Mid), 1));
    painter.drawRect(QRectF(l.cells).adjusted(-0.5, -0.5, 0.5, 0.5));
    if (focusRow_ >= row0 && focusRow_ < row0 + rows) {
        // A 2 px line in the text colour just outside the row, with a 2 px
        // halo in the background colour around it, so that the row stands out
        // on blue, white and red cells alike and in light and dark palettes.
        const QRectF row = cellRectIn(l, focusRow_, col0).united(cellRectIn(l, focusRow_, col0 + cols - 1));
        // A pen of width w drawn on a rectangle grown by w / 2 covers exactly
        // the w pixels outside it.
        const auto outline = [&](const QColor& color, double w) {
            painter.setPen(QPen(color, w, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
            painter.drawRect(row.adjusted(-w / 2, -w / 2, w / 2, w / 2));
        };
        outline(palette().color(QPalette::Window), kFocusOutline);
        outline(palette().color(QPalette::WindowText), kFocusOutline / 2.0);
    }
    painter.restore();
}

void HeatmapView::paintLabels(QPainter& painter, const Layout& l) const
{
    const int rows = shownRows();
    const int cols = shownColumns();
    const int row0 = firstShownRow();
    const int col0 = firstShownColumn();
    const QFontMetrics fm(font());
    const QFont bold = boldFont(font());
    const int lineH = fm.height();
    painter.save();
    painter.setPen(palette().color(QPalette::WindowText));

    if (l.rowLabelStep > 0) {
        for (int r = row0; r < row0 + rows; ++r) {
            // The focus row's label is always drawn, in bold.
            const bool focus = r == focusRow_;
            if (!focus && (r - row0) % l.rowLabelStep != 0)
                continue;
            if (!focus && focusRow_ >= 0 && l.rowLabelStep > 1 && std::abs(r - focusRow_) < l.rowLabelStep)
                continue;
            const QRect cell = cellRectIn(l, r, 0);
            const int centre = cell.top() + cell.height() / 2;
            const int y = std::clamp(centre - lineH / 2, l.cells.top(), l.cells.bottom() + 1 - lineH);
            const QRect box(l.rowLabels.left(), y, l.rowLabelWidth, lineH);
            painter.setFont(focus ? bold : font());
            drawLabel(painter, box, Qt::AlignRight | Qt::AlignVCenter, rowLabelAt(r), box.width(), focus);
        }
    }

    painter.setFont(font());
    if (l.columnLabelStep > 0) {
        for (int c = col0; c < col0 + cols; c += l.columnLabelStep) {
            const QRect cell = cellRectIn(l, row0, c);
            if (!l.rotatedColumns) {
                const QRect box(cell.left(), l.columnLabels.top(), cell.width(),
                                l.columnLabels.height() - l.labelGap);
                drawLabel(painter, box, Qt::AlignHCenter | Qt::AlignBottom, columnLabelAt(c),
                          l.columnLabelWidth, false);
                continue;
            }
            const QString label = elided(fm, columnLabelAt(c), l.columnLabelWidth);
            // Read bottom to top, starting just above the cells.
            const double x = std::clamp(cell.left() + cell.width() / 2.0, l.cells.left() + lineH / 2.0,
                                        l.cells.right() + 1 - lineH / 2.0);
            painter.save();
            painter.translate(x, l.columnLabels.bottom() + 1 - l.labelGap);
            painter.rotate(-90);
            painter.drawText(QRectF(0, -lineH / 2.0, l.columnLabelWidth, lineH),
                             Qt::AlignLeft | Qt::AlignVCenter, label);
            painter.restore();
        }
    }
    painter.restore();
}

QStringList HeatmapView::shownColumnLabels() const
{
    QStringList shown;
    const Layout& l = layout(size());
    if (l.columnLabelStep <= 0)
        return shown;
    for (int c = firstShownColumn(); c < firstShownColumn() + shownColumns(); c += l.columnLabelStep)
        shown << elided(fontMetrics(), columnLabelAt(c), l.columnLabelWidth);
    return shown;
}

void HeatmapView::drawLabel(QPainter& painter, const QRect& box, Qt::Alignment align, const QString& label,
                            int width, bool bold) const
{
    // Exports keep QPainter's own text (it is what SVG and PDF record).
    if (!screenPaint_) {
        painter.drawText(box, int(align), elided(QFontMetrics(painter.font()), label, width));
        return;
    }
    QHash<QPair<QString, int>, QStaticText>& cache = labelTexts_[bold ? 1 : 0];
    if (cache.size() > 8192)
        cache.clear();  // thousands of tokens relabelled: start over
    auto it = cache.find({label, width});
    if (it == cache.end()) {
        QStaticText text(elided(QFontMetrics(painter.font()), label, width));
        text.setTextFormat(Qt::PlainText);
        text.setPerformanceHint(QStaticText::AggressiveCaching);
        text.prepare(QTransform(), painter.font());
        it = cache.insert({label, width}, text);
    }
    const QStaticText& text = it.value();
    const QSizeF size = text.size();
    double x = box.left();
    if (align & Qt::AlignRight)
        x = box.right() + 1 - size.width();
    else if (align & Qt::AlignHCenter)
        x = box.left() + (box.width() - size.width()) / 2.0;
    double y = box.top();
    if (align & Qt::AlignBottom)
        y = box.bottom() + 1 - size.height();
    else if (align & Qt::AlignVCenter)
        y = box.top() + (box.height() - size.height()) / 2.0;
    painter.drawStaticText(QPointF(x, y), text);
}

void HeatmapView::paintScale(QPainter& painter, const Layout& l) const
{
    const QRect bar = l.scaleBar;
    if (bar.height() <= 0)
        return;
    const ScaleRange range = scaleRange(colorMap_, lo_, hi_);
    const bool linear = colorScale() == ColorScale::Linear;
    painter.save();
    // One pixel row per pixel row of the bar, top = high end, stretched
    // across its width; the per-row and log scales spread the colours
    // evenly over the bar, as their ticks do.
    QImage strip(1, bar.height(), QImage::Format_RGB32);
    for (int y = 0; y < bar.height(); ++y) {
        const double t = 1.0 - (y + 0.5) / bar.height();
        strip.setPixel(0, y,
                       linear ? colorFor(range.low + t * (range.high - range.low)).rgb()
                              : colormap::sequentialRgb(t, 0.0, 1.0));
    }
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QRectF(bar), strip);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(palette().color(QPalette::Mid), 1));
    painter.drawRect(QRectF(bar).adjusted(-0.5, -0.5, 0.5, 0.5));

    const QFontMetrics fm(font());
    const int lineH = fm.height();
    painter.setPen(palette().color(QPalette::WindowText));
    const std::vector<Tick> ticks = scaleTicks(l.scaleTicks);
    if (l.endsOnOneLine && ticks.size() >= 2) {
        const QRectF box(l.tickTextLeft, bar.center().y() + 0.5 - lineH / 2.0,
                         l.size.width() - l.tickTextLeft, lineH);
        painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, endsText(ticks));
        painter.restore();
        return;
    }
    for (const Tick& tick : ticks) {
        const double y = bar.top() + (1.0 - tick.t) * bar.height();
        painter.drawLine(QPointF(bar.right() + 1, y), QPointF(bar.right() + 1 + l.tickLength, y));
        const QRectF box(l.tickTextLeft, y - lineH / 2.0, l.size.width() - l.tickTextLeft, lineH);
        painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, tick.text);
    }
    painter.restore();
}

QString HeatmapView::endsText(const std::vector<Tick>& ticks)
{
    return ticks.empty() ? QString() : ticks.front().text + QStringLiteral(" … ") + ticks.back().text;
}

std::vector<HeatmapView::Tick> HeatmapView::scaleTicks(int count) const
{
    std::vector<Tick> ticks;
    if (count < 1)
        return ticks;
    const ScaleRange range = scaleRange(colorMap_, lo_, hi_);
    switch (colorScale()) {
    case ColorScale::Linear:
        for (int i = 0; i < std::min(count, 5); ++i)
            ticks.push_back({count < 2 ? 0.5 : double(i) / (std::min(count, 5) - 1),
                             formatValue(tickValue(range, i, std::min(count, 5)))});
        return ticks;
    case ColorScale::PerRow:
        // Each row has its own top: the bar names it rather than a number.
        ticks.push_back({0.0, formatValue(lo_)});
        if (count >= 3)
            ticks.push_back({0.5, tr("½ row max")});
        ticks.push_back({1.0, tr("row max")});
        return ticks;
    case ColorScale::Log: {
        const double lo = std::log10(logLow_);
        const double hi = std::log10(hi_ > logLow_ ? hi_ : logLow_ * 10);
        // Every decade between the ends, thinned to every step-th one when
        // more than `count` (the top one kept, the one below it dropped when
        // it would crowd it).
        const int first = static_cast<int>(std::ceil(lo - 1e-9));
        const int last = static_cast<int>(std::floor(hi + 1e-9));
        const int decades = last - first + 1;
        const int step = decades <= count || count < 2 ? 1 : (decades - 1 + count - 2) / (count - 1);
        const auto at = [&](int d) { return Tick{(d - lo) / (hi - lo), powerOfTenText(d)}; };
        for (int d = first; d < last && count >= 2; d += step) {
            if (d != first && last - d < (step + 1) / 2)
                break;
            ticks.push_back(at(d));
        }
        ticks.push_back(at(last));
        return ticks;
    }
    }
    return ticks;
}

void HeatmapView::invalidateCellImage()
{
    cellImageStale_ = true;
    widestTextStale_ = true;
    update();
}

void HeatmapView::ensureCellImage(int width, int height) const
{
    const int rows = rowCount();
    const int cols = columnCount();
    if (rows == 0 || cols == 0) {
        cellImage_ = QImage();
        return;
    }
    if (!cellImageStale_ && cellImage_.size() == QSize(width, height))
        return;
    cellImage_ = QImage(width, height, QImage::Format_RGB32);
    const ScaleRange range = scaleRange(colorMap_, lo_, hi_);
    const bool diverging = colorMap_ == ColorMap::Diverging;
    // The cell at each pixel's centre, read in one go (a source may share
    // the reading among the maps of one result).
    // Zoomed in, only the shown block is read.
    std::vector<int> columnAt = cellsAtPixels(shownColumns(), width);
    std::vector<int> rowAt = cellsAtPixels(shownRows(), height);
    for (int& c : columnAt)
        c += firstShownColumn();
    for (int& r : rowAt)
        r += firstShownRow();
    std::vector<double> values(std::size_t(width) * std::size_t(height));
    cells_->sample(rowAt, columnAt, values.data());
    const double* v = values.data();
    const ColorScale scale = colorScale();
    for (int y = 0; y < height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(cellImage_.scanLine(y));
        if (scale != ColorScale::Linear) {
            const double rowMax = scale == ColorScale::PerRow ? rowMaxAt(rowAt[std::size_t(y)]) : 0.0;
            for (int x = 0; x < width; ++x, ++v)
                line[x] = std::isnan(*v) || isMasked(*v) ? colormap::kMasked : scaledRgb(*v, rowMax);
            continue;
        }
        for (int x = 0; x < width; ++x, ++v) {
            if (std::isnan(*v) || isMasked(*v))
                line[x] = colormap::kMasked;
            else
                line[x] = diverging ? colormap::divergingRgb(*v, range.high)
                                    : colormap::sequentialRgb(*v, range.low, range.high);
        }
    }
    cellImageStale_ = false;
}

void HeatmapView::ensureWidestText() const
{
    if (!widestTextStale_)
        return;
    widestTextStale_ = false;
    widestCellText_.clear();
    const int rows = rowCount();
    const int cols = columnCount();
    if (rows == 0 || cols == 0)
        return;
    double minValue = std::numeric_limits<double>::infinity();
    double maxValue = -std::numeric_limits<double>::infinity();
    bool anyNaN = false;
    std::vector<double> row(static_cast<std::size_t>(cols));
    for (int r = 0; r < rows; ++r) {
        cells_->rowValues(r, row.data());
        for (const double v : row) {
            if (std::isnan(v)) {
                anyNaN = true;
            } else if (!isMasked(v)) {
                minValue = std::min(minValue, v);
                maxValue = std::max(maxValue, v);
            }
        }
    }
    // The printed texts are as wide as their character count in practice
    // (digits share one width), so the longest one decides legibility.
    widestCellText_ = anyNaN ? formatValue(std::numeric_limits<double>::quiet_NaN()) : QString();
    for (const double v : {minValue, maxValue}) {
        if (std::isinf(v))
            continue;
        const QString text = formatValue(v);
        if (text.size() > widestCellText_.size())
            widestCellText_ = text;
    }
}

QString HeatmapView::formatValue(double value) const
{
    if (std::isnan(value))
        return tr("NaN");
    if (std::isinf(value))
        return value < 0 ? QStringLiteral("\u2212\u221e") : QStringLiteral("\u221e");
    QString text = QString::number(value, 'f', decimals_);
    // "-0.00" reads as a sign error; print it as "0.00".
    const auto zeroDigit = [](QChar ch) { return ch == QLatin1Char('0') || ch == QLatin1Char('.'); };
    if (text.startsWith(QLatin1Char('-')) && std::all_of(text.begin() + 1, text.end(), zeroDigit))
        text.remove(0, 1);
    return text;
}

QString HeatmapView::rowLabelAt(int row) const
{
    return rowLabels_.value(row);
}

QString HeatmapView::columnLabelAt(int col) const
{
    return colLabels_.value(col);
}

int HeatmapView::rowAtY(const Layout& l, int y) const
{
    const int i = indexAt(l.cells.top(), l.cells.height(), shownRows(), y);
    return i < 0 ? -1 : i + firstShownRow();
}

int HeatmapView::columnAtX(const Layout& l, int x) const
{
    const int i = indexAt(l.cells.left(), l.cells.width(), shownColumns(), x);
    return i < 0 ? -1 : i + firstShownColumn();
}

QRect HeatmapView::cellRectIn(const Layout& l, int row, int col) const
{
    const int rows = shownRows();
    const int cols = shownColumns();
    row -= firstShownRow();
    col -= firstShownColumn();
    const int x0 = edge(l.cells.left(), l.cells.width(), cols, col);
    const int x1 = edge(l.cells.left(), l.cells.width(), cols, col + 1);
    const int y0 = edge(l.cells.top(), l.cells.height(), rows, row);
    const int y1 = edge(l.cells.top(), l.cells.height(), rows, row + 1);
    return QRect(x0, y0, x1 - x0, y1 - y0);
}

}  // namespace attnlab

namespace attnlab {

void applyWeightsScale(HeatmapView* map, const WeightsScale& scale)
{
    map->setColorScale(scale.scale, scale.logLow);
    map->setScaleCaption(scale.caption);
}

}  // namespace attnlab
