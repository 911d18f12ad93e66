// SPDX-License-Identifier: GPL-3.0-or-later
#include "numbertext.h"

#include <QFontMetricsF>
#include <QGlyphRun>
#include <QPainter>

#include <cstdlib>

namespace attnlab {

NumberGlyphs::NumberGlyphs(const QFont& font) : font_(font), raw_(QRawFont::fromFont(font))
{
    const QString chars = QStringLiteral("0123456789.-+e");
    if (!raw_.isValid())
        return;
    const QList<quint32> glyphs = raw_.glyphIndexesForString(chars);
    if (glyphs.size() != chars.size())
        return;
    const QList<QPointF> advances = raw_.advancesForGlyphIndexes(glyphs);
    for (qsizetype i = 0; i < chars.size(); ++i) {
        if (glyphs[i] == 0)
            return;  // the font lacks a digit: drawText instead
        table_[chars[i].unicode()] = {glyphs[i], advances[i].x()};
    }
    const QFontMetricsF fm(font);
    ascent_ = fm.ascent();
    height_ = fm.height();
    valid_ = true;
}

qreal NumberGlyphs::place(const QString& text, QList<quint32>* glyphs, QList<QPointF>* positions) const
{
    if (!valid_ || text.isEmpty() || text.size() > 64)
        return -1;
    qreal x = 0;
    for (const QChar ch : text) {
        const ushort u = ch.unicode();
        if (u >= 128 || table_[u].advance == 0)
            return -1;
        if (glyphs) {
            glyphs->append(table_[u].glyph);
            positions->append(QPointF(x, 0));
        }
        x += table_[u].advance;
    }
    return x;
}

qreal NumberGlyphs::advance(const QString& text) const
{
    return place(text, nullptr, nullptr);
}

bool NumberGlyphs::draw(QPainter& painter, const QRectF& rect, const QString& text,
                        Qt::Alignment alignment) const
{
    QList<quint32> glyphs;
    QList<QPointF> positions;
    glyphs.reserve(text.size());
    positions.reserve(text.size());
    const qreal x = place(text, &glyphs, &positions);
    if (x < 0)
        return false;
    QGlyphRun run;
    run.setRawFont(raw_);
    run.setGlyphIndexes(glyphs);
    run.setPositions(positions);
    qreal left = rect.left() + (rect.width() - x) / 2;
    if (alignment & Qt::AlignLeft)
        left = rect.left();
    else if (alignment & Qt::AlignRight)
        left = rect.right() - x;
    painter.drawGlyphRun(QPointF(left, rect.top() + (rect.height() - height_) / 2 + ascent_), run);
    return true;
}

}  // namespace attnlab
