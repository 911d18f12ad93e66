// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Numbers on screen without a text layout per string.
//
// QPainter::drawText and the item views' default delegate lay out every
// string (script itemisation, shaping, line breaking) on each paint; for the
// hundreds of numbers a d_k step repaints that costs more than everything
// else drawn. A number needs none of it: its glyphs are shaped once per font
// and placed side by side. Anything else (letters, symbols such as −∞, a
// font without the digits) falls back to the usual path. Used for painting
// on screen only; exports keep drawText so that SVG and PDF carry text.

#include <QFont>
#include <QRawFont>

#include <memory>

class QPainter;
class QRectF;

namespace attnlab {

class NumberGlyphs {
public:
    explicit NumberGlyphs(const QFont& font);

    const QFont& font() const { return font_; }
    // Width of `text` drawn by draw(), or -1 when draw() would refuse it.
    qreal advance(const QString& text) const;
    // Draws `text` in `rect` with the given horizontal alignment (left,
    // right or centre), centred vertically; false (nothing drawn) when a
    // character has no cached glyph.
    bool draw(QPainter& painter, const QRectF& rect, const QString& text,
              Qt::Alignment alignment = Qt::AlignHCenter) const;
    bool drawCentred(QPainter& painter, const QRectF& rect, const QString& text) const
    {
        return draw(painter, rect, text, Qt::AlignHCenter);
    }

private:
    // Glyphs and pen positions of `text` (when asked for) and its width; -1
    // when a character has no cached glyph.
    qreal place(const QString& text, QList<quint32>* glyphs, QList<QPointF>* positions) const;

    struct Glyph {
        quint32 glyph = 0;
        qreal advance = 0;
    };
    QFont font_;
    QRawFont raw_;
    Glyph table_[128];
    qreal ascent_ = 0;
    qreal height_ = 0;
    bool valid_ = false;
};

}  // namespace attnlab
