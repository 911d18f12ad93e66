// SPDX-License-Identifier: GPL-3.0-or-later
#include "focusframe.h"

#include <QPainter>
#include <QPen>
#include <QWidget>

namespace attnlab {

void drawFocusFrame(QPainter& painter, const QWidget& widget)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setPen(
        QPen(widget.palette().color(QPalette::Highlight), 2, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
    painter.setBrush(Qt::NoBrush);
    // A 2-pixel pen centred on the line: inset by one to stay inside.
    painter.drawRect(widget.rect().adjusted(1, 1, -1, -1));
    painter.restore();
}

}  // namespace attnlab
