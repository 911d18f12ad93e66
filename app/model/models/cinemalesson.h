// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the lesson's cinema step shows of an opened model's pass: for the
// pieces "␣cinema" and "␣watch" (found by their vocabulary pieces, with
// GPT-2's leading space, wherever they are), the heads whose weight from
// the last token on that piece is largest, and the most likely next tokens.
// The texts say what is measured and nothing more: a large weight is where
// a head looks, not a sign that the model understands the sentence (the
// tiny test checkpoints have random weights and rank random heads).

#include "headranking.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace attnlab {

class ModelSession;

class CinemaLesson {
public:
    // The lesson's sentence up to its blank ("… to watch a new ____"): its
    // last token is the one whose next token the model predicts.
    static QString sentence();
    // "Ġcinema", "Ġwatch": the keys ranked, in this order.
    static QStringList pieces();
    static constexpr int kTopHeads = 3;
    static constexpr int kNextWords = 5;

    struct Key {
        QString piece;    // "Ġcinema"
        QString display;  // "␣cinema"
        int index = -1;   // its token, -1 when the sentence has none
        std::vector<RankedHead> top;
    };
    struct NextWord {
        QString display;
        double probability = 0.0;
    };

    // The session's last result (nothing without one).
    explicit CinemaLesson(const ModelSession& session);

    bool hasResult() const { return hasResult_; }
    const std::vector<Key>& keys() const { return keys_; }
    // Either piece is in the sentence.
    bool hasKey() const;

    // The lesson panel's paragraph: the rankings, the next tokens and what
    // they measure, and the Model tab's what-if settings when they are not
    // the model as trained (empty without a result).
    QString lessonText() const;
    // The Model tab's one line: the rankings only, with the grid's L and H
    // names (empty without a key).
    QString panelText() const;

    // The what-if settings the pass ran under, when they are not the model
    // as trained: "scores divided by 1 instead of √64 = 8 in 144 of 144
    // heads; temperature 0.1"; empty for √head_dim everywhere and T = 1.
    QString settingsText() const { return settings_; }

    // "layer 1 · head 3 (0.412)"; weights with three decimals.
    static QString headText(const RankedHead& head);
    static QString percentText(double probability);        // "12.3 %"
    static QString shortHeadText(const RankedHead& head);  // "L1 H3 0.412"

private:
    QString rankingText(const Key& key) const;

    bool hasResult_ = false;
    int tokenCount_ = 0;
    QString last_;
    QString settings_;
    std::vector<Key> keys_;
    std::vector<NextWord> next_;
};

}  // namespace attnlab
