// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmapview.h"

#include "focusframe.h"

#include <QApplication>
#include <QEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// Up to this many rows and columns the size hint leaves room for the values.
constexpr int kLegibleCells = 32;

}  // namespace

HeatmapView::~HeatmapView() = default;

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    renderer_.setFont(font());
}

void HeatmapView::setTitle(const QString& title)
{
    renderer_.setTitle(title);
    // Screen readers announce the map by its title.
    if (!title.isEmpty())
        setAccessibleName(title);
    update();
}

QString HeatmapView::title() const
{
    return renderer_.title();
}

void HeatmapView::setColorMap(ColorMap map)
{
    renderer_.setColorMap(map);
    update();
}

HeatmapView::ColorMap HeatmapView::colorMap() const
{
    return renderer_.colorMap();
}

void HeatmapView::setData(const attn::Matrix& values, const QStringList& rowLabels,
                          const QStringList& colLabels)
{
    setCells(matrixCells(values), rowLabels, colLabels);
}

void HeatmapView::setCells(std::shared_ptr<const CellSource> cells, const QStringList& rowLabels,
                           const QStringList& colLabels)
{
    // A zoomed block stays where it is while it fits (a d_k step keeps it).
    const bool wasZoomed = isZoomed();
    const QRect before = shownBlock();
    renderer_.setCells(std::move(cells), rowLabels, colLabels);
    hoverRow_ = hoverCol_ = -1;
    if (wasZoomed && shownBlock() != before)
        emit shownBlockChanged(shownBlock());
    update();
}

attn::Matrix HeatmapView::values() const
{
    attn::Matrix m(rowCount(), columnCount());
    for (int r = 0; r < m.rows(); ++r)
        renderer_.cells().rowValues(r, m.data() + std::size_t(r) * m.cols());
    return m;
}

double HeatmapView::value(int row, int col) const
{
    return renderer_.cells().value(row, col);
}

int HeatmapView::rowCount() const
{
    return renderer_.rowCount();
}

int HeatmapView::columnCount() const
{
    return renderer_.columnCount();
}

QStringList HeatmapView::rowLabels() const
{
    return renderer_.rowLabels();
}

QStringList HeatmapView::columnLabels() const
{
    return renderer_.columnLabels();
}

QStringList HeatmapView::shownColumnLabels() const
{
    return renderer_.shownColumnLabels(size());
}

void HeatmapView::setRange(double lo, double hi)
{
    renderer_.setRange(lo, hi);
    update();
}

double HeatmapView::rangeLow() const
{
    return renderer_.rangeLow();
}

double HeatmapView::rangeHigh() const
{
    return renderer_.rangeHigh();
}

void HeatmapView::setColorScale(ColorScale scale, double logLow)
{
    renderer_.setColorScale(scale, logLow);
    update();
}

HeatmapView::ColorScale HeatmapView::colorScale() const
{
    return renderer_.colorScale();
}

double HeatmapView::logLow() const
{
    return renderer_.logLow();
}

void HeatmapView::setScaleCaption(const QString& caption)
{
    renderer_.setScaleCaption(caption);
    update();
}

QString HeatmapView::scaleCaption() const
{
    return renderer_.scaleCaption();
}

QStringList HeatmapView::scaleTickTexts() const
{
    return renderer_.scaleTickTexts(size());
}

void HeatmapView::setDecimals(int decimals)
{
    renderer_.setDecimals(decimals);
    update();
}

int HeatmapView::decimals() const
{
    return renderer_.decimals();
}

QRect HeatmapView::shownBlock() const
{
    return renderer_.shownBlock();
}

void HeatmapView::setShownBlock(const QRect& block)
{
    if (!renderer_.setShownBlock(block))
        return;
    hoverRow_ = hoverCol_ = -1;
    update();
    emit shownBlockChanged(shownBlock());
}

bool HeatmapView::isZoomed() const
{
    return renderer_.isZoomed();
}

void HeatmapView::resetZoom()
{
    setShownBlock(QRect());
}

void HeatmapView::setFocusRow(int row)
{
    if (!renderer_.setFocusRow(row))
        return;
    const int focus = renderer_.focusRow();
    const QRect b = shownBlock();
    if (isZoomed() && focus >= 0 && (focus < b.top() || focus > b.bottom()))
        panBy(focus < b.top() ? focus - b.top() : focus - b.bottom(), 0);
    update();
}

int HeatmapView::focusRow() const
{
    return renderer_.focusRow();
}

void HeatmapView::setToolTipProvider(std::function<QString(int row, int col)> provider)
{
    toolTipProvider_ = std::move(provider);
}

QColor HeatmapView::colorFor(double value) const
{
    return renderer_.colorFor(value);
}

QColor HeatmapView::cellColor(int row, int col) const
{
    return renderer_.cellColor(row, col);
}

bool HeatmapView::cellAt(const QPoint& pos, int* row, int* col) const
{
    const int r = renderer_.rowAt(size(), pos.y());
    const int c = renderer_.columnAt(size(), pos.x());
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
    return renderer_.cellRect(size(), row, col);
}

QRect HeatmapView::cellsArea() const
{
    return renderer_.layout(size()).cells;
}

bool HeatmapView::cellTextVisible() const
{
    return renderer_.layout(size()).cellText;
}

bool HeatmapView::cellImageMode() const
{
    return renderer_.layout(size()).imageMode;
}

HeatmapStyle HeatmapView::screenStyle() const
{
    return HeatmapStyle::fromPalette(palette(), true);
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
    renderer_.paint(painter, size, HeatmapStyle::fromPalette(palette()));
    return image;
}

void HeatmapView::renderTo(QPainter& painter, const QSize& size) const
{
    renderer_.paint(painter, size, HeatmapStyle::fromPalette(palette()));
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
    const int cellW = std::max(fm.height(), small ? fm.horizontalAdvance(renderer_.widestCellText()) : 0) + 8;
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
    renderer_.paint(painter, size(), screenStyle());
    // Keyboard focus (Up/Down then move the focused query).
    if (hasFocus())
        drawFocusFrame(painter, *this);
}

void HeatmapView::changeEvent(QEvent* event)
{
    switch (event->type()) {
    case QEvent::FontChange:
    case QEvent::StyleChange:
        renderer_.setFont(font());
        update();
        updateGeometry();
        break;
    case QEvent::PaletteChange: update(); break;
    default: break;
    }
    QWidget::changeEvent(event);
}

void HeatmapView::mouseMoveEvent(QMouseEvent* event)
{
    if (pressRow_ >= 0 && (event->buttons() & Qt::LeftButton)) {
        const QPoint delta = event->position().toPoint() - pressPos_;
        if (!dragging_ && delta.manhattanLength() >= QApplication::startDragDistance())
            dragging_ = true;
        if (dragging_) {
            // The block follows the pointer, a cell per cell width moved.
            const QRect cells = renderer_.layout(size()).cells;
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
    const HeatmapLayout& l = renderer_.layout(size());
    const int row = renderer_.rowAt(size(), pos.y());
    const bool onCell = row >= 0 && renderer_.columnAt(size(), pos.x()) >= 0;
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
    const HeatmapLayout& l = renderer_.layout(size());
    if (event->modifiers() & Qt::ControlModifier) {
        // 1.25 per notch, about the cell under the pointer.
        const QPoint pos = event->position().toPoint();
        const QRect b = shownBlock();
        const int row = renderer_.rowAt(size(), std::clamp(pos.y(), l.cells.top(), l.cells.bottom()));
        const int col = renderer_.columnAt(size(), std::clamp(pos.x(), l.cells.left(), l.cells.right()));
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
                       .arg(renderer_.rowLabels().value(row), renderer_.columnLabels().value(col),
                            renderer_.formatValue(renderer_.cells().value(row, col)));
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

void applyWeightsScale(HeatmapView* map, const WeightsScale& scale)
{
    map->setColorScale(scale.scale, scale.logLow);
    map->setScaleCaption(scale.caption);
}

}  // namespace attnlab
