// SPDX-License-Identifier: GPL-3.0-or-later
#include "headspanel.h"

#include "headgridview.h"
#include "headsexporter.h"
#include "heatmapview.h"
#include "attentionexport.h"
#include "presentation.h"
#include "viewexportcontroller.h"
#include "lastfolder.h"

#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QVBoxLayout>

namespace attnlab {

namespace {

QLabel* captionLabel(const QString& name, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    return label;
}

}  // namespace

HeadsPanel::HeadsPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("headsPanel"));
    setAccessibleName(tr("Heads"));

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    auto* showLabel = new QLabel(tr("Tiles show:"), left);
    kind_ = new QComboBox(left);
    kind_->setObjectName(QStringLiteral("headKind"));
    kind_->setAccessibleName(tr("What the head tiles show"));
    kind_->addItem(tr("Weights A_i"), int(HeadMapKind::Weights));
    kind_->addItem(tr("Raw scores Q_i K_iᵀ"), int(HeadMapKind::Scores));
    kind_->addItem(tr("Scaled scores"), int(HeadMapKind::Scaled));
    showLabel->setBuddy(kind_);
    top->addWidget(showLabel);
    top->addWidget(kind_);
    top->addStretch(1);
    leftLayout->addLayout(top);
    grid_ = new HeadGridView(left);
    leftLayout->addWidget(grid_, 1);
    gridCaption_ = captionLabel(QStringLiteral("headGridCaption"), left);
    gridCaption_->setText(
        tr("max: a query's largest weight, averaged over the queries; the last tile "
           "averages the heads' weights. Click a head (or arrows, then Enter) to show "
           "it in the other views."));
    gridCaption_->setToolTip(
        tr("Each head runs scaled dot-product attention with its own W_q, W_k and W_v "
           "on the same tokens; the tiles share one colour scale."));
    leftLayout->addWidget(gridCaption_);

    // The concatenation and the output side by side: stacked, the two maps
    // and their captions made a 700-line screen's page scroll and the grid
    // lose its second row.
    auto* right = new QWidget(this);
    auto* rightLayout = new QHBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto* concatBox = new QWidget(right);
    auto* concatLayout = new QVBoxLayout(concatBox);
    concatLayout->setContentsMargins(0, 0, 0, 0);
    concat_ = new HeatmapView(concatBox);
    concat_->setObjectName(QStringLiteral("concatMap"));
    concat_->setColorMap(MapColors::Diverging);
    concatLayout->addWidget(concat_, 1);
    concatCaption_ = captionLabel(QStringLiteral("concatCaption"), concatBox);
    concatLayout->addWidget(concatCaption_);
    rightLayout->addWidget(concatBox, 1);
    outputBox_ = new QWidget(right);
    auto* outputLayout = new QVBoxLayout(outputBox_);
    outputLayout->setContentsMargins(0, 0, 0, 0);
    output_ = new HeatmapView(outputBox_);
    output_->setObjectName(QStringLiteral("outputMap"));
    output_->setColorMap(MapColors::Diverging);
    outputLayout->addWidget(output_, 1);
    outputCaption_ = captionLabel(QStringLiteral("outputCaption"), outputBox_);
    outputLayout->addWidget(outputCaption_);
    rightLayout->addWidget(outputBox_, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("headsSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(kind_, &QComboBox::currentIndexChanged, this,
            [this] { grid_->setKind(HeadMapKind(kind_->currentData().toInt())); });
    connect(grid_, &HeadGridView::headActivated, this, &HeadsPanel::headActivated);
    grid_->installEventFilter(this);
    refreshMaps();
}

void HeadsPanel::setResult(std::shared_ptr<const attn::MultiHeadResult> result,
                           const QStringList& tokenLabels, int selectedHead,
                           const std::vector<int>* changedHeads)
{
    result_ = std::move(result);
    tokens_ = tokenLabels;
    if (window()->isVisible() && !isVisible()) {
        if (!stale_) {
            // What they show would keep the old result's maps alive beside the new.
            grid_->setResult(nullptr, {}, -1);
            concat_->setData(attn::Matrix(), {}, {});
            output_->setData(attn::Matrix(), {}, {});
        }
        stale_ = true;
        staleHead_ = selectedHead;
        return;
    }
    stale_ = false;
    grid_->setResult(result_, tokens_, selectedHead, changedHeads);
    refreshMaps();
}

void HeadsPanel::showEvent(QShowEvent* event)
{
    if (stale_) {
        stale_ = false;
        grid_->setResult(result_, tokens_, staleHead_);
        refreshMaps();
    }
    QWidget::showEvent(event);
}

void HeadsPanel::setSelectedHead(int head)
{
    staleHead_ = head;
    grid_->setSelectedHead(head);
}

int HeadsPanel::selectedHead() const
{
    if (stale_)
        return result_ && staleHead_ >= 0 && staleHead_ < result_->headCount() ? staleHead_ : -1;
    return grid_->selectedHead();
}

void HeadsPanel::setKind(HeadMapKind kind)
{
    kind_->setCurrentIndex(kind_->findData(int(kind)));
}

HeadMapKind HeadsPanel::kind() const
{
    return grid_->kind();
}

void HeadsPanel::setWeightsScaleMode(WeightsScaleMode mode)
{
    weightsMode_ = mode;
    grid_->setWeightsScaleMode(mode);
}

void HeadsPanel::refreshMaps()
{
    if (!result_ || result_->headCount() == 0) {
        concat_->setTitle(tr("concat = [Z_1 | … | Z_h]"));
        concat_->setData(attn::Matrix(), {}, {});
        concatCaption_->setText(tr("No multi-head result: choose more than one head."));
        outputBox_->hide();
        return;
    }
    const attn::MultiHeadResult& r = *result_;
    const int h = r.headCount();
    const int n = int(r.concat.rows());
    const int dV = h > 0 ? int(r.concat.cols()) / h : 0;
    concat_->setTitle(tr("concat = [Z_1 | … | Z_%1]  (%2 × %3)").arg(h).arg(n).arg(r.concat.cols()));
    const double concatRange = symmetricRange(r.concat);
    concat_->setDecimals(decimalsForRange(concatRange));
    concat_->setCells(sharedMatrixCells(std::shared_ptr<const attn::Matrix>(result_, &r.concat)), tokens_,
                      concatColumnLabels(h, dV));
    concat_->setRange(-concatRange, concatRange);
    if (h == 1)
        concatCaption_->setText(tr("One head: its context Z_1 = A_1 V_1 is the whole concatenation "
                                   "(columns h1:1 … h1:%1). More heads: Heads in the parameters above.")
                                    .arg(dV));
    else
        concatCaption_->setText(tr("The %1 heads' context vectors side by side: columns h1:1 … h1:%2 are "
                                   "head 1's Z_1 = A_1 V_1, and so on.")
                                    .arg(h)
                                    .arg(dV));
    if (!r.hasOutput()) {
        outputBox_->hide();
        return;
    }
    const double outputRange = symmetricRange(r.output);
    output_->setTitle(tr("output = concat · W_o  (%1 × %2)").arg(r.output.rows()).arg(r.output.cols()));
    output_->setDecimals(decimalsForRange(outputRange));
    output_->setCells(sharedMatrixCells(std::shared_ptr<const attn::Matrix>(result_, &r.output)), tokens_,
                      dimensionLabels(int(r.output.cols())));
    output_->setRange(-outputRange, outputRange);
    outputCaption_->setText(r.layout == attn::HeadLayout::Split
                                ? tr("The output projection: concat · out_proj.weightᵀ + out_proj.bias, "
                                     "as torch.nn.MultiheadAttention returns it.")
                                : tr("The output projection: concat (n × h d_v) times W_o (h d_v × d_out)."));
    outputBox_->show();
}

std::unique_ptr<HeadsExporter> HeadsPanel::makeExporter() const
{
    return std::make_unique<HeadsExporter>(result_, tokens_, kind(), selectedHead(), weightsMode_);
}

std::string HeadsPanel::numbersCsv(int view) const
{
    if (!hasResult())
        return {};
    std::vector<std::string> tokens;
    for (const QString& t : tokens_)
        tokens.push_back(t.toStdString());
    const attn::MultiHeadResult& r = *result_;
    switch (ExportView(view)) {
    case ExportView::HeadAverage: return multiHeadMatrixCsv(r.weightsAverage, tokens, true);
    case ExportView::HeadConcat: return multiHeadMatrixCsv(r.concat, tokens, false);
    case ExportView::HeadOutput:
        return r.hasOutput() ? multiHeadMatrixCsv(r.output, tokens, false) : std::string();
    default: break;
    }
    return makeExporter()->gridNumbers();
}

void HeadsPanel::registerExports(ViewExportController* controller)
{
    exports_ = controller;
    const auto source = [this](ExportView view, void (HeadsExporter::*paint)(QPainter&, const QSize&) const) {
        ExportSource s;
        s.name = ViewExporter::viewName(view);
        s.stem = ViewExporter::fileStem(view);
        s.defaultSize = ViewExporter::defaultSize(view);
        s.paint = [this, paint](QPainter& painter, const QSize& size) {
            const std::unique_ptr<HeadsExporter> exporter = makeExporter();
            ((*exporter).*paint)(painter, size);
        };
        s.numbers = [this, view] { return numbersCsv(int(view)); };
        if (view == ExportView::HeadGrid)
            s.whyNoNumbers = [this] { return makeExporter()->gridNumbersProblem(); };
        exports_->registerView(view, std::move(s));
    };
    source(ExportView::HeadGrid, &HeadsExporter::paintGrid);
    source(ExportView::HeadAverage, &HeadsExporter::paintAverage);
    source(ExportView::HeadConcat, &HeadsExporter::paintConcat);
    source(ExportView::HeadOutput, &HeadsExporter::paintOutput);
    exports_->installMenu(concat_, ExportView::HeadConcat);
    exports_->installMenu(output_, ExportView::HeadOutput);
}

attn::Expected<std::vector<OutputFile>> HeadsPanel::pictureFiles(const QSize& size) const
{
    std::vector<OutputFile> files;
    if (!hasResult())
        return files;
    const std::unique_ptr<HeadsExporter> exporter = makeExporter();
    for (const ImageFormat format : {ImageFormat::Png, ImageFormat::Svg, ImageFormat::Pdf}) {
        attn::Expected<std::vector<OutputFile>> some = exporter->files(format, size);
        if (!some)
            return some.error();
        for (OutputFile& f : some.value())
            files.push_back(std::move(f));
    }
    return files;
}

std::vector<OutputFile> HeadsPanel::numberFiles(const ExportFormats& formats) const
{
    if (!hasResult())
        return {};
    auto tokens = std::make_shared<std::vector<std::string>>();
    for (const QString& t : tokens_)
        tokens->push_back(t.toStdString());
    std::vector<OutputFile> files = multiHeadResultFiles(*result_, *tokens, formats);
    // Each writer keeps the result and the labels it refers to.
    for (OutputFile& f : files)
        f.write = [write = std::move(f.write), result = result_, tokens](std::ostream& out) { write(out); };
    return files;
}

attn::Status HeadsPanel::exportAll(const QString& directory) const
{
    if (!hasResult())
        return attn::Error{tr("There is one head: choose more heads to export the head grid.").toStdString()};
    attn::Expected<std::vector<OutputFile>> files = pictureFiles();
    if (!files)
        return files.error();
    ExportFormats numbers;
    numbers.json = false;
    numbers.csv = numbers.npy = true;
    for (OutputFile& f : numberFiles(numbers))
        files.value().push_back(std::move(f));
    return writeFilesAtomically(directory, files.value());
}

void HeadsPanel::exportAllInteractive()
{
    const QString directory = directoryPrompt_ ? directoryPrompt_()
                                               : QFileDialog::getExistingDirectory(
                                                   this, tr("Export every head's maps and numbers into"),
                                                   lastFolder(FolderUse::Export));
    if (directory.isEmpty())
        return;
    rememberFolder(FolderUse::Export, directory);
    const attn::Status written = exportAll(directory);
    emit message(written
                     ? tr("Wrote the %n heads' pictures and numbers to %1.", nullptr, result_->headCount())
                           .arg(QDir::toNativeSeparators(directory))
                     : QString::fromStdString(written.error().message));
}

bool HeadsPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == grid_ && event->type() == QEvent::ContextMenu) {
        auto* e = static_cast<QContextMenuEvent*>(event);
        QMenu* menu = exports_ ? exports_->createMenu(ExportView::HeadGrid, this) : new QMenu(this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->addSeparator();
        QAction* all = menu->addAction(tr("Export &every head…"), this, &HeadsPanel::exportAllInteractive);
        all->setObjectName(QStringLiteral("exportEveryHead"));
        all->setStatusTip(
            tr("Every head's raw scores, scaled scores and weights, the grid, the average, the "
               "concatenation and the output as PNG, SVG and PDF, and their numbers as CSV and "
               ".npy, into a folder."));
        all->setEnabled(hasResult());
        menu->popup(e->globalPos());
        e->accept();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace attnlab
