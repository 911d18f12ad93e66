// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Training tab (issue 18): a tiny attention model trained live, the
// scaled run (÷√d_k) beside the unscaled (÷1) and an optional third with a
// custom divisor, on associative recall through one head (stated on the
// tab). Start/Pause, Step and Reset drive a TrainingLabRun (app/model),
// which trains on its own thread; the tab draws its snapshots: six curves
// (TrainingPlots), the steps each run needed to reach a loss target, and
// the probes' attention (TrainingProbesView). The settings are checked as
// they are entered (a bad one is named in red and not taken); they take
// effect at once while the lab is at step 0, else on Reset. d_k follows the
// window's unless the user sets the tab's own.

#include "expected.h"
#include "stagedwrite.h"
#include "trainingplots.h"
#include "traininglabrun.h"

#include <QPointer>
#include <QSize>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QGridLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace attnlab {

class TrainingProbesView;

class TrainingView : public QWidget {
    Q_OBJECT
public:
    using Plot = TrainingPlots::Plot;
    static constexpr int kPlotCount = TrainingPlots::kPlotCount;
    static constexpr Plot LossPlot = TrainingPlots::LossPlot;
    static constexpr Plot AccuracyPlot = TrainingPlots::AccuracyPlot;
    static constexpr Plot GradientPlot = TrainingPlots::GradientPlot;
    static constexpr Plot MaxWeightPlot = TrainingPlots::MaxWeightPlot;
    static constexpr Plot EntropyPlot = TrainingPlots::EntropyPlot;
    static constexpr Plot SaturatedPlot = TrainingPlots::SaturatedPlot;

    explicit TrainingView(QWidget* parent = nullptr);
    ~TrainingView() override;

    TrainingLabRun* run() const { return run_.get(); }
    std::shared_ptr<const TrainingSnapshot> snapshot() const { return run_->snapshot(); }
    bool hasSteps() const { return snapshot()->stepsDone > 0; }

    // The window's d_k: shown and used (on the next reset, or at once at step 0).
    void followDk(int dK);
    // The settings as entered, checked; the reason when they are not valid.
    attn::Expected<attn::TrainingSettings> enteredSettings() const;
    // Puts `settings` into the controls (and so into the run).
    void showSettings(const attn::TrainingSettings& settings);

    void start();  // Start/Pause toggles between these
    void pause();
    void step();
    void reset();

    double lossTarget() const { return lossTarget_; }
    void setLossTarget(double target);
    // The readout's numbers: steps each run needed (-1: not yet), in the
    // snapshot's run order.
    std::vector<int> stepsToTarget() const;
    QString readoutText() const;
    QString statusText() const;

    QCustomPlot* plot(Plot which) const { return plots_->plot(which); }

    static QString fileStem(Plot which) { return TrainingPlots::fileStem(which); }
    // Each plot as STEM.png/svg/pdf (light colours), `size` in logical pixels.
    attn::Expected<std::vector<OutputFile>> imageFiles(const QStringList& formats, const QSize& size) const;
    static QSize defaultImageSize() { return QSize(820, 560); }
    // training_lab.json and training_lab.csv of the curves shown, into `directory`.
    attn::Status exportCurves(const QString& directory) const;
    // One plot's numbers as CSV (its measure for every run), "" without steps.
    std::string plotCsv(Plot which) const;
    static QString taskText();

signals:
    void snapshotShown();
    void message(const QString& text, int timeout);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QWidget* makeControls();
    void settingsEdited();
    void showSnapshot();
    void updateButtons();
    void arrangePlots(int columns);
    void exportCurvesInteractive();

    std::unique_ptr<TrainingLabRun> run_;
    std::unique_ptr<TrainingPlots> plots_;
    TrainingProbesView* probes_ = nullptr;
    QGridLayout* grid_ = nullptr;
    int columns_ = 0;
    QLabel* status_ = nullptr;
    QLabel* readout_ = nullptr;
    QPushButton* startButton_ = nullptr;
    QPushButton* stepButton_ = nullptr;
    QPushButton* resetButton_ = nullptr;
    QSpinBox* dkSpin_ = nullptr;
    QSpinBox* seedSpin_ = nullptr;
    QComboBox* optimizer_ = nullptr;
    QLineEdit* lrEdit_ = nullptr;
    QSpinBox* stepsSpin_ = nullptr;
    QSpinBox* keysSpin_ = nullptr;
    QSpinBox* dModelSpin_ = nullptr;
    QSpinBox* classesSpin_ = nullptr;
    QSpinBox* batchSpin_ = nullptr;
    QLineEdit* betaEdit_ = nullptr;
    QCheckBox* customBox_ = nullptr;
    QLineEdit* divisorEdit_ = nullptr;
    QCheckBox* logLoss_ = nullptr;
    QLineEdit* targetEdit_ = nullptr;
    QString problem_;  // why the entered settings are not taken
    double lossTarget_ = 0.5;
    bool showing_ = false;  // putting settings into the controls
};

}  // namespace attnlab
