// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Model tab's what-if of the mask (issue 40: "what if this model could
// see only the last 8 tokens?"): a choice of the model's own mask (causal,
// or its sliding window), every earlier key (causal), a sliding window of W
// or S sinks plus a window of W, with the W and S spin boxes the choice
// needs. A choice is handed to ModelSession::setMaskWhatIf, which runs the
// model again with every layer's heads under that mask; the grid's maps,
// the next tokens and the head shown in the pipeline are that pass's.

#include "attention_mask.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QSpinBox;

namespace attnlab {

class ModelSession;

class MaskWhatIfBox : public QWidget {
    Q_OBJECT
public:
    explicit MaskWhatIfBox(ModelSession* session, QWidget* parent = nullptr);

    // The mask the controls describe: empty for the model's own.
    std::optional<attn::AttentionMask> chosenMask() const;
    // The controls set from the session (a model opened: its own mask).
    void sync();

signals:
    // A refused choice, in one line.
    void message(const QString& text);

private:
    void apply();
    void showSpins();

    ModelSession* session_;
    QComboBox* kind_;
    QSpinBox* sink_;
    QSpinBox* window_;
};

}  // namespace attnlab
