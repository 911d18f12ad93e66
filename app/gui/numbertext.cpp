// SPDX-License-Identifier: GPL-3.0-or-later
#include "numbertext.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QGlyphRun>
#include <QPainter>
#include <QStyle>

#include <cstdlib>

namespace attnlab {

QString powerOfTenText(int exponent)
{
    if (exponent == 0)
        return QStringLiteral("1");
    static const char16_t digits[] = {u'\u2070', u'\u00b9', u'\u00b2', u'\u00b3', u'\u2074',
                                      u'\u2075', u'\u2076', u'\u2077', u'\u2078', u'\u2079'};
    QString text = QStringLiteral("10");
    if (exponent < 0)
        text += QChar(u'\u207b');
    for (const QChar ch : QString::number(std::abs(exponent)))
        text += QChar(digits[ch.digitValue()]);
    return text;
}

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

void NumberDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                           const QModelIndex& index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    if (!(opt.features & QStyleOptionViewItem::HasDisplay) || opt.text.isEmpty()
        || (opt.features & QStyleOptionViewItem::HasDecoration)) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    if (!glyphs_ || glyphs_->font() != opt.font)
        glyphs_ = std::make_unique<NumberGlyphs>(opt.font);
    const QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
    // The text rectangle of a plain item (no icon, no check box): the cell
    // less the style's text margin. (Asking the style for it lays the text
    // out, which is the cost this delegate avoids.)
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, opt.widget) + 1;
    const QRectF inner = QRectF(opt.rect).adjusted(margin, 0, -margin, 0);
    const qreal width = glyphs_->advance(opt.text);
    if (width < 0 || width > inner.width() || (opt.features & QStyleOptionViewItem::HasCheckIndicator)) {
        // Not a number, or one that needs eliding: the usual way.
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // The item's panel (background, selection), the number, the focus frame.
    painter->save();
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, opt.widget);
    const QPalette::ColorGroup group = !(opt.state & QStyle::State_Enabled) ? QPalette::Disabled
                                       : (opt.state & QStyle::State_Active) ? QPalette::Normal
                                                                            : QPalette::Inactive;
    painter->setPen(opt.palette.color(
        group, (opt.state & QStyle::State_Selected) ? QPalette::HighlightedText : QPalette::Text));
    painter->setFont(opt.font);
    glyphs_->draw(*painter, inner, opt.text, opt.displayAlignment);
    if (opt.state & QStyle::State_HasFocus) {
        QStyleOptionFocusRect focus;
        focus.QStyleOption::operator=(opt);
        focus.rect = opt.rect;
        focus.state |= QStyle::State_KeyboardFocusChange | QStyle::State_Item;
        focus.backgroundColor = opt.palette.color(
            group, (opt.state & QStyle::State_Selected) ? QPalette::Highlight : QPalette::Window);
        style->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, painter, opt.widget);
    }
    painter->restore();
}

}  // namespace attnlab
