// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Table cells that hold token labels ("␣cat", or "␣cat\n96.6 %" in the
// logit lens) drawn with the visible-space mark as the bracket of lines the
// painted views use (spacemark.h), where the font's own "␣" is a few pixels
// that read as ",,". The cell's background, selection and focus are the
// style's, as for any cell; a text without the mark is drawn as Qt draws it.

#include <QStyledItemDelegate>

namespace attnlab {

class TokenItemDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
};

}  // namespace attnlab
