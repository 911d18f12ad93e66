// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the lesson's head-lab step shows of a model's pass (issue 39): on a
// sentence that repeats itself ("The cat sat on the mat. The cat sat on
// the"), the head ranked first by the previous-token score and the one
// ranked first by the induction score, the token an induction head would
// copy (the one after the last token's earlier occurrence: " mat"), its
// probability, and, when the session's ablated pass left that induction
// head out, its probability without it. On the demo model the two heads are
// layer 1 · head 1 and layer 2 · head 1 and the copy falls from 99.9 % to
// 0.002 % without the second; the texts say what was measured, on
// whatever model is open.

#include "decoder_model.h"

#include <QString>

#include <optional>

namespace attnlab {

class ModelSession;

class CopyLesson {
public:
    // The step's sentence: a span, then its start again.
    static QString sentence();

    struct Head {
        attn::HeadIndex index;
        double score = 0.0;
    };

    // The session's last result (nothing without one, or over the probe).
    explicit CopyLesson(const ModelSession& session);

    bool hasResult() const { return hasResult_; }
    // The first head by each score (none when no head has it).
    const std::optional<Head>& previousTokenHead() const { return previous_; }
    const std::optional<Head>& inductionHead() const { return induction_; }
    // The copied token: the one after the last earlier occurrence of the
    // last token (-1: the last token does not occur before).
    int copiedId() const { return copiedId_; }
    QString copiedText() const { return copied_; }
    double copiedProbability() const { return intact_; }
    // Without the induction head: with an ablated pass whose heads are
    // exactly inductionHead(), the copied token's probability in it.
    std::optional<double> ablatedProbability() const { return ablated_; }
    // The ablated pass's heads are exactly inductionHead().
    bool inductionRemoved() const { return ablated_.has_value(); }

    // "layer 2 · head 1"
    static QString headName(const attn::HeadIndex& head);
    // The lesson panel's paragraph (empty without a result).
    QString lessonText() const;

private:
    bool hasResult_ = false;
    std::optional<Head> previous_;
    std::optional<Head> induction_;
    int copiedId_ = -1;
    QString copied_;
    double intact_ = 0.0;
    std::optional<double> ablated_;
    bool otherAblation_ = false;  // heads ablated other than the induction head alone
};

}  // namespace attnlab
