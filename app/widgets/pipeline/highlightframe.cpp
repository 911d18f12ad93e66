// SPDX-License-Identifier: GPL-3.0-or-later
#include "highlightframe.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace attnlab {

HighlightFrame::HighlightFrame(int border, int radius, QWidget* parent)
    : QFrame(parent), border_(border), radius_(radius)
{
    setFrameShape(QFrame::NoFrame);
    setContentsMargins(border, border, border, border);
}

void HighlightFrame::setHighlighted(bool on)
{
    if (on == highlighted_)
        return;
    highlighted_ = on;
    update();
}

void HighlightFrame::paintEvent(QPaintEvent* event)
{
    QFrame::paintEvent(event);
    if (!highlighted_)
        return;
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    // The ring between the outer rounded rectangle and the inner one: its
    // straight sides are whole pixels of the highlight colour.
    QPainterPath ring;
    const QRectF outer = QRectF(rect());
    ring.addRoundedRect(outer, radius_, radius_);
    const double inner = std::max(0, radius_ - border_);
    ring.addRoundedRect(outer.adjusted(border_, border_, -border_, -border_), inner, inner);
    ring.setFillRule(Qt::OddEvenFill);
    painter.fillPath(ring, palette().color(QPalette::Highlight));
}

}  // namespace attnlab
