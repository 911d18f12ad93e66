// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a teacher reads off the maps, from the session's statistics: the
// variance of the raw and the scaled scores, and per query the largest
// weight, the entropy and the effective number of attended tokens exp(H).

#include <QStringList>
#include <QWidget>

class QLabel;
class QTableView;

namespace attnlab {

class Session;
class StatisticsTableModel;

class StatisticsPanel : public QWidget {
    Q_OBJECT
public:
    explicit StatisticsPanel(Session* session, QWidget* parent = nullptr);

private:
    void refresh();
    void sizeColumns();

    Session* session_;
    QLabel* rawVariance_;
    QLabel* scaledVariance_;
    QLabel* meanMax_;
    QLabel* meanEntropy_;
    QTableView* table_;
    StatisticsTableModel* model_;
    QStringList sizedFor_;  // the tokens the columns were sized for
};

}  // namespace attnlab
