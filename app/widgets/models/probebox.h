// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The induction probe on the head lab's Scores page (issue 39): a check
// box that runs the model on a span of R random tokens repeated twice
// (ModelSession::setProbe, as --probe repeat:R:SEED) instead of the typed
// sentence, R and the seed, and the model's mean loss on the first and on
// the second repeat (ablated too while heads are ablated): a head that
// copies makes the second repeat's loss drop. The sentence is kept and
// comes back when the box is unchecked.

#include <QWidget>

class QCheckBox;
class QLabel;
class QSpinBox;

namespace attnlab {

class ModelSession;

class ProbeBox : public QWidget {
    Q_OBJECT
public:
    explicit ProbeBox(ModelSession* session, QWidget* parent = nullptr);

    QCheckBox* check() const { return check_; }
    QSpinBox* span() const { return span_; }
    QSpinBox* seed() const { return seed_; }
    QLabel* loss() const { return loss_; }

signals:
    void message(const QString& text);

public slots:
    // The session's model, result or probe changed.
    void sync();

private:
    void apply();

    ModelSession* session_;
    QCheckBox* check_;
    QSpinBox* span_;
    QSpinBox* seed_;
    QLabel* loss_;
};

}  // namespace attnlab
