// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The lesson's step "why it matters for learning": the Training tab's lab run
// at the defaults with d_k 16, then with d_k 256, and what the measured
// curves show, in words made from them (the steps each run needed to reach
// the loss target, the unscaled run's starting fraction saturated on a
// wrong key), never from numbers written in advance.

#include "training_lab.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <optional>

namespace attnlab {

class TrainingView;

class LessonTraining : public QObject {
    Q_OBJECT
public:
    static constexpr int kSmallDk = 16;
    static constexpr int kLargeDk = 256;

    // What one lab's curves say, for the text.
    struct Summary {
        int dK = 0;
        double target = 0.5;
        int scaledSteps = -1;  // to reach target; -1 never
        int unscaledSteps = -1;
        int steps = 0;                 // done
        double scaledSaturated = 0.0;  // at the first step
        double unscaledSaturated = 0.0;
    };
    static Summary summarize(const attn::TrainingSettings& settings,
                             const std::vector<attn::TrainingRunCurves>& curves, double target);
    // The step's text for the two labs.
    static QString text(const Summary& small, const Summary& large);

    explicit LessonTraining(TrainingView* view, QObject* parent = nullptr);

    // Runs d_k 16 then 256 on the tab (at the defaults), then emits
    // finished(); a second call while running starts over.
    void run();
    void stop();  // leaves the lab paused where it is
    bool isRunning() const { return phase_ != Phase::Idle; }
    QString progressText() const;
    const std::optional<Summary>& small() const { return small_; }
    const std::optional<Summary>& large() const { return large_; }

signals:
    void progress(const QString& text);
    void finished(const QString& text);

private:
    enum class Phase { Idle, Small, Large };
    void startLab(int dK);
    void labStopped();

    QPointer<TrainingView> view_;
    Phase phase_ = Phase::Idle;
    std::optional<Summary> small_, large_;
};

}  // namespace attnlab
