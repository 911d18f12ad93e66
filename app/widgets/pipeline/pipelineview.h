// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The attention pipeline as heatmaps, in the order of the formula
//   raw scores Q Kᵀ  —÷ divisor→  scaled scores  —softmax→  weights A
// with the operation written between the maps, and on a second tab the
// projections Q, K, V and the context vectors Z = A V. Query tokens label the
// rows of the score maps, key tokens the columns. Raw and scaled scores share
// one diverging colour range by default, so the shrinking by the divisor is
// visible; the weights use a sequential map over [0, 1].
//
// Further pages (the d_k lab's views) can be added as tabs beside these two.
// For lesson mode one map at a time can be framed in the highlight colour.

#include "weightsscale.h"

#include <QHash>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QFrame;
class QLabel;
class QMenu;
class QTabWidget;

namespace attn {
struct AttentionResult;
}

namespace attnlab {

class CompactMaps;
class HeatmapView;
class HighlightFrame;
class Session;
struct ResultSampleCache;

class PipelineView : public QWidget {
    Q_OBJECT
public:
    explicit PipelineView(Session* session, QWidget* parent = nullptr);

    HeatmapView* rawScoresMap() const { return raw_; }
    HeatmapView* scaledScoresMap() const { return scaled_; }
    HeatmapView* weightsMap() const { return weights_; }
    HeatmapView* queryMap() const { return q_; }
    HeatmapView* keyMap() const { return k_; }
    HeatmapView* contextMap() const { return z_; }
    QList<HeatmapView*> maps() const;
    QTabWidget* tabs() const { return tabs_; }

    // Adds `page` as a tab after the others. Every page sits in a scroll
    // area and gets the tab's size, or its minimum size if that is larger.
    void addPage(QWidget* page, const QString& title);
    // Makes the tab holding `page` (a page, or a map on one) current.
    void showPage(QWidget* page);
    // The page (not its scroll area) of the current tab.
    QWidget* currentPage() const;

    // Frames `map` (one of maps()) in the highlight colour and shows its tab;
    // nullptr removes the frame.
    void setHighlightedMap(HeatmapView* map);
    HeatmapView* highlightedMap() const { return highlighted_; }

    bool independentRanges() const;
    void setIndependentRanges(bool independent);
    void setFocusQuery(int query);

    // The weights map's colour scale as chosen (Automatic by default) and
    // as drawn for the current result (chooseWeightsScale).
    WeightsScaleMode weightsScaleMode() const { return weightsScaleMode_; }
    void setWeightsScaleMode(WeightsScaleMode mode);
    WeightsScale weightsScale() const;
    // A menu of the same choices (for the View menu), kept in step with the box.
    QMenu* createWeightsScaleMenu(QWidget* parent);

signals:
    void queryClicked(int query);
    void independentRangesChanged(bool independent);
    void weightsScaleModeChanged(attnlab::WeightsScaleMode mode);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // sizes the pages

private:
    void refresh();
    void applyRanges();
    QWidget* framed(HeatmapView* map);
    QWidget* pageAt(int index) const;  // the page of a tab, inside its scroll area
    void fitPage(int index);

    Session* session_;
    // The three maps' samples of the current result (shared among them).
    std::shared_ptr<ResultSampleCache> samples_;
    std::shared_ptr<const attn::AttentionResult> shown_;  // the result the maps read
    QStringList shownTokens_;
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
    QLabel* rangeNote_ = nullptr;  // a washed-out scaled map said (ScoreRanges)
    QComboBox* weightsScaleBox_;
    WeightsScaleMode weightsScaleMode_ = WeightsScaleMode::Automatic;
    CompactMaps* compact_;                               // the three score maps laid out alike
    QHash<const HeatmapView*, HighlightFrame*> frames_;  // the frame around each map
    HeatmapView* highlighted_ = nullptr;
};

}  // namespace attnlab
