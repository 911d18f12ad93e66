// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Lesson mode: a guided walk through Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V
// in five steps (the scores, the scaling, the softmax, the weighted sum of
// the values, and an experiment with d_k), then four on multi-head attention
// as Raschka's article goes on (h = 3 heads and their queries for x_2, their
// keys and values, each head's weights side by side, the concatenation and
// W_o), each with a short explanation for a student, and a last one on an
// opened GPT-2's heads for the lesson's sentence (or where to get one), and
// one on the head lab: a repeated sentence, the heads its scores rank first,
// and the copy without the induction head (a button). The panel only says
// which stage to highlight (stepChanged); the window decides which view that
// is and sets the heads. During the multi-head steps it shows the numbers of
// the heads it is handed (setLiveHeads) and a button per head.
//
// The experiment's statements hold for q and k of mean 0 and variance 1 (the
// unit-variance initialisation): the window switches to it when the
// experiment starts on drawn matrices, and the panel says so (initNotice), or
// says that the user's own matrices were kept and may not show it.

#include "model.h"
#include "multihead.h"
#include "scaling_lab.h"

#include <QList>
#include <QStringList>
#include <QWidget>

#include <memory>

class QButtonGroup;
class QLabel;
class QPushButton;
class QToolButton;

namespace attnlab {

class LessonPanel : public QWidget {
    Q_OBJECT
public:
    enum class Stage {
        Scores,
        Scale,
        Softmax,
        Context,
        DkExperiment,
        LearningMatters,  // the Training tab at d_k 16 and 256, and what its curves show
        FlashTiles,       // the Flash tiles tab: the same head in tiles, the online softmax
        HeadQueries,      // h = 3 as in the article: stacked weights, query_2 per head
        HeadKeysValues,   // the Q, K, V tab on a chosen head
        HeadsAttend,      // the head grid: each head attends differently
        HeadsConcat,      // [Z_1 | ... | Z_h] and the output projection W_o
        ModelHeads,       // an opened GPT-2's heads on "cinema" and "watch", its next words
        HeadLab,          // the head lab on a repeated sentence: the copying heads, one removed
    };
    Q_ENUM(Stage)
    static constexpr int kStepCount = 13;
    // The article's x_2 ("is"), whose query each head's is shown.
    static constexpr int kArticleQuery = 1;
    // Buttons for the first heads; more are chosen in the parameter panel.
    static constexpr int kMaxHeadButtons = 8;

    explicit LessonPanel(QWidget* parent = nullptr);

    int step() const { return step_; }  // 0 .. kStepCount - 1
    Stage stage() const { return stageOfStep(step_); }
    static Stage stageOfStep(int step);
    static int stepOf(Stage stage);
    static bool isMultiHead(Stage stage);  // the four after the Flash tiles step

    QString title(int step) const;
    QString explanation(int step) const;
    QString stepIndicator() const;  // "Step 2 of 5"
    // The live line: the d_k experiment's, or the multi-head step's numbers.
    QString liveText() const;
    // What the experiment runs on, shown during it (empty on unit variance
    // chosen by the user).
    QString initNotice() const;
    attn::InitMode initMode() const { return init_; }
    bool initSwitched() const { return initSwitched_; }

    // The heads last handed over (null for a single head).
    std::shared_ptr<const attn::MultiHeadResult> heads() const { return heads_; }
    int selectedHead() const { return selectedHead_; }

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
    // The lesson put the lab's own matrices in place of a borrowed GPT-2
    // head (`head`: "GPT-2 layer 1, head 1") for the experiment; empty: none.
    void noteBorrowedReleased(const QString& head);
    // The session's heads, shown during the multi-head steps: the tokens'
    // labels, d_model (the stacked inputs' d) and the session's head.
    // What the training lab measured, shown during "why it matters for learning".
    void setLearningText(const QString& text);
    QString learningText() const { return learning_; }
    void setLiveHeads(std::shared_ptr<const attn::MultiHeadResult> heads, const QStringList& tokenLabels,
                      int dModel, int selectedHead);
    // The model step's text: whether a GPT-2 is open, and what its last
    // pass shows (CinemaLesson::lessonText; empty while none).
    void setLiveModel(bool modelOpen, const QString& findings);
    bool modelOpen() const { return modelOpen_; }
    // The head-lab step's text (CopyLesson::lessonText), whether its
    // button can remove the induction head, and whether it is removed.
    void setLiveCopy(const QString& findings, bool canRemove, bool removed);
    QPushButton* removeHeadButton() const { return removeHead_; }

signals:
    void stepChanged(int step, attnlab::LessonPanel::Stage stage);
    // Next on the last step.
    void finished();
    // A head's button clicked (0-based).
    void headRequested(int head);
    // The head-lab step's button: remove the induction head, or put it back.
    void inductionRemovalRequested(bool remove);

private:
    void showStep();
    void showHeadButtons();
    QString headsLiveText() const;
    QString headsToolTip() const;

    QLabel* indicator_ = nullptr;
    QLabel* title_ = nullptr;
    QLabel* text_ = nullptr;
    QLabel* live_ = nullptr;
    QLabel* notice_ = nullptr;
    QPushButton* back_ = nullptr;
    QPushButton* next_ = nullptr;
    QPushButton* removeHead_ = nullptr;
    QLabel* headsLabel_ = nullptr;
    QList<QToolButton*> headButtons_;
    QButtonGroup* headGroup_ = nullptr;
    int step_ = 0;
    attn::ScalingComparison comparison_;
    QString learning_;
    attn::InitMode init_ = attn::InitMode::Article;
    bool initSwitched_ = false;
    QString releasedHead_;  // see noteBorrowedReleased
    std::shared_ptr<const attn::MultiHeadResult> heads_;
    QStringList tokenLabels_;
    int dModel_ = 0;
    int selectedHead_ = 0;
    bool modelOpen_ = false;
    QString modelFindings_;
    QString copyFindings_;
    bool canRemoveHead_ = false;
    bool headRemoved_ = false;
};

}  // namespace attnlab
