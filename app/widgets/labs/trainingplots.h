// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The training lab's six QCustomPlots over the steps (see TrainingView):
// loss (linear or log scale, with the loss target as a dashed line),
// accuracy, the gradient norms |grad W_q| (solid) and |grad W_k| (dashed),
// the mean largest weight, the mean entropy and the fraction saturated on a
// wrong key. One colour per run (scaled blue, unscaled red, custom green, as
// the d_k lab's), a legend on each, one step axis for all. They are children
// of the widget given, which lays them out.

#include "expected.h"
#include "stagedwrite.h"
#include "training_lab.h"

#include <QCoreApplication>
#include <QPalette>
#include <QSize>
#include <QStringList>

#include <array>
#include <vector>

class QCustomPlot;
class QCPItemStraightLine;
class QCPTextElement;
class QWidget;

namespace attnlab {

class TrainingPlots {
    Q_DECLARE_TR_FUNCTIONS(TrainingPlots)
public:
    enum Plot { LossPlot, AccuracyPlot, GradientPlot, MaxWeightPlot, EntropyPlot, SaturatedPlot };
    static constexpr int kPlotCount = 6;
    static QSize minimumPlotSize() { return QSize(230, 170); }

    explicit TrainingPlots(QWidget* parent);

    QCustomPlot* plot(int which) const { return plots_[std::size_t(which)]; }
    const std::array<QCustomPlot*, kPlotCount>& plots() const { return plots_; }

    // The curves of every run up to the steps done, on an axis of `steps`;
    // the entropy's axis goes to ln(nKeys). Replots (queued).
    // The titles name dK (where they fit: see fitTitles).
    void setCurves(const std::vector<attn::TrainingRunCurves>& curves, int steps, int nKeys, int dK);
    void setLossLogScale(bool log);
    void setLossTarget(double target);  // the dashed line on the loss plot
    void applyColours(const QPalette& palette);
    // Each title as "TITLE · d_k = N" where that fits `width` pixels (a
    // plot's width in the view), else TITLE alone, so that no title is cut
    // at the plots' sides; the pictures always have the whole title.
    void fitTitles(int width);

    // "training_loss", "training_accuracy", "training_grad_norm",
    // "training_max_weight", "training_entropy", "training_saturated_wrong".
    static QString fileStem(Plot which);
    static QString title(Plot which);
    // The measure of trainingMeasureCsv each plot shows.
    static std::string measure(Plot which);
    // Each plot as STEM.png/svg/pdf, light whatever `shown` (restored after).
    attn::Expected<std::vector<OutputFile>> imageFiles(const QStringList& formats, const QSize& size,
                                                       const QPalette& shown);
    // A run's name in legends: "scaled ÷√d_k = 16", "unscaled ÷1", "custom ÷2.5".
    static QString runName(const attn::TrainingRunCurves& run);
    // A run's colour on a background of `palette`.
    static QColor runColour(attn::TrainingScale scale, const QPalette& palette);

private:
    void setUp(const QFont& font);
    void ensureGraphs(int runs);
    void updateLossRange();

    std::array<QCustomPlot*, kPlotCount> plots_{};
    std::array<QCPTextElement*, kPlotCount> titles_{};
    QCPItemStraightLine* targetLine_ = nullptr;
    std::vector<attn::TrainingRunCurves> curves_;
    bool logLoss_ = false;
    int dK_ = 0;
    static constexpr int kAnyWidth = 1 << 20;  // every title whole
    int titleWidth_ = kAnyWidth;               // fitTitles' width
    double lossTarget_ = 0.5;
    QPalette palette_;
};

}  // namespace attnlab
