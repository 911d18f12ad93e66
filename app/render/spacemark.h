// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A token's label with its visible-space mark "␣" (U+2423, a leading space:
// "␣cat") drawn as a bracket of lines sized to the font. The font's own
// glyph is a few pixels of ink at the foot of its advance: at 9 pt on a
// small page it read as ",,". The bracket takes the glyph's advance, so a
// label measures and elides as its text does.

#include <QPointF>
#include <QRectF>
#include <QString>

class QFontMetricsF;
class QPainter;

namespace attnlab {

// The mark's shape within one advance: left tick, base, right tick, the
// base on `baseline` (painter coordinates), `left` the advance's left edge.
struct SpaceMarkShape {
    QPointF points[4];
    double penWidth = 1.0;
};
SpaceMarkShape spaceMarkShape(const QFontMetricsF& fm, double left, double baseline);

// `label` drawn in the painter's font and pen, every "␣" as the bracket,
// the rest as text: left edge at `left`, on `baseline`.
void drawSpaceMarkedText(QPainter& painter, const QFontMetricsF& fm, double left, double baseline,
                         const QString& label);

// `label` placed in `box` as QPainter::drawText(box, flags, label) places
// it (`flags`: the alignment, and Qt::TextDontClip), and clipped to `box`
// where drawText clips: when the label's line does not fit in the box.
void drawSpaceMarkedLabel(QPainter& painter, const QFontMetricsF& fm, const QRectF& box, const QString& label,
                          int flags = Qt::AlignRight | Qt::AlignVCenter);

// Whether `text` holds a visible-space mark.
bool hasSpaceMark(const QString& text);

// What every token label is drawn with: painter.drawText(box, flags, text)
// itself when the text has no mark, else drawSpaceMarkedLabel in the
// painter's font, measured on its device.
void drawTokenText(QPainter& painter, const QRectF& box, int flags, const QString& text);

}  // namespace attnlab
