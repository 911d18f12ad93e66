// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The d_k lab's four plots over d_k = 1..1024 (log axis), from random
// unit-variance q and k (attn::runScalingLab):
//   1. the variance of q . k and of q . k / sqrt(d_k), with the lines d_k and 1
//   2. the mean largest softmax weight over n keys, unscaled and scaled
//   3. the mean softmax entropy, with ln(n) marked as the uniform limit
//   4. the mean softmax Jacobian norm (how much gradient can flow back)
// A vertical marker follows the current d_k; hovering a plot shows the
// values at the nearest d_k of the grid. A spin box sets n; the view runs
// the lab in a background thread whenever n changes, and when first shown
// (or before, see prefetch), with a progress bar. The samples per d_k are
// attn::defaultScalingLabSamples(n), the command line's default.

#include "expected.h"
#include "scaling_lab.h"
#include "stagedwrite.h"

#include <QPalette>
#include <QPointer>
#include <QSize>
#include <QStringList>
#include <QWidget>

#include <array>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;
class QCPTextElement;
class QGridLayout;
class QLabel;
class QProgressBar;
class QSpinBox;

namespace attnlab {

class ScalingLabView : public QWidget {
    Q_OBJECT
public:
    enum Plot { VariancePlot, MaxWeightPlot, EntropyPlot, GradientPlot };
    static constexpr int kPlotCount = 4;

    explicit ScalingLabView(QWidget* parent = nullptr);
    ~ScalingLabView() override;  // cancels and joins a running computation

    // Shows finished curves (also what compute() ends with).
    void setCurves(const attn::ScalingLabCurves& curves);
    const attn::ScalingLabCurves& curves() const { return curves_; }
    bool hasCurves() const { return !curves_.dK.empty(); }

    // Runs the lab in a background thread with this configuration; a newer
    // request cancels an older one. Ends in curvesChanged() or computeFailed().
    void compute(const attn::ScalingLabConfig& config);
    bool isComputing() const { return computing_; }
    // Starts the computation if there are no curves and none is running: the
    // window calls it once it is up, so that the tab opens on finished curves.
    void prefetch();
    const attn::ScalingLabConfig& config() const { return config_; }

    // The vertical marker on every plot, shown once a d_k is set (the
    // command line's plots, which follow no window, have none).
    void setCurrentDk(int dK);
    int currentDk() const { return currentDk_; }
    bool isMarkerShown() const { return markerShown_; }

    QCustomPlot* plot(Plot which) const { return plots_[which]; }
    QCPItemStraightLine* marker(Plot which) const { return markers_[which]; }
    QSpinBox* keysSpinBox() const { return keysSpin_; }
    int plotColumns() const { return columns_; }  // 2 (two by two) or 4 (one row)
    // Shown while computing, in percent of the samples done.
    QProgressBar* progressBar() const { return progress_; }

    // The grid index whose d_k is nearest to dK on the log axis (-1 without
    // curves), and the hover text of one plot at a grid index.
    int nearestIndex(double dK) const;
    QString valuesText(Plot which, int index) const;

    // "scaling_lab_variance", "scaling_lab_max_weight", "scaling_lab_entropy",
    // "scaling_lab_jacobian".
    static QString fileStem(Plot which);
    // Each plot as STEM.png (at twice the size in pixels, for sharpness),
    // STEM.svg and/or STEM.pdf, `size` in logical pixels. Formats: "png",
    // "svg", "pdf"; an unknown one is an error.
    attn::Expected<std::vector<OutputFile>> imageFiles(const QStringList& formats, const QSize& size) const;
    // Writes imageFiles into `directory`, all or nothing.
    attn::Status exportImages(const QString& directory, const QStringList& formats, const QSize& size) const;
    static QSize defaultImageSize() { return QSize(820, 560); }
    // The colours of exported pictures (light, for slides and print), the
    // window's theme aside; the plots on screen follow palette().
    static QPalette exportPalette();

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
    void setUpPlots();
    void applyColours(const QPalette& palette);  // background, axes, text and curves
    void updateMarkers();
    void updateStatus();
    void showProgress(unsigned generation, int done, int total);
    void finishComputation(unsigned generation, attn::Expected<attn::ScalingLabCurves> result);
    void stopWorker();
    void startWorker();

    std::array<QCustomPlot*, kPlotCount> plots_{};
    std::array<QCPItemStraightLine*, kPlotCount> markers_{};
    std::array<QCPItemText*, kPlotCount> markerLabels_{};
    std::array<QCPTextElement*, kPlotCount> titles_{};
    QCPItemText* uniformLabel_ = nullptr;  // "uniform: ln n" on the entropy plot
    QSpinBox* keysSpin_ = nullptr;
    QLabel* status_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QGridLayout* grid_ = nullptr;
    int columns_ = 0;
    QPointer<QWidget> watchedParent_;

    attn::ScalingLabCurves curves_;
    attn::ScalingLabConfig config_;
    int currentDk_ = 1;
    bool markerShown_ = false;

    std::thread worker_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    unsigned generation_ = 0;
    bool computing_ = false;
    bool replotPending_ = false;
};

}  // namespace attnlab
