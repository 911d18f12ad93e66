// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One row per query (token, largest weight, the key it goes to, entropy,
// exp H), read from the session's statistics when the view asks (only the
// rows on screen), so thousands of queries cost no more than ten.

#include <QAbstractTableModel>

namespace attnlab {

class Session;

class StatisticsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit StatisticsTableModel(Session* session, QObject* parent = nullptr);

    // The session's statistics changed.
    void refresh();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    static constexpr int kColumns = 5;

private:
    Session* session_;
    int rows_ = 0;
};

}  // namespace attnlab
