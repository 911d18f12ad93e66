#pragma once
// What a teacher reads off the maps, from the session's statistics: the
// variance of the raw and the scaled scores, and per query the largest
// weight, the entropy and the effective number of attended tokens exp(H).

#include <QWidget>

class QLabel;
class QTableWidget;

namespace attnlab {

class Session;

class StatisticsPanel : public QWidget {
    Q_OBJECT
public:
    explicit StatisticsPanel(Session* session, QWidget* parent = nullptr);

    QTableWidget* table() const { return table_; }

private:
    void refresh();

    Session* session_;
    QLabel* rawVariance_;
    QLabel* scaledVariance_;
    QLabel* means_;
    QTableWidget* table_;
};

}  // namespace attnlab
