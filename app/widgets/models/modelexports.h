// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The model views' exports, through the window's ViewExportController like
// every other view: the model view (the layers x heads grid), the head view
// (the shown layer's heads as lines) and the next-token panel, each with
// its right-click menu (Copy, Export picture…, Export numbers…), drawn by
// ModelPicturesExporter from the session's shown pass. A picture of one
// view is the view as shown: the selected head outlined and the ranking on
// the grid, the head view's layer and the heads switched on, the
// temperature set after the pass.
//
// File > Export all views adds what `attention-lab --model DIR --sentence
// TEXT --format json,png,svg,pdf` writes for the same state (model, sentence,
// scale, temperature, and the head lab's --ablate, --ablation and --probe),
// file for file and pixel for pixel: model_view,
// head_view_layer<N> for every layer and next_token in each format, and
// model_attention.json (modelattentionexport.h); for a model with RoPE also
// what `--rope L.H` adds for the selected head: rope in each format and
// rope.json (rotaryexport.h). Without a model, or before its first pass,
// the model views are not offered and add nothing; the RoPE view is not
// offered for a model without RoPE (GPT-2).
//
// The Lens page's rollout and A/B difference maps have the same right-click
// menu (a picture with the model, the sentence and which passes they read;
// their cells as CSV), offered once they are computed (the page shown).
// Export all views leaves them out, as the command line's files do.

#include "attentionexport.h"
#include "headlabexport.h"
#include "expected.h"
#include "modelattentionexport.h"
#include "modelpicturesexporter.h"
#include "rotary_head.h"
#include "stagedwrite.h"

#include <QObject>
#include <QSize>
#include <QString>

#include <memory>
#include <string>
#include <vector>

class QMenu;
class QWidget;

namespace attnlab {

class ModelComparison;
class ModelReadings;
class ModelSession;
class HeadLinesView;
class ModelGridView;
class NextTokenView;
class RotaryView;
class ViewExportController;

class ModelExports : public QObject {
    Q_OBJECT
public:
    struct Views {
        ModelGridView* grid = nullptr;
        HeadLinesView* lines = nullptr;
        NextTokenView* next = nullptr;
        RotaryView* rotary = nullptr;  // the head lab's RoPE page
        // The head lab's Lens page: the rollout's and the difference's
        // views, and what they show.
        QWidget* rollout = nullptr;
        QWidget* difference = nullptr;
        ModelReadings* readings = nullptr;
        ModelComparison* comparison = nullptr;
    };
    ModelExports(ModelSession* session, Views views, QWidget* window);

    // The three views and their menus on the grid, the head view and the bars.
    void registerExports(ViewExportController* controller);
    void addFileActions(QMenu* file);  // Export model attention (JSON)…

    // A pass is shown (with every head's maps).
    bool hasResult() const;
    // Why there is nothing to export, or empty.
    QString unavailable() const;
    // asShown: the views' selection, ranking, layer and heads (one picture
    // of a view); else the command line's pictures (every layer's head view).
    std::unique_ptr<ModelPicturesExporter> makeExporter(bool asShown) const;
    // The command line's pictures in PNG, SVG and PDF; none without a pass.
    attn::Expected<std::vector<OutputFile>> pictureFiles(const QSize& size = QSize()) const;
    // model_attention.json of the shown pass, or none without one.
    std::vector<OutputFile> jsonFiles() const;
    attn::Status exportJson(const QString& path) const;
    // The model's scale mode for the export ("sqrt-dk", "none", "custom", "per-head").
    std::string scaleMode() const;
    // The next tokens at the window's temperature, as the views show them.
    ModelNextTokens nextTokens() const;
    // With heads ablated, the files of every view (Export all views, the
    // JSON) are those of --ablate: the ablated pass, its next tokens, and
    // the head lab's keys (ablated, ablation, next_token_intact; with the
    // probe, probe and its losses, as --probe writes them).
    bool exportsAblated() const;
    std::shared_ptr<const attn::DecoderResult> exportedPass() const;
    ModelNextTokens exportedNextTokens() const;
    ModelHeadLab headLab() const;
    // The selected head before and after RoPE, of the pass shown (asShown)
    // or of the exported pass; an error for a model without RoPE or no pass.
    attn::Expected<attn::RotaryHead> rotaryHead(bool asShown) const;
    // The Lens page's maps as their pictures draw them (empty values: none
    // yet), and their numbers as CSV: one row per (query, key) cell.
    ModelMapPicture rolloutPicture() const;
    ModelMapPicture differencePicture() const;
    std::string rolloutCsv() const;
    std::string differenceCsv() const;

signals:
    void message(const QString& text);

private:
    void exportJsonInteractive();
    std::string nextTokenCsv() const;
    std::string rotaryCsv() const;

    ModelSession* session_;
    Views views_;
    QWidget* window_;
};

}  // namespace attnlab
