// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The d_k lab's four plots over d_k = 1..1024 (log axis), from random
// unit-variance q and k (attn::runScalingLab):
//   1. the variance of q . k and of q . k / sqrt(d_k), with the lines d_k and 1
//   2. the mean largest softmax weight over n keys, unscaled and scaled
//   3. the mean softmax entropy, with ln(n) marked as the uniform limit
//   4. the mean softmax Jacobian norm (how much gradient can flow back)
// A vertical marker follows the current d_k; hovering a plot shows the
// values at the nearest d_k of the grid. A spin box sets n; the lab is
// computed whenever n changes, and when the view is first shown (or before,
// see prefetch), with a progress bar. The samples per d_k are
// attn::defaultScalingLabSamples(n), the command line's default.
//
// The view draws a ScalingLabRun (app/model), which holds the curves and
// computes them in its worker's lab lane; the plots themselves are
// ScalingLabPlots.

#include "expected.h"
#include "scaling_lab.h"
#include "scalinglabplots.h"
#include "scalinglabrun.h"
#include "stagedwrite.h"

#include <QPalette>
#include <QPointer>
#include <QSize>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QCustomPlot;
class QGridLayout;
class QLabel;
class QProgressBar;
class QSpinBox;

namespace attnlab {

class ScalingLabView : public QWidget {
    Q_OBJECT
public:
    using Plot = ScalingLabPlots::Plot;
    static constexpr Plot VariancePlot = ScalingLabPlots::VariancePlot;
    static constexpr Plot MaxWeightPlot = ScalingLabPlots::MaxWeightPlot;
    static constexpr Plot EntropyPlot = ScalingLabPlots::EntropyPlot;
    static constexpr Plot GradientPlot = ScalingLabPlots::GradientPlot;
    static constexpr int kPlotCount = ScalingLabPlots::kPlotCount;

    // Over `run` (the session's: see Session::scalingLab). The run may go
    // first (the window deletes its session before its views); the view
    // then has no curves and computes nothing.
    explicit ScalingLabView(ScalingLabRun* run, QWidget* parent = nullptr);
    // Over a run of its own, with a worker of its own (the command line's
    // plots, tests); destroying the view cancels and joins it.
    explicit ScalingLabView(QWidget* parent = nullptr);
    ~ScalingLabView() override;

    ScalingLabRun* run() const { return run_; }

    // Shows finished curves (also what compute() ends with).
    void setCurves(const attn::ScalingLabCurves& curves);
    const attn::ScalingLabCurves& curves() const;
    bool hasCurves() const { return !curves().dK.empty(); }

    // Computes the lab with this configuration in the background; a newer
    // request cancels an older one. Ends in curvesChanged() or computeFailed().
    void compute(const attn::ScalingLabConfig& config);
    bool isComputing() const { return run_ && run_->isComputing(); }
    // Starts the computation if there are no curves and none is running: the
    // window calls it once it is up, so that the tab opens on finished curves.
    void prefetch();
    const attn::ScalingLabConfig& config() const;

    // The vertical marker on every plot (its child "dkMarker"), shown once
    // a d_k is set (the command line's plots, which follow no window, have
    // none).
    void setCurrentDk(int dK);
    int currentDk() const { return currentDk_; }
    bool isMarkerShown() const { return markerShown_; }

    QCustomPlot* plot(Plot which) const { return plots_->plot(which); }
    int plotColumns() const { return columns_; }  // 2 (two by two) or 4 (one row)

    // The grid index whose d_k is nearest to dK on the log axis (-1 without
    // curves), and the hover text of one plot at a grid index.
    int nearestIndex(double dK) const;
    QString valuesText(Plot which, int index) const;

    // "scaling_lab_variance", "scaling_lab_max_weight", "scaling_lab_entropy",
    // "scaling_lab_jacobian".
    static QString fileStem(Plot which) { return ScalingLabPlots::fileStem(which); }
    // Each plot as STEM.png (at twice the size in pixels, for sharpness),
    // STEM.svg and/or STEM.pdf, `size` in logical pixels. Formats: "png",
    // "svg", "pdf"; an unknown one is an error.
    attn::Expected<std::vector<OutputFile>> imageFiles(const QStringList& formats, const QSize& size) const;
    static QSize defaultImageSize() { return QSize(820, 560); }
    // The colours of exported pictures (light, for slides and print), the
    // window's theme aside; the plots on screen follow palette().
    static QPalette exportPalette() { return ScalingLabPlots::exportPalette(); }

signals:
    void curvesChanged();
    void computeFailed(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;  // a new parent: watched for reflow
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void replotWhenShown();  // now if visible, else on the next show
    void reflow();           // four plots in a row in a wide, low space, else 2 x 2
    void arrangePlots(int columns);
    void connectRun();
    void showKeys(int nKeys);  // in the spin box, without recomputing
    void showCurves();         // run_'s curves into the plots
    void showProgress(int done, int total);
    void showFailure(const QString& message);
    void updateMarkers();
    void updateStatus();

    std::unique_ptr<ScalingLabRun> ownRun_;  // without the session's
    QPointer<ScalingLabRun> run_;
    std::unique_ptr<ScalingLabPlots> plots_;
    QSpinBox* keysSpin_ = nullptr;
    QLabel* status_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QGridLayout* grid_ = nullptr;
    int columns_ = 0;
    QPointer<QWidget> watchedParent_;

    int currentDk_ = 1;
    bool markerShown_ = false;
    bool replotPending_ = false;
};

}  // namespace attnlab
