// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One query walked through as in the lesson (the article's query_2): its
// vector q_i, its dot product with every key (bars), the scaled scores, the
// softmax weights with their sum, and the context vector z_i = Σ_j a_ij v_j
// built from the value vectors. Shows the session's numbers, computes none.

#include <QStringList>
#include <QVector>
#include <QWidget>

#include <vector>

class QCPBars;
class QCustomPlot;
class QLabel;
class QTableView;

namespace attn {
struct AttentionResult;
}

namespace attnlab {

class FocusSortModel;
class FocusTableModel;
class HeatmapView;
class Session;

class FocusPanel : public QWidget {
    Q_OBJECT
public:
    explicit FocusPanel(Session* session, QWidget* parent = nullptr);

    void setQuery(int query);
    int query() const { return query_; }

    // The heights of the bars as drawn, in key order.
    QVector<double> scoreBarValues() const;
    QVector<double> weightBarValues() const;
    QCustomPlot* plot() const { return plot_; }

protected:
    void changeEvent(QEvent* event) override;  // palette changes restyle the plot
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();
    void stylePlot();
    void updateTickRotation();
    // Each axis's label in full where it fits in the plot, else in short
    // (the plot's edges clip a longer one).
    void fitAxisLabels();
    int axisWidth() const;    // the axis rectangle's, or an estimate before the first layout
    int barsThatFit() const;  // bars across the plot's width, at most kMaxFocusBars
    void updateTicks();       // the labelled keys, for the tokens and the plot's width
    // w: the query's weights (n values).
    QString mixingText(const attn::AttentionResult& r, const std::vector<double>& w,
                       const QStringList& tokens, int i) const;
    void sizeKeyColumn();
    void sizeNumberColumns(const attn::AttentionResult& r, const std::vector<double>& weights, int i);

    Session* session_;
    int query_ = 0;
    QLabel* title_;
    QLabel* qCaption_;
    HeatmapView* qVector_;
    QLabel* zCaption_;
    HeatmapView* zVector_;
    QLabel* mixing_;
    QCustomPlot* plot_;
    QCPBars* scoreBars_;
    QCPBars* weightBars_;
    int barGroup_ = 1;  // keys per bar in the plot now
    // The x axis's label for the focused query and its bars, longest first.
    QStringList xLabels_;
    QTableView* table_;
    FocusTableModel* tableModel_;
    FocusSortModel* sortModel_;
    QStringList keyLabels_;   // the labelled keys under the bars
    QStringList tickTokens_;  // the tokens the ticks and key column were made for
    // The widths of the columns q · k, scaled and softmax, for the numbers
    // shown so far in the current font.
    int numberColumnWidths_[3] = {0, 0, 0};
};

}  // namespace attnlab
