// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One of the session's input matrices (X, W_q, W_k or W_v) as an editable
// table. Rows of X are tokens, its columns embedding dimensions; rows of a
// weight matrix are embedding dimensions, its columns output dimensions.
// A typed value goes to Session::setMatrixCellText, which refuses text that
// is not a finite number (the old value stays, the session says why). The
// refusal stays with the cell (tinted, its tooltip the message, and
// refusal() for a label under the table) until a later edit of the matrix is
// taken or the matrix changes shape.

#include "session.h"

#include <QAbstractTableModel>

namespace attnlab {

class MatrixTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    MatrixTableModel(Session* session, MatrixId which, QObject* parent = nullptr);

    // A model whose view is off screen (its dock hidden or its tab not
    // current) stops announcing changes, which would make the view rebuild
    // its headers on every d_k step; made live again, it announces one reset
    // with everything that changed meanwhile. Live by default.
    void setLive(bool live);
    bool isLive() const { return live_; }

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The message of the last refused edit, empty when none stands.
    QString refusal() const { return refusal_; }
    QModelIndex refusedCell() const;

signals:
    void refusalChanged(const QString& message);

private:
    void onResultChanged();
    void setRefusal(int row, int col, const QString& message);

    Session* session_;
    MatrixId which_;
    int rows_ = 0;  // the shape last announced to views
    int cols_ = 0;
    bool live_ = true;
    bool stale_ = false;  // changes not announced while not live
    int refusedRow_ = -1;
    int refusedCol_ = -1;
    QString refusal_;
};

}  // namespace attnlab
