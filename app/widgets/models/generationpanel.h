// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Model tab's "Generate" page (issue 40), over a GenerationSession:
// the number of tokens, greedy or sampling (temperature, top-k, seed),
// Generate, Step (one token) and Reset; a table of the steps (the token,
// its probability, the tokens in the key/value cache, its bytes and the
// bytes with one K/V per query head, 8-byte doubles as the engine keeps
// them), the continued text, and for the chosen step the new row's
// attention per head of the selected layer (heads x keys); a line saying
// which heads the generation runs without (the head lab's ablation). It
// shows what the session computed and hands every request to it.

#include <QWidget>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace attnlab {

class GenerationSession;
class HeatmapView;
class ModelSession;

class GenerationPanel : public QWidget {
    Q_OBJECT
public:
    GenerationPanel(ModelSession* model, GenerationSession* generation, QWidget* parent = nullptr);

    // The step whose attention is shown (-1: none).
    int shownStep() const { return shownStep_; }

signals:
    // A refused request, for the message line.
    void message(const QString& text);

private:
    void request(bool step);
    void showSteps();
    void showStep();
    void showRunning(bool running);
    void showMode();
    void showLayers();
    void showAblation();

    ModelSession* model_;
    GenerationSession* generation_;
    QSpinBox* count_;
    QCheckBox* sample_;
    QDoubleSpinBox* temperature_;
    QSpinBox* topK_;
    QSpinBox* seed_;
    QPushButton* generate_;
    QPushButton* step_;
    QPushButton* reset_;
    QTableWidget* table_;
    QLabel* ablation_;
    QLabel* text_;
    QLabel* caption_;
    QSpinBox* layer_;
    HeatmapView* map_;
    int shownStep_ = -1;
};

}  // namespace attnlab
