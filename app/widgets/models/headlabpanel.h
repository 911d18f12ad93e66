// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Model tab's head lab (issue 39), over a ModelSession: a score chooser
// (previous-token, duplicate-token, induction, first-token) whose scores
// the grid prints and colours, a ranked list of the heads by that score (a
// score no row of the sentence defines is shown empty, never 0), the
// ablation controls (the selected head, or the k highest by the score;
// zero or mean; Ctrl+click in the grid toggles a head) and the intact and
// ablated next tokens side by side, and the logit difference between two
// tokens the user types; on the Scores page the induction probe (ProbeBox).
// It shows what the session computed and
// hands every change to it. Two pages, "Scores" (head scores) and "Ablation", so
// that each needs only a few lines of the tab's height (1024 x 700 leaves
// the Model tab about 170 pixels for them); the owner may add its own.

#include "decoder_model.h"
#include "head_scores.h"

#include <QTabWidget>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace attnlab {

class ModelSession;
class ProbeBox;

class HeadLabPanel : public QTabWidget {
    Q_OBJECT
public:
    explicit HeadLabPanel(ModelSession* session, QWidget* parent = nullptr);

    // The chosen score as an attn::HeadScoreKind, kScoreRangeChoice + an
    // attn::ScoreRangeKind (how the model keeps scores in range), or -1
    // for none.
    int scoreKind() const;
    void setScoreKind(int kind);  // -1: none
    // The Scores page made current, with `kind` chosen (the lesson's step).
    void showScorePage(attn::HeadScoreKind kind);
    static constexpr int kScoreRangeChoice = 16;
    // "induction score", "score variance": what the grid's numbers are.
    QString scoreCaption() const;
    // The chosen score of every head as a (layers, heads) table (the
    // session's; empty for none), whether the grid colours it on the
    // weights' 0..1 scale, and the heads by it, largest first.
    attn::Matrix chosenScores() const;
    bool chosenScoresAreWeights() const;
    std::vector<attn::HeadIndex> chosenRanking() const;
    // The intact and ablated next tokens (hidden without an ablated pass),
    // for the caller to place beside the next-token bars.
    QTableWidget* comparison() const { return comparison_; }
    // The induction probe's controls and losses, on the Scores page.
    ProbeBox* probe() const { return probe_; }

signals:
    // The chooser changed (the grid shows the score, or no numbers).
    void scoreChosen(int kind);
    // A refused change, for the message line.
    void message(const QString& text);
    // The heads to ablate changed, or were shown again.
    void ablationShown();

public slots:
    // The session's result, selection or ablation changed.
    void showResult();
    void showSelection();
    // Ablates (layer, head), or stops ablating it (the grid's Ctrl+click).
    void toggle(int layer, int head);

private:
    void showScores();
    void showScoreRanges();
    void showAblation();
    void ablateTop();
    void showLogitDifference();

    ModelSession* session_;
    QComboBox* score_;
    ProbeBox* probe_;
    QLabel* scoreNote_;
    QTableWidget* ranked_;
    QComboBox* mode_;
    QPushButton* selected_;
    QSpinBox* topK_;
    QPushButton* top_;
    QPushButton* clear_;
    QLabel* ablated_;
    QTableWidget* comparison_;
    QLineEdit* tokenA_;
    QLineEdit* tokenB_;
    QLabel* difference_;
    QWidget* scoresPage_;
    QWidget* ablationPage_;
};

}  // namespace attnlab
