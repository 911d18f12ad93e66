// SPDX-License-Identifier: GPL-3.0-or-later
#include "tokenitemdelegate.h"

#include "spacemark.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>

namespace attnlab {

void TokenItemDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const
{
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    if (!hasSpaceMark(opt.text)) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    const QString text = opt.text;
    opt.text.clear();  // the style draws the cell without it
    const QWidget* widget = opt.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    // The text's room as the style gives it, less the margin it keeps.
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    const QRect room =
        style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget).adjusted(margin, 0, -margin, 0);
    const QPalette::ColorGroup group = !(opt.state & QStyle::State_Enabled) ? QPalette::Disabled
                                       : (opt.state & QStyle::State_Active) ? QPalette::Normal
                                                                            : QPalette::Inactive;
    const bool selected = opt.state & QStyle::State_Selected;
    painter->save();
    painter->setFont(opt.font);
    painter->setPen(opt.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text));
    painter->setClipRect(opt.rect);
    // Line by line (the lens's token over its probability), the block
    // placed as the alignment says.
    // (The view's display text holds a line break as U+2028.)
    const QStringList lines =
        QString(text).replace(QChar::LineSeparator, QLatin1Char('\n')).split(QLatin1Char('\n'));
    const QFontMetrics fm(opt.font);
    const int height = int(lines.size()) * fm.lineSpacing();
    int top = room.top();
    if (opt.displayAlignment & Qt::AlignVCenter)
        top = room.top() + (room.height() - height) / 2;
    else if (opt.displayAlignment & Qt::AlignBottom)
        top = room.bottom() + 1 - height;
    const int horizontal = int(QStyle::visualAlignment(opt.direction, opt.displayAlignment)
                               & (Qt::AlignLeft | Qt::AlignRight | Qt::AlignHCenter));
    for (int i = 0; i < lines.size(); ++i) {
        const QRect line(room.left(), top + i * fm.lineSpacing(), room.width(), fm.lineSpacing());
        const QString shown = fm.elidedText(lines[i], opt.textElideMode, line.width());
        drawTokenText(*painter, line, horizontal | Qt::AlignVCenter, shown);
    }
    painter->restore();
}

}  // namespace attnlab
