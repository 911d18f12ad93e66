// SPDX-License-Identifier: GPL-3.0-or-later
#include "statisticstablemodel.h"

#include "displaylabel.h"
#include "presentation.h"
#include "session.h"

namespace attnlab {

StatisticsTableModel::StatisticsTableModel(Session* session, QObject* parent)
    : QAbstractTableModel(parent), session_(session)
{
}

void StatisticsTableModel::refresh()
{
    const int rows = int(session_->published()->stats().rows.size());
    if (rows != rows_) {
        beginResetModel();
        rows_ = rows;
        endResetModel();
    } else if (rows_ > 0) {
        emit dataChanged(index(0, 0), index(rows_ - 1, kColumns - 1));
    }
}

int StatisticsTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : rows_;
}

int StatisticsTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : kColumns;
}

QVariant StatisticsTableModel::data(const QModelIndex& index, int role) const
{
    const attn::AttentionStats& s = session_->published()->stats();
    const int i = index.row();
    if (!index.isValid() || i >= int(s.rows.size()))
        return {};
    const attn::RowStats& row = s.rows[std::size_t(i)];
    const QStringList tokens = session_->published()->labels();
    const QString query = tokens.value(i);
    const QString key = tokens.value(row.argMax);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case 0:
            return QStringLiteral("%1 %2").arg(i + 1).arg(
                displayLabel(session_->published()->tokens().value(i)));
        case 1: return QString::number(row.maxWeight, 'f', 3);
        case 2: return key;
        case 3: return QString::number(row.entropyNats, 'f', 3);
        case 4: return QString::number(row.effectiveTokens, 'f', 2);
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == 0 || index.column() == 2 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                          : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (index.column() == 1 || index.column() == 2)
            return tr("Query \"%1\" gives its largest weight %2 to \"%3\".")
                .arg(query, formatForDisplay(row.maxWeight), key);
        return {};
    }
    return {};
}

QVariant StatisticsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case 0: return tr("query");
        case 1: return tr("max a");
        case 2: return tr("to key");
        case 3: return tr("H (nats)");
        case 4: return tr("exp H");
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case 0: return tr("The query token (a row of the maps).");
        case 1: return tr("The largest weight of the query.");
        case 2: return tr("The key the largest weight goes to.");
        case 3:
            return tr(
                "Entropy H = −Σ_j a_ij ln a_ij of the query's "
                "weights: 0 when it attends to one token.");
        case 4:
            return tr(
                "Effective number of attended tokens exp(H): "
                "1 for one token, n for uniform weights.");
        }
    }
    return {};
}

Qt::ItemFlags StatisticsTableModel::flags(const QModelIndex& index) const
{
    return index.isValid() ? Qt::ItemIsEnabled | Qt::ItemIsSelectable : Qt::NoItemFlags;
}

}  // namespace attnlab
