// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Sorts FocusTableModel's keys by a column (its kSortRole); the sum row
// stays last in either order, ties keep the sentence's order.

#include <QSortFilterProxyModel>

namespace attnlab {

class FocusSortModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

}  // namespace attnlab
