// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Export and copy for every view of the window, one mechanism for all: the
// views ViewExporter draws from the current snapshot (the maps, the
// pipeline figure, the scaled-vs-unscaled comparison) and live views
// registered here with an ExportSource (the d_k lab's plots, the focused
// query panel, any later view). installMenu() gives a widget the right-click
// (and menu key) menu: Copy, Export picture…, Export numbers….
//
// Pictures go through pictureencoder (PNG, SVG, PDF) with the export
// options (focus box, colour ranges, font scale); numbers are CSV. The file
// and dialog prompts can be replaced, so that tests drive the whole path.

#include "attentionexport.h"
#include "expected.h"
#include "pictureencoder.h"
#include "viewexporter.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <string>

class QCustomPlot;
class QMenu;
class QWidget;

namespace attnlab {

class ExportDialog;

// A view drawn by itself rather than from the snapshot.
struct ExportSource {
    QString name;  // for menus and titles: "d_k lab: entropy"
    QString stem;  // the file name's stem: "scaling_lab_entropy"
    QSize defaultSize;
    PaintFunction paint;                   // draws the view filling (0, 0, size)
    std::function<std::string()> numbers;  // its numbers as CSV; empty text: none
    // Why the numbers are empty, when there is a reason to say (default: not there yet).
    std::function<QString()> whyNoNumbers{};
    // Why the view has nothing to show now (no model open); empty text, or
    // no function: it is there. views() leaves such a view out, and its
    // picture and numbers are refused with this reason.
    std::function<QString()> unavailable{};
};

// A QCustomPlot laid out and drawn at the picture's size (QCustomPlot::toPainter).
PaintFunction plotPainter(QCustomPlot* plot);

class ViewExportController : public QObject {
    Q_OBJECT
public:
    // makeExporter: the window's current snapshot with these options;
    // defaults: the options as the window shows the views now.
    using ExporterFactory = std::function<std::unique_ptr<ViewExporter>(const ExportOptions&)>;
    ViewExportController(QWidget* window, ExporterFactory makeExporter,
                         std::function<ExportOptions()> defaults);

    void registerView(ExportView view, ExportSource source);
    // Right-click or the menu key on `widget` (or a child that does not take
    // the event itself) opens the view's menu.
    void installMenu(QWidget* widget, ExportView view);
    // The same menu, not shown.
    QMenu* createMenu(ExportView view, QWidget* parent);

    // The snapshot's, then the registered ones that have something to show.
    QList<ExportView> views() const;
    bool hasView(ExportView view) const;
    QString name(ExportView view) const;
    QString stem(ExportView view) const;
    QSize defaultSize(ExportView view) const;
    ExportOptions defaultOptions() const { return defaults_(); }

    attn::Expected<QByteArray> picture(ExportView view, ImageFormat format, const QSize& size, qreal scale,
                                       const ExportOptions& options) const;
    QImage image(ExportView view, const QSize& size, qreal scale, const ExportOptions& options) const;
    attn::Expected<std::string> numbers(ExportView view) const;
    // The format from the suffix (.png, .svg, .pdf).
    attn::Status writePicture(ExportView view, const QString& path, const QSize& size, qreal scale,
                              const ExportOptions& options) const;
    attn::Status writeNumbers(ExportView view, const QString& path) const;

    // The user's gestures: each ends in message().
    void copy(ExportView view);           // the picture on the clipboard
    void exportPicture(ExportView view);  // the dialog, then a file name
    void exportNumbers(ExportView view);  // a .csv file name

    using PathPrompt =
        std::function<QString(const QString& title, const QString& suggested, const QString& filter)>;
    void setSavePathPrompt(PathPrompt prompt) { savePath_ = std::move(prompt); }
    void setDialogRunner(std::function<bool(ExportDialog&)> run) { runDialog_ = std::move(run); }

signals:
    void message(const QString& text);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QString unavailable(ExportView view) const;
    PaintFunction painter(ExportView view, const ExportOptions& options,
                          std::shared_ptr<ViewExporter>* keep) const;

    QWidget* window_;
    ExporterFactory makeExporter_;
    std::function<ExportOptions()> defaults_;
    QList<ExportView> registeredOrder_;
    QHash<int, ExportSource> sources_;
    QHash<QObject*, int> menus_;  // widget -> view
    PathPrompt savePath_;
    std::function<bool(ExportDialog&)> runDialog_;
};

}  // namespace attnlab
