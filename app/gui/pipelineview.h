#pragma once
// The attention pipeline as heatmaps, in the order of the formula
//   raw scores Q Kᵀ  —÷ divisor→  scaled scores  —softmax→  weights A
// with the operation written between the maps, and on a second tab the
// projections Q, K, V and the context vectors Z = A V. Query tokens label the
// rows of the score maps, key tokens the columns. Raw and scaled scores share
// one diverging colour range by default, so the shrinking by the divisor is
// visible; the weights use a sequential map over [0, 1].

#include <QWidget>

class QCheckBox;
class QLabel;
class QTabWidget;

namespace attnlab {

class HeatmapView;
class Session;

class PipelineView : public QWidget {
    Q_OBJECT
public:
    explicit PipelineView(Session* session, QWidget* parent = nullptr);

    HeatmapView* rawScoresMap() const { return raw_; }
    HeatmapView* scaledScoresMap() const { return scaled_; }
    HeatmapView* weightsMap() const { return weights_; }
    HeatmapView* queryMap() const { return q_; }
    HeatmapView* keyMap() const { return k_; }
    HeatmapView* valueMap() const { return v_; }
    HeatmapView* contextMap() const { return z_; }
    QList<HeatmapView*> maps() const;
    QTabWidget* tabs() const { return tabs_; }

    bool independentRanges() const;
    void setIndependentRanges(bool independent);
    void setFocusQuery(int query);

signals:
    void queryClicked(int query);
    void independentRangesChanged(bool independent);

private:
    void refresh();
    void applyRanges();

    Session* session_;
    QTabWidget* tabs_;
    HeatmapView* raw_;
    HeatmapView* scaled_;
    HeatmapView* weights_;
    HeatmapView* q_;
    HeatmapView* k_;
    HeatmapView* v_;
    HeatmapView* z_;
    QLabel* scaleOp_;
    QLabel* softmaxOp_;
    QLabel* formula_;
    QCheckBox* independent_;
};

}  // namespace attnlab
