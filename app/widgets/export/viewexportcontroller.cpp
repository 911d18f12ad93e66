// SPDX-License-Identifier: GPL-3.0-or-later
#include "viewexportcontroller.h"

#include "exportdialog.h"
#include "stagedwrite.h"
#include "lastfolder.h"

#include <QAction>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLayout>
#include <QMenu>
#include <QPainter>
#include <QPicture>
#include <QPointer>
#include <QSettings>
#include <qcustomplot.h>

#include <algorithm>

namespace attnlab {

namespace {

// Long-form numbers (one row per cell) of the n x n views beyond this many
// cells would be hundreds of megabytes: File > Export numbers writes the
// matrices themselves.
constexpr long long kMaxCellRows = 1000000;

QString stripMnemonic(QString text)
{
    text.replace(QLatin1String("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
    return text;
}

QString lastDirectory()
{
    return lastFolder(FolderUse::Export);
}

}  // namespace

PaintFunction plotPainter(QCustomPlot* plot)
{
    return [plot = QPointer<QCustomPlot>(plot)](QPainter& painter, const QSize& size) {
        if (!plot)
            return;
        // QCustomPlot draws with a QCPPainter of its own: recorded as a
        // picture (vectors, text kept as text) and replayed on the picture's.
        QPicture picture;
        QCPPainter recorder(&picture);
        recorder.setMode(QCPPainter::pmVectorized);
        recorder.setMode(QCPPainter::pmNoCaching);
        plot->toPainter(&recorder, size.width(), size.height());
        recorder.end();
        painter.drawPicture(0, 0, picture);
        // toPainter lays the plot out for the picture; lay it out again for the screen.
        plot->replot(QCustomPlot::rpQueuedReplot);
    };
}

ViewExportController::ViewExportController(QWidget* window, ExporterFactory makeExporter,
                                           std::function<ExportOptions()> defaults)
    : QObject(window), window_(window), makeExporter_(std::move(makeExporter)), defaults_(std::move(defaults))
{
}

void ViewExportController::registerView(ExportView view, ExportSource source)
{
    if (!sources_.contains(int(view)) && !ViewExporter::drawsView(view))
        registeredOrder_.append(view);
    sources_.insert(int(view), std::move(source));
}

void ViewExportController::installMenu(QWidget* widget, ExportView view)
{
    menus_.insert(widget, int(view));
    widget->installEventFilter(this);
    connect(widget, &QObject::destroyed, this, [this](QObject* o) { menus_.remove(o); });
}

QList<ExportView> ViewExportController::views() const
{
    QList<ExportView> all = ViewExporter::views();
    all.append(ExportView::ScalingComparison);
    for (const ExportView view : registeredOrder_)
        if (unavailable(view).isEmpty())
            all.append(view);
    return all;
}

QString ViewExportController::unavailable(ExportView view) const
{
    const auto it = sources_.constFind(int(view));
    return it != sources_.cend() && it->unavailable ? it->unavailable() : QString();
}

bool ViewExportController::hasView(ExportView view) const
{
    return ViewExporter::drawsView(view) || sources_.contains(int(view));
}

QString ViewExportController::name(ExportView view) const
{
    const auto it = sources_.constFind(int(view));
    return it != sources_.cend() && !it->name.isEmpty() ? it->name : ViewExporter::viewName(view);
}

QString ViewExportController::stem(ExportView view) const
{
    const auto it = sources_.constFind(int(view));
    return it != sources_.cend() && !it->stem.isEmpty() ? it->stem : ViewExporter::fileStem(view);
}

QSize ViewExportController::defaultSize(ExportView view) const
{
    const auto it = sources_.constFind(int(view));
    return it != sources_.cend() && it->defaultSize.isValid() ? it->defaultSize
                                                              : ViewExporter::defaultSize(view);
}

PaintFunction ViewExportController::painter(ExportView view, const ExportOptions& options,
                                            std::shared_ptr<ViewExporter>* keep) const
{
    const auto it = sources_.constFind(int(view));
    if (it != sources_.cend() && it->paint)
        return withFontScale(it->paint, options.fontScale);
    if (!ViewExporter::drawsView(view))
        return {};
    *keep = std::shared_ptr<ViewExporter>(makeExporter_(options));
    return [exporter = keep->get(), view](QPainter& p, const QSize& s) { exporter->paint(p, view, s); };
}

attn::Expected<QByteArray> ViewExportController::picture(ExportView view, ImageFormat format,
                                                         const QSize& size, qreal scale,
                                                         const ExportOptions& options) const
{
    if (const QString why = unavailable(view); !why.isEmpty())
        return attn::Error{why.toStdString()};
    std::shared_ptr<ViewExporter> exporter;
    const PaintFunction paint = painter(view, options, &exporter);
    if (!paint)
        return attn::Error{tr("\"%1\" cannot be exported.").arg(name(view)).toStdString()};
    return encodePicture(paint, format, size, scale, name(view));
}

QImage ViewExportController::image(ExportView view, const QSize& size, qreal scale,
                                   const ExportOptions& options) const
{
    if (!unavailable(view).isEmpty())
        return QImage();
    std::shared_ptr<ViewExporter> exporter;
    const PaintFunction paint = painter(view, options, &exporter);
    return paint ? renderPicture(paint, size, scale) : QImage();
}

attn::Expected<std::string> ViewExportController::numbers(ExportView view) const
{
    if (const QString why = unavailable(view); !why.isEmpty())
        return attn::Error{why.toStdString()};
    const auto it = sources_.constFind(int(view));
    if (it != sources_.cend() && it->numbers) {
        std::string text = it->numbers();
        if (text.empty() && it->whyNoNumbers && !it->whyNoNumbers().isEmpty())
            return attn::Error{it->whyNoNumbers().toStdString()};
        if (text.empty())
            return attn::Error{tr("\"%1\" has no numbers yet.").arg(name(view)).toStdString()};
        return text;
    }
    if (!ViewExporter::drawsView(view))
        return attn::Error{tr("\"%1\" has no numbers to export.").arg(name(view)).toStdString()};
    const std::unique_ptr<ViewExporter> exporter = makeExporter_(defaultOptions());
    const long long n = exporter->snapshot().head().tokens();
    if ((view == ExportView::Pipeline || view == ExportView::ScalingComparison) && n * n > kMaxCellRows)
        return attn::Error{tr("%1 tokens make %2 cells, too many for one row each: File > Export "
                              "numbers writes the whole matrices (CSV and .npy).")
                               .arg(n)
                               .arg(n * n)
                               .toStdString()};
    return exporter->numbers(view);
}

attn::Status ViewExportController::writePicture(ExportView view, const QString& path, const QSize& size,
                                                qreal scale, const ExportOptions& options) const
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    ImageFormat format = ImageFormat::Png;
    if (suffix == QLatin1String("svg"))
        format = ImageFormat::Svg;
    else if (suffix == QLatin1String("pdf"))
        format = ImageFormat::Pdf;
    else if (suffix != QLatin1String("png"))
        return attn::Error{tr("\"%1\": choose a .png, .svg or .pdf file name.")
                               .arg(QFileInfo(path).fileName())
                               .toStdString()};
    const attn::Expected<QByteArray> bytes = picture(view, format, size, scale, options);
    if (!bytes)
        return bytes.error();
    return writeFileAtomically(path, bytes.value());
}

attn::Status ViewExportController::writeNumbers(ExportView view, const QString& path) const
{
    const attn::Expected<std::string> text = numbers(view);
    if (!text)
        return text.error();
    const std::string& data = text.value();
    return writeFileAtomically(
        path, [&data](std::ostream& out) { out.write(data.data(), std::streamsize(data.size())); });
}

QMenu* ViewExportController::createMenu(ExportView view, QWidget* parent)
{
    auto* menu = new QMenu(stripMnemonic(name(view)), parent);
    menu->setObjectName(QStringLiteral("exportMenu"));
    QAction* copy = menu->addAction(tr("&Copy"), this, [this, view] { this->copy(view); });
    copy->setObjectName(QStringLiteral("exportMenuCopy"));
    copy->setStatusTip(tr("%1 as a picture on the clipboard.").arg(name(view)));
    QAction* picture = menu->addAction(tr("Export &picture…"), this, [this, view] { exportPicture(view); });
    picture->setObjectName(QStringLiteral("exportMenuPicture"));
    picture->setStatusTip(tr("%1 as PNG, SVG or PDF.").arg(name(view)));
    QAction* numbers = menu->addAction(tr("Export &numbers…"), this, [this, view] { exportNumbers(view); });
    numbers->setObjectName(QStringLiteral("exportMenuNumbers"));
    numbers->setStatusTip(tr("The numbers behind %1 as CSV.").arg(name(view)));
    return menu;
}

bool ViewExportController::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::ContextMenu) {
        const auto it = menus_.constFind(watched);
        if (it != menus_.cend()) {
            auto* e = static_cast<QContextMenuEvent*>(event);
            QMenu* menu = createMenu(ExportView(it.value()), window_);
            menu->setAttribute(Qt::WA_DeleteOnClose);
            menu->popup(e->globalPos());
            e->accept();
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

void ViewExportController::copy(ExportView view)
{
    const qreal dpr = window_ ? window_->devicePixelRatioF() : 1.0;
    const QImage picture = image(view, defaultSize(view), dpr, defaultOptions());
    if (picture.isNull()) {
        const QString why = unavailable(view);
        emit message(why.isEmpty() ? tr("\"%1\" cannot be copied.").arg(name(view)) : why);
        return;
    }
    QGuiApplication::clipboard()->setImage(picture);
    emit message(tr("%1 copied to the clipboard.").arg(name(view)));
}

void ViewExportController::exportPicture(ExportView view)
{
    if (const QString why = unavailable(view); !why.isEmpty()) {
        emit message(why);
        return;
    }
    QList<ExportDialog::Choice> choices;
    for (ExportView v : views())
        choices.append(
            {v, name(v), defaultSize(v), ViewExporter::showsFocus(v), ViewExporter::hasScoreRanges(v)});
    ExportDialog dialog(choices, window_);
    dialog.setView(view);
    ExportOptions options = dialog.options();
    options.independentRanges = defaultOptions().independentRanges;
    dialog.setOptions(options);
    const bool accepted = runDialog_ ? runDialog_(dialog) : dialog.exec() == QDialog::Accepted;
    if (!accepted)
        return;
    const QString suffix = QLatin1String(imageFormatName(dialog.format()));
    QString path =
        savePath_ ? savePath_(tr("Export a picture"),
                              QDir(lastDirectory()).filePath(stem(dialog.view()) + QLatin1Char('.') + suffix),
                              tr("%1 files (*.%2)").arg(suffix.toUpper(), suffix))
                  : QFileDialog::getSaveFileName(
                      window_, tr("Export a picture"),
                      QDir(lastDirectory()).filePath(stem(dialog.view()) + QLatin1Char('.') + suffix),
                      tr("%1 files (*.%2)").arg(suffix.toUpper(), suffix));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + suffix;
    rememberFile(FolderUse::Export, path);
    const attn::Status written =
        writePicture(dialog.view(), path, dialog.pictureSize(), dialog.scale(), dialog.options());
    emit message(written ? tr("Wrote %1.").arg(QDir::toNativeSeparators(path))
                         : QString::fromStdString(written.error().message));
}

void ViewExportController::exportNumbers(ExportView view)
{
    if (const QString why = unavailable(view); !why.isEmpty()) {
        emit message(why);
        return;
    }
    const QString suggested = QDir(lastDirectory()).filePath(stem(view) + QStringLiteral(".csv"));
    const QString filter = tr("CSV files (*.csv)");
    QString path = savePath_
                       ? savePath_(tr("Export the numbers"), suggested, filter)
                       : QFileDialog::getSaveFileName(window_, tr("Export the numbers"), suggested, filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".csv");
    rememberFile(FolderUse::Export, path);
    const attn::Status written = writeNumbers(view, path);
    emit message(written ? tr("Wrote %1.").arg(QDir::toNativeSeparators(path))
                         : QString::fromStdString(written.error().message));
}

}  // namespace attnlab
