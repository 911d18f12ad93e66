// SPDX-License-Identifier: GPL-3.0-or-later
#include "numberdelegate.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>

namespace attnlab {

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
