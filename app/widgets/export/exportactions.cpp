// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportactions.h"

#include "focuspanel.h"
#include "headspanel.h"
#include "heatmapview.h"
#include "modelexports.h"
#include "pipelineview.h"
#include "scaling_lab.h"
#include "scalingcompareview.h"
#include "scalinglabview.h"
#include "session.h"
#include "stagedwrite.h"
#include "trainingview.h"
#include "viewnumbers.h"
#include "scorehistogramview.h"
#include "viewexportcontroller.h"
#include "focusedqueryfigure.h"
#include "lastfolder.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QMenu>
#include <qcustomplot.h>

namespace attnlab {

ExportActions::ExportActions(Session* session, Views views, std::function<int()> focusQuery, QWidget* window)
    : QObject(window), session_(session), views_(views), focusQuery_(std::move(focusQuery)), window_(window)
{
    exports_ = new ViewExportController(
        window,
        [this](const ExportOptions& options) {
            auto exporter = std::make_unique<ViewExporter>(currentSnapshot(), focusQuery_(), options);
            exporter->setWeightsScaleMode(views_.pipeline->weightsScaleMode());
            return exporter;
        },
        [this] {
            ExportOptions options;
            options.independentRanges = views_.pipeline->independentRanges();
            return options;
        });
    connect(exports_, &ViewExportController::message, this,
            [this](const QString& text) { emit message(text, 10000); });
    registerViews();
}

void ExportActions::registerViews()
{
    // maps() is in ExportView's order, raw scores to context.
    const QList<HeatmapView*> maps = views_.pipeline->maps();
    for (int i = 0; i < maps.size(); ++i)
        exports_->installMenu(maps[i], ExportView(int(ExportView::RawScores) + i));
    if (auto* page = views_.pipeline->findChild<QWidget*>(QStringLiteral("pipelinePage")))
        exports_->installMenu(page, ExportView::Pipeline);
    exports_->installMenu(views_.compare, ExportView::ScalingComparison);
    exports_->installMenu(views_.compare->histogramView(), ExportView::ScoreHistogram);
    ScalingLabView* lab = views_.lab;
    for (int i = 0; i < ScalingLabView::kPlotCount; ++i) {
        const auto view = ExportView(int(ExportView::LabVariance) + i);
        exports_->registerView(
            view, {ViewExporter::viewName(view), ViewExporter::fileStem(view),
                   ViewExporter::defaultSize(view), plotPainter(lab->plot(ScalingLabView::Plot(i))),
                   [lab, i] { return lab->hasCurves() ? scalingLabCsv(lab->curves(), i) : std::string(); }});
        exports_->installMenu(lab->plot(ScalingLabView::Plot(i)), view);
    }
    const ExportView focus = ExportView::FocusedQuery;
    // A figure drawn from the numbers, as the other exports are (not a grab of the panel).
    exports_->registerView(
        focus,
        {ViewExporter::viewName(focus), ViewExporter::fileStem(focus), ViewExporter::defaultSize(focus),
         [this](QPainter& painter, const QSize& size) {
             paintFocusedQueryFigure(painter, size, currentSnapshot(), focusQuery_());
         },
         [this] { return makeViewExporter()->numbers(ExportView::FocusedQuery); }});
    // The plot takes its own context-menu events.
    exports_->installMenu(views_.focus, focus);
    exports_->installMenu(views_.focus->plot(), focus);
    if (views_.heads)
        views_.heads->registerExports(exports_);
    if (views_.model) {
        views_.model->registerExports(exports_);
        connect(views_.model, &ModelExports::message, this,
                [this](const QString& text) { emit message(text, 10000); });
    }
    if (TrainingView* training = views_.training)
        for (int i = 0; i < TrainingView::kPlotCount; ++i) {
            const auto view = ExportView(int(ExportView::TrainingLoss) + i);
            const auto plot = TrainingView::Plot(i);
            ExportSource source{ViewExporter::viewName(view), ViewExporter::fileStem(view),
                                ViewExporter::defaultSize(view), plotPainter(training->plot(plot)),
                                [training, plot] { return training->plotCsv(plot); }};
            source.whyNoNumbers = [] { return tr("The training lab has no steps yet: start it first."); };
            exports_->registerView(view, std::move(source));
            exports_->installMenu(training->plot(plot), view);
        }
}

void ExportActions::addFileActions(QMenu* file)
{
    QAction* picture = file->addAction(tr("&Export a picture…"), this,
                                       [this] { exports_->exportPicture(ExportView::Pipeline); });
    picture->setObjectName(QStringLiteral("exportPictureAction"));
    picture->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    picture->setStatusTip(tr("One heatmap or the pipeline figure as PNG, SVG or PDF."));
    QAction* all = file->addAction(tr("Export all &views…"), this, &ExportActions::exportAllViewsInteractive);
    all->setObjectName(QStringLiteral("exportAllViewsAction"));
    all->setStatusTip(
        tr("Every heatmap, the pipeline figure, the histogram, the focused query and the d_k lab's plots as "
           "PNG, SVG and PDF into a folder."));
    QAction* numbers =
        file->addAction(tr("Export n&umbers…"), this, &ExportActions::exportNumbersInteractive);
    numbers->setObjectName(QStringLiteral("exportNumbersAction"));
    numbers->setStatusTip(tr("Every matrix as CSV, JSON and NumPy .npy into a folder."));
    if (views_.model)
        views_.model->addFileActions(file);
}

void ExportActions::addEditActions(QMenu* edit)
{
    QAction* copy = edit->addAction(tr("&Copy the pipeline figure"), this,
                                    [this] { copyViewToClipboard(ExportView::Pipeline); });
    copy->setObjectName(QStringLiteral("copyFigureAction"));
    copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    copy->setStatusTip(tr("The three score maps as one picture on the clipboard, for slides."));
}

AttentionSnapshot ExportActions::currentSnapshot() const
{
    // With a problem the config is the refused request: the snapshot
    // describes what is shown.
    return singleHeadSnapshot(session_->inputs().config, session_->inputs().options, session_->inputs().model,
                              *session_->published()->shown(), session_->published()->stats());
}

std::unique_ptr<ViewExporter> ExportActions::makeViewExporter() const
{
    auto exporter = std::make_unique<ViewExporter>(currentSnapshot(), focusQuery_(),
                                                   views_.pipeline->independentRanges());
    exporter->setWeightsScaleMode(views_.pipeline->weightsScaleMode());
    return exporter;
}

attn::Status ExportActions::exportView(ExportView view, const QString& path, const QSize& size,
                                       qreal scale) const
{
    return exports_->writePicture(view, path, size, scale, exports_->defaultOptions());
}

attn::Status ExportActions::exportAllViews(const QString& directory, const QSize& size) const
{
    static const ImageFormat kFormats[] = {ImageFormat::Png, ImageFormat::Svg, ImageFormat::Pdf};
    const std::unique_ptr<ViewExporter> exporter = makeViewExporter();
    std::vector<OutputFile> files;
    for (ImageFormat format : kFormats) {
        attn::Expected<std::vector<OutputFile>> some = exporter->files(format, size);
        if (!some)
            return some.error();
        for (OutputFile& f : some.value())
            files.push_back(std::move(f));
    }
    // The views drawn from live widgets: the focused query's panel, and the
    // d_k lab's four plots once their curves are there (computed in the
    // background from the window's start).
    // The scaled-vs-unscaled comparison, drawn from the snapshot too.
    for (ImageFormat format : kFormats) {
        attn::Expected<QByteArray> bytes = exporter->encode(
            ExportView::ScalingComparison, format,
            size.isValid() ? size : ViewExporter::defaultSize(ExportView::ScalingComparison));
        if (!bytes)
            return bytes.error();
        files.push_back(bytesFile(ViewExporter::fileStem(ExportView::ScalingComparison).toStdString() + '.'
                                      + imageFormatName(format),
                                  std::move(bytes).value()));
    }
    QList<ExportView> live{ExportView::FocusedQuery};
    if (views_.lab->hasCurves())
        live << ExportView::LabVariance << ExportView::LabMaxWeight << ExportView::LabEntropy
             << ExportView::LabJacobian;
    if (views_.training && views_.training->hasSteps())
        for (int i = 0; i < TrainingView::kPlotCount; ++i)
            live << ExportView(int(ExportView::TrainingLoss) + i);
    for (const ExportView view : live) {
        const QSize viewSize = size.isValid() ? size : exports_->defaultSize(view);
        for (ImageFormat format : kFormats) {
            attn::Expected<QByteArray> bytes =
                exports_->picture(view, format, viewSize, 1.0, exports_->defaultOptions());
            if (!bytes)
                return bytes.error();
            files.push_back(bytesFile(exports_->stem(view).toStdString() + '.' + imageFormatName(format),
                                      std::move(bytes).value()));
        }
    }
    // Every head's maps, the grid and the average, with several heads.
    if (views_.heads && views_.heads->hasResult()) {
        attn::Expected<std::vector<OutputFile>> heads = views_.heads->pictureFiles(size);
        if (!heads)
            return heads.error();
        for (OutputFile& f : heads.value())
            files.push_back(std::move(f));
    }
    // The GPT-2 model's pictures and numbers as the command line writes them, with a pass shown.
    if (views_.model) {
        attn::Expected<std::vector<OutputFile>> model = views_.model->pictureFiles(size);
        if (!model)
            return model.error();
        for (OutputFile& f : model.value())
            files.push_back(std::move(f));
        for (OutputFile& f : views_.model->jsonFiles())
            files.push_back(std::move(f));
    }
    return writeFilesAtomically(directory, files);
}

attn::Status ExportActions::exportNumbers(const QString& directory, const ExportFormats& formats) const
{
    if (!session_->problem().isEmpty())
        return attn::Error{session_->problem().toStdString()};
    ExportFormats numbers = formats;
    numbers.png = numbers.svg = numbers.pdf = false;  // exportAllViews draws the pictures
    const AttentionSnapshot snapshot = currentSnapshot();
    if (!views_.heads || !views_.heads->hasResult())
        return exportAttention(directory, snapshot, numbers);
    // With several heads, every head's matrices beside the shown head's files.
    std::vector<OutputFile> files = attentionExportFiles(snapshot, numbers);
    for (OutputFile& f : views_.heads->numberFiles(numbers))
        files.push_back(std::move(f));
    return writeFilesAtomically(directory, files);
}

void ExportActions::copyViewToClipboard(ExportView view) const
{
    exports_->copy(view);
}

void ExportActions::exportAllViewsInteractive()
{
    const QString directory = QFileDialog::getExistingDirectory(window_, tr("Export all views into"),
                                                                lastFolder(FolderUse::Export));
    if (directory.isEmpty())
        return;
    rememberFolder(FolderUse::Export, directory);
    const bool withLab = views_.lab->hasCurves();
    const attn::Status written = exportAllViews(directory, QSize());
    if (!written)
        emit message(QString::fromStdString(written.error().message), 10000);
    else if (withLab)
        emit message(tr("Wrote every view to %1.").arg(QDir::toNativeSeparators(directory)), 10000);
    else
        emit message(tr("Wrote every view to %1, except the d_k lab's plots: they are still being "
                        "computed (export them from the lab's tab when they are shown).")
                         .arg(QDir::toNativeSeparators(directory)),
                     10000);
}

void ExportActions::exportNumbersInteractive()
{
    const QString directory = QFileDialog::getExistingDirectory(window_, tr("Export the numbers into"),
                                                                lastFolder(FolderUse::Export));
    if (directory.isEmpty())
        return;
    rememberFolder(FolderUse::Export, directory);
    ExportFormats formats;
    formats.json = formats.csv = formats.npy = true;
    const attn::Status written = exportNumbers(directory, formats);
    emit message(written ? tr("Wrote the matrices to %1.").arg(QDir::toNativeSeparators(directory))
                         : QString::fromStdString(written.error().message),
                 10000);
}

}  // namespace attnlab
