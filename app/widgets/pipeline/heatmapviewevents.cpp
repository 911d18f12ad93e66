// SPDX-License-Identifier: GPL-3.0-or-later
// HeatmapView's input: hover, click and drag, the wheel, the keys, tool tips,
// and the zoom and pan they ask for. Defined apart from heatmapview.cpp (the
// view's data, geometry queries and painting) because input is the other half
// of the widget; both act on the one renderer and shown block, so the class
// stays whole.
#include "heatmapview.h"

#include "heatmapnavigation.h"

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
            setShownBlock(draggedBlock(pressBlock_, delta, renderer_.layout(size()).cells.size()));
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
    const QPoint pan = wheelPan(shownBlock(), angle, event->modifiers() & Qt::ShiftModifier);
    panBy(pan.y(), pan.x());
    event->accept();
}

void HeatmapView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(1.5); break;
    case Qt::Key_Minus: zoomBy(1 / 1.5); break;
    case Qt::Key_0: resetZoom(); break;
    default: {
        const QPoint pan = isZoomed()
                               ? keyPan(shownBlock(), event->key(), event->modifiers() & Qt::ShiftModifier)
                               : QPoint();
        if (pan.isNull()) {
            QWidget::keyPressEvent(event);  // plain Up/Down move the focused query (the window's filter)
            return;
        }
        panBy(pan.y(), pan.x());
    }
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
    setShownBlock(zoomedBlock(shownBlock(), rowCount(), columnCount(), factor, row, col));
}

void HeatmapView::panBy(int rows, int cols)
{
    if (isZoomed())
        setShownBlock(shownBlock().translated(cols, rows));
}

}  // namespace attnlab
