// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The matrix editors: X, W_q, W_k and W_v as editable tables in tabs, and
// under them the message of a refused edit until it is fixed. A table's
// model follows the session only while the table can be seen (or the window
// is not on screen, see ViewDemand).

#include "session.h"

#include <QList>
#include <QWidget>

class QTableView;

namespace attnlab {

class MatrixTableModel;

class MatrixEditors : public QWidget {
    Q_OBJECT
public:
    // `window`: whose being on screen decides (the editors may float in their dock).
    MatrixEditors(Session* session, QWidget* window);

    // After the window is shown or hidden.
    void updateLiveness();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // a table shown or hidden

private:
    QList<MatrixTableModel*> models_;
    QWidget* window_;
    QList<QTableView*> views_;  // one per model, same order
};

}  // namespace attnlab
