// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's exports: the current run as a snapshot for the exporters,
// every view registered with the ViewExportController (the maps, the
// pipeline figure, the comparison, the histogram, the d_k lab's plots, the
// focused query) with its right-click menu, and the File and Edit actions
// (Export a picture, Export all views, Export numbers, Copy the figure).

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "expected.h"
#include "viewexporter.h"

#include <QObject>
#include <QSize>

#include <functional>
#include <memory>

class QMenu;
class QWidget;

namespace attnlab {

class FocusPanel;
class HeadsPanel;
class ModelExports;
class PipelineView;
class ScalingCompareView;
class ScalingLabView;
class TrainingView;
class Session;
class ViewExportController;

class ExportActions : public QObject {
    Q_OBJECT
public:
    struct Views {
        PipelineView* pipeline = nullptr;
        FocusPanel* focus = nullptr;
        ScalingCompareView* compare = nullptr;
        ScalingLabView* lab = nullptr;
        // The multi-head views: registered, and written by "Export all views"
        // and "Export numbers" while the panel has a multi-head result.
        HeadsPanel* heads = nullptr;
        // The GPT-2 views: registered, and written by "Export all views"
        // with model_attention.json while a model's pass is shown.
        ModelExports* model = nullptr;
        // The training lab's plots: written by "Export all views" once it has steps.
        TrainingView* training = nullptr;
    };
    // focusQuery: the query the window shows.
    ExportActions(Session* session, Views views, std::function<int()> focusQuery, QWidget* window);

    // Export and copy of every view, and their right-click menus.
    ViewExportController* controller() const { return exports_; }
    void addFileActions(QMenu* file);  // picture, all views, numbers
    void addEditActions(QMenu* edit);  // copy the pipeline figure

    // The current run as the exporters take it.
    AttentionSnapshot currentSnapshot() const;
    std::unique_ptr<ViewExporter> makeViewExporter() const;  // the window's focus and ranges
    // The format from the suffix (.png, .svg, .pdf).
    attn::Status exportView(ExportView view, const QString& path, const QSize& size, qreal scale = 1.0) const;
    // Every view as PNG, SVG and PDF into `directory`, all or nothing.
    attn::Status exportAllViews(const QString& directory, const QSize& size = QSize()) const;
    attn::Status exportNumbers(const QString& directory, const ExportFormats& formats) const;
    void copyViewToClipboard(ExportView view) const;

signals:
    void message(const QString& text, int timeout);

private:
    void registerViews();
    void exportAllViewsInteractive();
    void exportNumbersInteractive();

    Session* session_;
    Views views_;
    std::function<int()> focusQuery_;
    QWidget* window_;
    ViewExportController* exports_;
};

}  // namespace attnlab
