// SPDX-License-Identifier: GPL-3.0-or-later
#include "spacemark.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace attnlab {

namespace {

constexpr char16_t kSpaceMark = 0x2423;

}  // namespace

SpaceMarkShape spaceMarkShape(const QFontMetricsF& fm, double left, double baseline)
{
    // Most of the advance wide, half the x-height high: a bracket that reads
    // as one at any size, its ticks at least 2 px.
    const double advance = fm.horizontalAdvance(QChar(kSpaceMark));
    const double inset = 0.12 * advance;
    const double height = std::max(2.0, 0.55 * fm.xHeight());
    SpaceMarkShape s;
    s.penWidth = std::max(1.0, fm.height() / 16.0);
    const double base = baseline - s.penWidth / 2;
    s.points[0] = QPointF(left + inset, base - height);
    s.points[1] = QPointF(left + inset, base);
    s.points[2] = QPointF(left + advance - inset, base);
    s.points[3] = QPointF(left + advance - inset, base - height);
    return s;
}

void drawSpaceMarkedText(QPainter& painter, const QFontMetricsF& fm, double left, double baseline,
                         const QString& label)
{
    double x = left;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= label.size(); ++i) {
        if (i < label.size() && label[i] != QChar(kSpaceMark))
            continue;
        const QString run = label.mid(start, i - start);
        if (!run.isEmpty()) {
            painter.drawText(QPointF(x, baseline), run);
            x += fm.horizontalAdvance(run);
        }
        if (i < label.size()) {
            const SpaceMarkShape s = spaceMarkShape(fm, x, baseline);
            painter.save();
            painter.setPen(
                QPen(painter.pen().color(), s.penWidth, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
            painter.setBrush(Qt::NoBrush);
            painter.drawPolyline(s.points, 4);
            painter.restore();
            x += fm.horizontalAdvance(QChar(kSpaceMark));
        }
        start = i + 1;
    }
}

void drawSpaceMarkedLabel(QPainter& painter, const QFontMetricsF& fm, const QRectF& box, const QString& label,
                          int flags)
{
    // One line, placed as QPainter's text layout places it: its width the
    // advance, its height ascent + descent.
    const double width = fm.horizontalAdvance(label);
    const double height = fm.ascent() + fm.descent();
    double left = box.left();
    if (flags & Qt::AlignRight)
        left = box.right() - width;
    else if (flags & Qt::AlignHCenter)
        left = box.left() + (box.width() - width) / 2;
    double top = box.top();
    if (flags & Qt::AlignBottom)
        top = box.bottom() - height;
    else if (flags & Qt::AlignVCenter)
        top = box.top() + (box.height() - height) / 2;
    const bool clip = !(flags & Qt::TextDontClip) && !box.contains(QRectF(left, top, width, height));
    if (clip) {
        painter.save();
        painter.setClipRect(box, Qt::IntersectClip);
    }
    drawSpaceMarkedText(painter, fm, left, top + fm.ascent(), label);
    if (clip)
        painter.restore();
}

bool hasSpaceMark(const QString& text)
{
    return text.contains(QChar(kSpaceMark));
}

void drawTokenText(QPainter& painter, const QRectF& box, int flags, const QString& text)
{
    if (!hasSpaceMark(text)) {
        painter.drawText(box, flags, text);
        return;
    }
    drawSpaceMarkedLabel(painter, QFontMetricsF(painter.font(), painter.device()), box, text, flags);
}

}  // namespace attnlab
