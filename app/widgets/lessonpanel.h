// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Lesson mode: a guided walk through Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V
// in five steps (the scores, the scaling, the softmax, the weighted sum of
// the values, and an experiment with d_k), each with a short explanation for
// a student. The panel only says which stage to highlight (stepChanged); the
// window decides which view that is.
//
// The experiment's statements hold for q and k of mean 0 and variance 1 (the
// unit-variance initialisation): the window switches to it when the
// experiment starts on drawn matrices, and the panel says so (initNotice), or
// says that the user's own matrices were kept and may not show it.

#include "model.h"
#include "scaling_lab.h"

#include <QWidget>

class QLabel;
class QPushButton;

namespace attnlab {

class LessonPanel : public QWidget {
    Q_OBJECT
public:
    enum class Stage { Scores, Scale, Softmax, Context, DkExperiment };
    Q_ENUM(Stage)
    static constexpr int kStepCount = 5;

    explicit LessonPanel(QWidget* parent = nullptr);

    int step() const { return step_; }  // 0 .. kStepCount - 1
    Stage stage() const { return stageOfStep(step_); }
    static Stage stageOfStep(int step);

    QString title(int step) const;
    QString explanation(int step) const;
    QString stepIndicator() const;  // "Step 2 of 5"
    QString liveText() const;       // the d_k experiment's live line
    // What the experiment runs on, shown during it (empty on unit variance
    // chosen by the user).
    QString initNotice() const;
    QLabel* initNoticeLabel() const { return notice_; }
    attn::InitMode initMode() const { return init_; }
    bool initSwitched() const { return initSwitched_; }

    QPushButton* backButton() const { return back_; }
    QPushButton* nextButton() const { return next_; }

public slots:
    // Emits stepChanged when the step changes (clamped to the steps).
    void setStep(int step);
    void next();
    void back();
    // Back to the first step; emits stepChanged even if already there, so
    // the window can highlight the first stage when the lesson opens.
    void restart();
    // The current sentence at the current d_k, shown during the experiment.
    void setLiveComparison(const attn::ScalingComparison& comparison);
    // The session's initialisation; a change away from unit variance forgets
    // that the lesson chose it.
    void setInitMode(attn::InitMode mode);
    // The lesson switched to unit variance for the experiment (mode set too).
    void noteInitSwitched();

signals:
    void stepChanged(int step, attnlab::LessonPanel::Stage stage);
    // Next on the last step.
    void finished();

private:
    void showStep();

    QLabel* indicator_ = nullptr;
    QLabel* title_ = nullptr;
    QLabel* text_ = nullptr;
    QLabel* live_ = nullptr;
    QLabel* notice_ = nullptr;
    QPushButton* back_ = nullptr;
    QPushButton* next_ = nullptr;
    int step_ = 0;
    attn::ScalingComparison comparison_;
    attn::InitMode init_ = attn::InitMode::Article;
    bool initSwitched_ = false;
};

}  // namespace attnlab
