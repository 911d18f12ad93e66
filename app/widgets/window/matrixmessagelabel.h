// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Under the matrix tables: the refusal of the last edit that was not taken
// ("W_q(2, 3): "3,5" is not a number: ..."), shown until a later edit of
// that matrix is taken (see MatrixTableModel::refusal). Hidden while no
// refusal stands.

#include <QLabel>
#include <QList>

namespace attnlab {

class MatrixTableModel;

class MatrixMessageLabel : public QLabel {
    Q_OBJECT
public:
    explicit MatrixMessageLabel(QWidget* parent = nullptr);

    void watch(MatrixTableModel* model);

private:
    void update(MatrixTableModel* changed);

    QList<MatrixTableModel*> models_;
    MatrixTableModel* shown_ = nullptr;  // whose refusal is on display
};

}  // namespace attnlab
