// SPDX-License-Identifier: GPL-3.0-or-later
#include "focustablemodel.h"

#include "displaylabel.h"
#include "focusbars.h"
#include "presentation.h"
#include "session.h"

#include <QFont>

#include <limits>

namespace attnlab {

FocusTableModel::FocusTableModel(Session* session, QObject* parent)
    : QAbstractTableModel(parent), session_(session)
{
}

void FocusTableModel::show(int query)
{
    const int rows = session_->shownResult()->tokens() + 1;
    if (rows != rows_) {
        beginResetModel();
        rows_ = rows;
        query_ = query;
        endResetModel();
        return;
    }
    query_ = query;
    emit dataChanged(index(0, 0), index(rows_ - 1, kColumns - 1));
    // A changed header makes the view measure every section again: only
    // the divisor's column title can change (tooltips are asked for).
    const QString divisor = divisorText(*session_);
    if (divisor != headerDivisor_) {
        headerDivisor_ = divisor;
        emit headerDataChanged(Qt::Horizontal, 2, 2);
    }
}

int FocusTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : rows_;
}

int FocusTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : kColumns;
}

QVariant FocusTableModel::data(const QModelIndex& index, int role) const
{
    const std::shared_ptr<const attn::AttentionResult> shown = session_->shownResult();
    const attn::AttentionResult& r = *shown;
    const int n = r.tokens();
    const int j = index.row();
    const int i = query_;
    if (!index.isValid() || i < 0 || i >= n || j > n)
        return {};
    const bool sumRow = j == n;
    switch (role) {
    case Qt::DisplayRole:
        if (sumRow) {
            if (index.column() == 0)
                return tr("sum");
            return index.column() == 3 ? formatForDisplay(weightRowSum(r, i)) : QString();
        }
        switch (index.column()) {
        case 0:
            return QStringLiteral("%1 %2").arg(j + 1).arg(
                displayLabel(session_->published()->tokens().value(j)));
        case 1: return formatForDisplay(r.scores(i, j));
        case 2: return r.isMasked(i, j) ? tr("masked") : formatForDisplay(r.scaled(i, j));
        case 3: return formatForDisplay(r.weights(i, j));
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == 0 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (sumRow && (index.column() == 0 || index.column() == 3)) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::ToolTipRole:
        if (sumRow && index.column() == 3)
            return tr("The weights of one query always sum to 1.");
        return {};
    case kSortRole:
        // The key column sorts by position (the sentence's order), the
        // others by their numbers; masked scores sort below every score.
        switch (index.column()) {
        case 0: return j;
        case 1: return r.scores(i, j);
        case 2: return r.isMasked(i, j) ? -std::numeric_limits<double>::infinity() : r.scaled(i, j);
        case 3: return r.weights(i, j);
        }
        return {};
    }
    return {};
}

QVariant FocusTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    const int i = query_ + 1;
    const QString divisor = divisorText(*session_);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case 0: return tr("key");
        case 1: return tr("q · k");
        case 2: return tr("÷ %1").arg(divisor);
        case 3: return tr("softmax");
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case 1: return tr("The raw score q_%1 · k_j").arg(i);
        case 2: return tr("The scaled score (q_%1 · k_j) ÷ %2").arg(i).arg(divisor);
        case 3: return tr("The weight a_%1j; the weights sum to 1").arg(i);
        }
    }
    return {};
}

Qt::ItemFlags FocusTableModel::flags(const QModelIndex& index) const
{
    return index.isValid() ? Qt::ItemIsEnabled | Qt::ItemIsSelectable : Qt::NoItemFlags;
}

}  // namespace attnlab
