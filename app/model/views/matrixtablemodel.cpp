// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrixtablemodel.h"

#include "displaylabel.h"
#include "presentation.h"

#include <QColor>

namespace attnlab {

MatrixTableModel::MatrixTableModel(Session* session, MatrixId which, QObject* parent)
    : QAbstractTableModel(parent), session_(session), which_(which)
{
    const attn::Matrix& m = session_->inputs().matrix(which_);
    rows_ = int(m.rows());
    cols_ = int(m.cols());
    connect(session_, &Session::modelRedrawn, this, [this] {
        // A reset makes every view re-lay out its headers; a matrix that
        // keeps its shape (X and W_v on a d_k step) only has new values,
        // which resultChanged announces next.
        const attn::Matrix& m = session_->inputs().matrix(which_);
        if (int(m.rows()) == rows_ && int(m.cols()) == cols_)
            return;
        setRefusal(-1, -1, QString());  // its cell may be gone
        if (!live_) {
            stale_ = true;
            return;
        }
        beginResetModel();
        rows_ = int(m.rows());
        cols_ = int(m.cols());
        endResetModel();
    });
    connect(session_, &Session::resultChanged, this, &MatrixTableModel::onResultChanged);
}

void MatrixTableModel::setLive(bool live)
{
    if (live == live_)
        return;
    live_ = live;
    if (!live_ || !stale_)
        return;
    stale_ = false;
    beginResetModel();
    const attn::Matrix& m = session_->inputs().matrix(which_);
    rows_ = int(m.rows());
    cols_ = int(m.cols());
    endResetModel();
}

void MatrixTableModel::onResultChanged()
{
    if (!live_) {
        stale_ = true;
        return;
    }
    if (rows_ > 0 && cols_ > 0)
        emit dataChanged(index(0, 0), index(rows_ - 1, cols_ - 1), {Qt::DisplayRole, Qt::EditRole});
}

int MatrixTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : rows_;
}

int MatrixTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : cols_;
}

QVariant MatrixTableModel::data(const QModelIndex& index, int role) const
{
    const attn::Matrix& m = session_->inputs().matrix(which_);
    if (!index.isValid() || index.row() >= m.rows() || index.column() >= m.cols())
        return {};
    const double value = m(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole: return formatForDisplay(value);
    // Text, so that the editor is a line edit taking any input; the session
    // judges it. 17 significant digits give the double back exactly.
    case Qt::EditRole: return QString::number(value, 'g', 17);
    case Qt::BackgroundRole:
        if (index.row() == refusedRow_ && index.column() == refusedCol_)
            return QColor(220, 40, 40, 90);  // a red tint over light and dark bases alike
        return {};
    case Qt::ToolTipRole:
        if (index.row() == refusedRow_ && index.column() == refusedCol_)
            return refusal_;
        return tr("%1(%2, %3) = %4")
            .arg(matrixName(which_))
            .arg(index.row() + 1)
            .arg(index.column() + 1)
            .arg(QString::number(value, 'g', 17));
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
}

bool MatrixTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || role != Qt::EditRole)
        return false;
    // A number arriving as a double is judged like typed text, so both paths
    // give the same refusals.
    const QString text =
        value.typeId() == QMetaType::QString ? value.toString() : QString::number(value.toDouble(), 'g', 17);
    const attn::Status status = session_->setMatrixCellText(which_, index.row(), index.column(), text);
    if (status)
        setRefusal(-1, -1, QString());
    else
        setRefusal(index.row(), index.column(), QString::fromStdString(status.error().message));
    return status.ok();
}

QModelIndex MatrixTableModel::refusedCell() const
{
    return refusedRow_ < 0 ? QModelIndex() : index(refusedRow_, refusedCol_);
}

void MatrixTableModel::setRefusal(int row, int col, const QString& message)
{
    if (row == refusedRow_ && col == refusedCol_ && message == refusal_)
        return;
    const QModelIndex old = refusedCell();
    refusedRow_ = row;
    refusedCol_ = col;
    refusal_ = message;
    const QList<int> roles = {Qt::BackgroundRole, Qt::ToolTipRole};
    if (old.isValid() && old.row() < rows_ && old.column() < cols_)
        emit dataChanged(old, old, roles);
    if (row >= 0 && row < rows_ && col < cols_)
        emit dataChanged(index(row, col), index(row, col), roles);
    emit refusalChanged(message);
}

Qt::ItemFlags MatrixTableModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable;
}

QVariant MatrixTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    const bool tokenRows = which_ == MatrixId::X && orientation == Qt::Vertical;
    if (tokenRows) {
        const QStringList tokens = session_->published()->tokens();
        const QString token = section < tokens.size() ? displayLabel(tokens[section]) : QString();
        if (role == Qt::ToolTipRole)
            return tr("Row %1: the embedding x_%1 of token \"%2\"").arg(section + 1).arg(token);
        return QStringLiteral("%1 %2").arg(section + 1).arg(token);
    }
    // A borrowed GPT-2 head: X's last column is ones, W's last row the bias.
    const bool biasColumn = orientation == Qt::Horizontal && which_ == MatrixId::X;
    const bool biasRow = orientation == Qt::Vertical && which_ != MatrixId::X;
    if (session_->inputs().borrowed.active() && (biasColumn || biasRow)
        && section == session_->inputs().matrix(MatrixId::X).cols() - 1) {
        if (role == Qt::ToolTipRole)
            return biasColumn ? tr("The bias column: ones, so that X W adds W's last row, the head's bias")
                              : tr("The head's bias (c_attn's bias, this head's columns)");
        return tr("bias");
    }
    if (role == Qt::ToolTipRole) {
        if (orientation == Qt::Horizontal && which_ == MatrixId::X)
            return tr("Embedding dimension %1 (of d_model)").arg(section + 1);
        if (orientation == Qt::Vertical)
            return tr("Input dimension %1 (of d_model)").arg(section + 1);
        return which_ == MatrixId::Wv ? tr("Output dimension %1 (of d_v)").arg(section + 1)
                                      : tr("Output dimension %1 (of d_k)").arg(section + 1);
    }
    return QString::number(section + 1);
}

}  // namespace attnlab
