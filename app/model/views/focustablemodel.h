// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The focused query's row of every stage (key, q · k, scaled, softmax) and
// a last row with the weights' sum, read from the session on demand: a
// view asks only for the rows it shows, so a query over thousands of keys
// costs no more than one over ten.

#include <QAbstractTableModel>
#include <QString>

namespace attnlab {

class Session;

class FocusTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit FocusTableModel(Session* session, QObject* parent = nullptr);

    // Shows query `query` of the session's current result.
    void show(int query);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    static constexpr int kColumns = 4;
    // The number a column sorts by: the key's position, or the cell's value
    // (masked scaled scores as -infinity).
    static constexpr int kSortRole = Qt::UserRole;

private:
    Session* session_;
    int rows_ = 0;
    int query_ = 0;
    QString headerDivisor_;
};

}  // namespace attnlab
