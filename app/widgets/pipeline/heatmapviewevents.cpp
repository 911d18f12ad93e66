// SPDX-License-Identifier: GPL-3.0-or-later
// HeatmapView's input: hover, click and drag, the wheel, the keys, tool tips,
// and the zoom and pan they ask for. Defined apart from heatmapview.cpp (the
// view's data, geometry queries and painting) because input is the other half
// of the widget; both act on the one renderer and shown block, so the class
// stays whole.
#include "heatmapview.h"

#include <QApplication>
#include <QEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace attnlab {

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

}  // namespace attnlab
