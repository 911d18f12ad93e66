// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Model tab's what-if of QK-norm (issue 38): for a model that
// normalises q and k per head (Qwen3's q_norm and k_norm), a check box
// "no QK-norm" that runs the model again without them
// (ModelSession::setQkNormRemoved), so that the scores, their range and the
// prediction change in front of the student. Hidden for other models.

#include <QCheckBox>

namespace attnlab {

class ModelSession;

class QkNormWhatIfBox : public QCheckBox {
    Q_OBJECT
public:
    explicit QkNormWhatIfBox(ModelSession* session, QWidget* parent = nullptr);

    // Shown and checked as the session says (a model opened: unchecked).
    void sync();

signals:
    // A refused change, in one line.
    void message(const QString& text);

private:
    ModelSession* session_;
};

}  // namespace attnlab
