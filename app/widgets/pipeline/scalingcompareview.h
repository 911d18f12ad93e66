// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The current sentence's attention at one d_k, twice: softmax of the raw
// scores Q Kᵀ beside softmax of Q Kᵀ / √d_k, so that unscaled rows saturating
// into near one-hot rows are seen directly. Below, the readouts for both:
// score variance, mean largest weight, mean entropy and mean softmax Jacobian
// norm, and a line saying which initialisation produced q and k. Beside the
// maps, the histogram of the raw and scaled scores (ScoreHistogramView).
//
// Draws an attn::ScalingComparison (attn::compareScaling) and computes
// nothing itself.

#include "model.h"
#include "scaling_lab.h"
#include "score_histogram.h"
#include "weightsscale.h"

#include <QStringList>
#include <QWidget>

#include <memory>

class QLabel;
class QTableWidget;

namespace attnlab {

class HeatmapView;
class ScoreHistogramView;

class ScalingCompareView : public QWidget {
    Q_OBJECT
public:
    enum Readout { Variance, MeanMaxWeight, MeanEntropy, MeanJacobianNorm };
    enum Side { Unscaled, Scaled };
    static constexpr int kReadoutCount = 4;

    explicit ScalingCompareView(QWidget* parent = nullptr);

    // tokens label the rows (queries) and columns (keys) of both maps.
    // Shows `comparison` (kept, not copied: the maps read its matrices).
    void setData(std::shared_ptr<const attn::ScalingComparison> comparison, const QStringList& tokens);
    const attn::ScalingComparison& comparison() const { return *comparison_; }
    const std::shared_ptr<const attn::ScalingComparison>& comparisonPointer() const { return comparison_; }

    // Which initialisation made Q and K: the unit-variance one is the
    // textbook assumption behind √d_k.
    void setInitMode(attn::InitMode mode);
    attn::InitMode initMode() const { return initMode_; }

    void setHistogram(const attn::ScoreHistogram& histogram);
    ScoreHistogramView* histogramView() const { return histogram_; }

    // The maps' colour scale, chosen for the comparison's tokens as on the
    // weights map (chooseWeightsScale).
    void setWeightsScaleMode(WeightsScaleMode mode);

    // The number shown in a readout cell (exactly the comparison's value)
    // and its text.
    double readoutValue(Readout readout, Side side) const;
    QString readoutText(Readout readout, Side side) const;
    QString summaryText() const;
    QString initText() const;

private:
    void updateInitText();

    HeatmapView* unscaled_ = nullptr;
    HeatmapView* scaled_ = nullptr;
    ScoreHistogramView* histogram_ = nullptr;
    QTableWidget* table_ = nullptr;
    QLabel* summary_ = nullptr;
    QLabel* init_ = nullptr;
    std::shared_ptr<const attn::ScalingComparison> comparison_ =
        std::make_shared<const attn::ScalingComparison>();
    attn::InitMode initMode_ = attn::InitMode::Article;
    WeightsScaleMode scaleMode_ = WeightsScaleMode::Automatic;
};

}  // namespace attnlab
