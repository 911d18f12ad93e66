// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The "Model" tab over a ModelSession: the model in one line, the sentence's
// tokens with their ids ("␣" marks a leading space), the layers x
// heads grid (ModelGridView; a click makes a head the selected one and
// shows it in the pipeline, as the "Show … in the pipeline" button does), the
// selected head's weights from the last token, the ten most likely next
// tokens, the head lab (HeadLabPanel: head-type scores, which the grid
// prints, the induction probe, and ablation; LensPanel: the logit lens and
// the rollout), generation with the key/value cache
// (GenerationPanel, the head lab's last page), and the what-if controls
// (scale mode and divisor, where it applies, the temperature, the mask:
// MaskWhatIfBox). It shows what the session computed and hands
// every change to it.

#include "modelpass.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QWidget>

#include <optional>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QTextBrowser;

namespace attnlab {

class GenerationPanel;
class GenerationSession;
class HeadLabPanel;
class RotaryPanel;
class LensPanel;
class ModelComparison;
class ModelReadings;
class MaskWhatIfBox;
class QkNormWhatIfBox;
class ModelSession;
class ModelGridView;
class NextTokenView;

class ModelPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(ModelSession* session, QWidget* parent = nullptr);

    ModelGridView* grid() const { return grid_; }
    int rankedKey() const { return rankKey_; }
    // The most likely next tokens as bars, most likely first.
    NextTokenView* nextTokenView() const { return next_; }
    // The head lab: scores, ablation, the intact and ablated next tokens.
    HeadLabPanel* headLab() const { return headLab_; }
    RotaryPanel* rotaryPanel() const { return rotary_; }
    // The "Generate" page and the generation it shows.
    GenerationPanel* generationPanel() const { return generationPanel_; }
    GenerationSession* generation() const { return generation_; }
    // The "Lens" page: the logit lens and the rollout, and their numbers.
    LensPanel* lensPanel() const { return lens_; }
    ModelReadings* readings() const { return readings_; }
    // The Lens page's A/B difference maps.
    ModelComparison* comparison() const { return comparison_; }

    // Shown in the message line (a failed open, a refused what-if).
    void showMessage(const QString& text);
    // The what-if controls (divisor, temperature, mask, QK-norm) set from
    // the session, after a lab set its what-ifs (ModelViewState::restored).
    void syncWhatIfs();

signals:
    // The selected head, into the pipeline (the button; the grid's click
    // and Enter are ModelGridView::headShown).
    void showInPipeline();

protected:
    // A new font (presentation mode): the tables' rows and columns, the
    // pieces' two lines and the head caption measured for it.
    void changeEvent(QEvent* event) override;

private:
    void fitToFont();
    void showModel();
    void showResult();
    void showSelection();
    void showTokens();
    void applyScale();
    void rankBy(int key);  // -1: none
    void showRanking();
    void showAblated();

    ModelSession* session_;
    QLabel* summary_;
    QTextBrowser* tokens_;
    QList<QPair<QString, int>> shownPieces_;  // (display, id) of the pieces tokens_ shows
    std::optional<RepeatProbe> shownProbe_;   // the probe they are of
    QLabel* message_;
    ModelGridView* grid_;
    QLabel* headCaption_;
    // The lesson's line when the sentence has "␣cinema" or "␣watch": the
    // heads with the largest weight from the last token on each
    // (CinemaLesson::panelText); hidden otherwise.
    QLabel* lesson_;
    // Token, weight: the selected head's row of the last query. A click on
    // a key ranks every head of the grid by its weight from the last token
    // to that key (again: no ranking).
    QTableWidget* lastRow_;
    QWidget* side_ = nullptr;  // the next-token bars and the ablation table
    NextTokenView* next_;
    HeadLabPanel* headLab_;
    RotaryPanel* rotary_ = nullptr;
    ModelReadings* readings_;
    ModelComparison* comparison_;
    LensPanel* lens_;
    GenerationSession* generation_;
    GenerationPanel* generationPanel_;
    QComboBox* scale_;
    QDoubleSpinBox* divisor_;
    QComboBox* scope_;
    QDoubleSpinBox* temperature_;
    MaskWhatIfBox* maskWhatIf_;
    QkNormWhatIfBox* qkNormWhatIf_;
    QPushButton* reset_;
    // "Show layer L head H in the pipeline": the selected head (showInPipeline).
    QPushButton* show_;
    QLabel* divisorCaption_;
    int rankKey_ = -1;
};

}  // namespace attnlab
