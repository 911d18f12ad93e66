// SPDX-License-Identifier: GPL-3.0-or-later
#include "focussortmodel.h"

#include "focustablemodel.h"

namespace attnlab {

bool FocusSortModel::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const int last = sourceModel()->rowCount() - 1;
    const bool leftSum = left.row() == last;
    const bool rightSum = right.row() == last;
    if (leftSum || rightSum) {
        // Descending order reverses lessThan: the sum is then "smallest".
        const bool ascending = sortOrder() == Qt::AscendingOrder;
        return leftSum ? !ascending && !rightSum : ascending;
    }
    const double a = left.data(FocusTableModel::kSortRole).toDouble();
    const double b = right.data(FocusTableModel::kSortRole).toDouble();
    if (a != b)
        return a < b;
    return left.row() < right.row();  // ties in the sentence's order
}

}  // namespace attnlab
