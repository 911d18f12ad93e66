// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The multi-head panel: the head grid (with the choice of what its tiles
// show: weights, raw scores or scaled scores), and beside it the
// concatenation of the heads' contexts [Z_1 | … | Z_h] (n, h d_v) and the
// output projection concat · W_o (n, d_out) as maps of their own, the output
// hidden when the run has none. Handed the engine's result; reads no session.
//
// Exports: registerExports() makes the grid, the average, the concat and the
// output views of the window's export controller (Copy, Export picture…,
// Export numbers… on their context menus and in the export dialog); the
// grid's menu also writes every head's pictures and numbers into a folder
// (exportAll), which "Export all views" and "Export numbers" take too.

#include "attentionexport.h"
#include "expected.h"
#include "headgridrenderer.h"
#include "multihead.h"
#include "stagedwrite.h"

#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>
#include <string>
#include <vector>

class QComboBox;
class QLabel;

namespace attnlab {

class HeadGridView;
class HeadsExporter;
class HeatmapView;
class ViewExportController;

class HeadsPanel : public QWidget {
    Q_OBJECT
public:
    explicit HeadsPanel(QWidget* parent = nullptr);

    // Null (a single head): the grid and the maps are emptied.
    // changedHeads: the heads whose numbers differ from the result the
    // grid shows (Session::headsChangedSince), null when unknown. While the
    // panel is hidden in a shown window (another tab) the grid and the maps take the result
    // when it is next shown (and let go of the one they showed): a window
    // of 2048 tokens spent 5 ms a step on views no one saw.
    void setResult(std::shared_ptr<const attn::MultiHeadResult> result, const QStringList& tokenLabels,
                   int selectedHead, const std::vector<int>* changedHeads = nullptr);
    std::shared_ptr<const attn::MultiHeadResult> result() const { return result_; }
    QStringList tokenLabels() const { return tokens_; }
    void setSelectedHead(int head);
    int selectedHead() const;
    void setKind(HeadMapKind kind);
    HeadMapKind kind() const;
    // The weights' colour scale, as the pipeline's weights map has it
    // (PipelineView::weightsScaleModeChanged); the tiles and the pictures.
    void setWeightsScaleMode(WeightsScaleMode mode);
    WeightsScaleMode weightsScaleMode() const { return weightsMode_; }

    // More than one head: what the head exports write. (One head is shown
    // too, but its maps are the pipeline's, exported there; so Export all
    // views writes the same files whether or not this tab was opened.)
    bool hasResult() const { return result_ && result_->headCount() > 1; }

    // The pictures drawn from what the panel shows (its kind and selected head).
    std::unique_ptr<HeadsExporter> makeExporter() const;
    void registerExports(ViewExportController* controller);
    // Every picture (HeadsExporter::files) in each of PNG, SVG and PDF; an
    // empty size takes each one's default. Empty without a result.
    attn::Expected<std::vector<OutputFile>> pictureFiles(const QSize& size = QSize()) const;
    // Every head's numbers (multiHeadResultFiles), CSV and .npy as `formats`
    // asks; the files keep the result they write alive.
    std::vector<OutputFile> numberFiles(const ExportFormats& formats) const;
    // Both into `directory`, all or nothing.
    attn::Status exportAll(const QString& directory) const;

    HeadGridView* grid() const { return grid_; }
    HeatmapView* outputView() const { return output_; }

    // Replaces the folder dialog of exportAllInteractive (tests).
    void setDirectoryPrompt(std::function<QString()> prompt) { directoryPrompt_ = std::move(prompt); }
    void exportAllInteractive();

signals:
    // A head picked in the grid (0-based).
    void headActivated(int head);
    void message(const QString& text);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // the grid's context menu
    void showEvent(QShowEvent* event) override;                  // a result taken while hidden

private:
    void refreshMaps();
    std::string numbersCsv(int view) const;

    std::shared_ptr<const attn::MultiHeadResult> result_;
    QStringList tokens_;
    bool stale_ = false;  // result_ is not in the grid and the maps yet (hidden)
    int staleHead_ = -1;  // the selected head meanwhile
    QComboBox* kind_ = nullptr;
    QLabel* gridCaption_ = nullptr;
    HeadGridView* grid_ = nullptr;
    HeatmapView* concat_ = nullptr;
    QLabel* concatCaption_ = nullptr;
    HeatmapView* output_ = nullptr;
    QLabel* outputCaption_ = nullptr;
    QWidget* outputBox_ = nullptr;
    ViewExportController* exports_ = nullptr;
    WeightsScaleMode weightsMode_ = WeightsScaleMode::Automatic;
    std::function<QString()> directoryPrompt_;
};

}  // namespace attnlab
