// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Item views' numbers drawn without a text layout per string (see NumberGlyphs).

#include "numbertext.h"

#include <QStyledItemDelegate>

#include <memory>

namespace attnlab {

// The default item delegate, with numbers drawn by NumberGlyphs.
class NumberDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;

private:
    mutable std::unique_ptr<NumberGlyphs> glyphs_;
};

}  // namespace attnlab
