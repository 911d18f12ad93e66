// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelexports.h"

#include "csv.h"
#include "viewnumbers.h"
#include "headlabexport.h"
#include "modelcomparison.h"
#include "modelreadings.h"
#include "modelsession.h"
#include "headlinesview.h"
#include "modelgridview.h"
#include "nexttokenview.h"
#include "numberformat.h"
#include "rotaryexport.h"
#include "rotarypanel.h"
#include "viewexportcontroller.h"
#include "lastfolder.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QPainter>
#include <QSettings>

namespace attnlab {

ModelExports::ModelExports(ModelSession* session, Views views, QWidget* window)
    : QObject(window), session_(session), views_(views), window_(window)
{
}

bool ModelExports::hasResult() const
{
    const std::shared_ptr<const attn::DecoderResult> result = session_->result();
    return session_->hasModel() && result && !result->layers.empty() && !result->layers.front().heads.empty();
}

QString ModelExports::unavailable() const
{
    if (!session_->hasModel())
        return tr(
            "No model is open: File > Open model… reads a model folder, whose views can then be "
            "exported.");
    if (!hasResult())
        return tr("The model has no pass to show yet: type a sentence in the sentence field.");
    return QString();
}

std::string ModelExports::scaleMode() const
{
    const std::shared_ptr<const attn::DecoderResult> result = session_->result();
    if (!hasResult())
        return "sqrt-dk";
    return divisorScaleMode(result->divisors, session_->config().headDim);
}

ModelNextTokens ModelExports::nextTokens() const
{
    return {session_->nextTokens(), session_->temperature()};
}

bool ModelExports::exportsAblated() const
{
    return hasResult() && session_->ablatedResult() && !session_->resultAblatedHeads().empty();
}

std::shared_ptr<const attn::DecoderResult> ModelExports::exportedPass() const
{
    return exportsAblated() ? session_->ablatedResult() : session_->result();
}

ModelNextTokens ModelExports::exportedNextTokens() const
{
    if (!exportsAblated())
        return nextTokens();
    return {attn::topTokens(session_->ablatedLogits(), ModelSession::kNextTokens, session_->temperature()),
            session_->temperature()};
}

ModelHeadLab ModelExports::headLab() const
{
    ModelHeadLab lab;
    if (exportsAblated()) {
        lab.ablated = session_->resultAblatedHeads();
        lab.ablation = session_->resultAblation();
        lab.intactTop = session_->nextTokens();
    }
    if (const std::optional<RepeatProbe>& probe = session_->resultProbe(); probe && hasResult()) {
        const std::optional<attn::RepeatLoss>& loss =
            exportsAblated() ? session_->ablatedProbeLoss() : session_->probeLoss();
        if (loss)
            lab.probe = RepeatProbeRun{probe->span, probe->seed,
                                       attn::repeatProbeIdRange(session_->config().vocabSize), *loss};
    }
    return lab;
}

attn::Expected<attn::RotaryHead> ModelExports::rotaryHead(bool asShown) const
{
    if (!hasResult())
        return attn::Error{unavailable().toStdString()};
    const std::shared_ptr<const attn::DecoderResult> result = asShown ? session_->result() : exportedPass();
    return session_->model()->decoder->rotaryHead(*result, session_->selectedLayer(),
                                                  session_->selectedHead());
}

std::unique_ptr<ModelPicturesExporter> ModelExports::makeExporter(bool asShown) const
{
    if (!hasResult())
        return std::make_unique<ModelPicturesExporter>(nullptr, QStringList(), QStringList());
    // The command line's files of an ablated run are the ablated pass's
    // (--ablate); the views as shown are the intact pass's.
    const std::shared_ptr<const attn::DecoderResult> result = asShown ? session_->result() : exportedPass();
    const std::shared_ptr<const ModelFolder> model = session_->model();
    QStringList tokens;
    // The pass's own sentence: the tokens' bytes (GPT-2's BPE loses none),
    // not the field's text, which may be a newer request's.
    QByteArray sentence;
    for (const ModelToken& t : session_->resultTokens()) {
        tokens << t.display;
        sentence += model->tokenizer->tokenBytes(t.id);
    }
    const ModelNextTokens next = asShown ? nextTokens() : exportedNextTokens();
    QStringList topLabels;
    for (const attn::TopToken& t : next.top)
        topLabels << session_->vocabularyToken(t.id).display;
    ModelPictureOptions options;
    options.modelName = ModelPicturesExporter::modelName(
        session_->modelFolder(), scaleMode(), result->divisors,
        result->mask != session_->config().ownMask() ? result->mask.name() : std::string());
    options.sentence = QString::fromUtf8(sentence);
    options.caption = model->label;  // "a 2-layer demo model ...": under every title
    options.nextTokens = next.top;
    options.nextTemperature = next.temperature;
    options.keyValueHeads = session_->config().kvHeads;
    if (attn::Expected<attn::RotaryHead> rotary = rotaryHead(asShown); rotary)
        ModelPicturesExporter::setRotary(&options, session_->config(), std::move(rotary).value());
    if (asShown) {
        const ModelGridRenderer& grid = views_.grid->renderer();
        options.selectedLayer = grid.selectedLayer();
        options.selectedHead = grid.selectedHead();
        if (grid.hasRanking()) {
            options.ranking = grid.ranking();
            options.rankingCaption = grid.rankingCaption();
        }
        const HeadLinesRenderer& lines = views_.lines->renderer();
        options.headViewLayer = lines.layer();
        for (int h = 0; h < lines.headCount(); ++h)
            options.headMask.push_back(lines.headShown(h));
    } else {
        options.everyLayer = true;
    }
    return std::make_unique<ModelPicturesExporter>(result, tokens, topLabels, std::move(options));
}

attn::Expected<std::vector<OutputFile>> ModelExports::pictureFiles(const QSize& size) const
{
    std::vector<OutputFile> files;
    if (!hasResult())
        return files;
    const std::unique_ptr<ModelPicturesExporter> exporter = makeExporter(false);
    for (const ImageFormat format : {ImageFormat::Png, ImageFormat::Svg, ImageFormat::Pdf}) {
        attn::Expected<std::vector<OutputFile>> some = exporter->files(format, size);
        if (!some)
            return some.error();
        for (OutputFile& f : some.value())
            files.push_back(std::move(f));
    }
    return files;
}

std::vector<OutputFile> ModelExports::jsonFiles() const
{
    if (!hasResult())
        return {};
    // The writer keeps the model, the pass and the next tokens it writes:
    // with heads ablated the ablated pass and the head lab's keys, as
    // --ablate writes them.
    std::vector<OutputFile> files{
        {kModelAttentionFileName,
         [model = session_->model(), result = exportedPass(), next = exportedNextTokens(), mode = scaleMode(),
          lab = headLab()](std::ostream& out) {
             const bool any = !lab.ablated.empty() || lab.probe;
             writeModelAttentionJson(out, *model, *result, mode, &next, any ? &lab : nullptr);
         }}};
    // The selected head's rope.json, as --rope L.H writes it.
    if (attn::Expected<attn::RotaryHead> rotary = rotaryHead(false); rotary)
        files.push_back(ropeJsonFile(session_->model(), exportedPass(), scaleMode(),
                                     std::move(rotary).value(), headLab()));
    return files;
}

attn::Status ModelExports::exportJson(const QString& path) const
{
    const std::vector<OutputFile> files = jsonFiles();
    if (files.empty())
        return attn::Error{unavailable().toStdString()};
    return writeFileAtomically(path, files.front().write);
}

std::string ModelExports::nextTokenCsv() const
{
    if (!hasResult())
        return {};
    const std::shared_ptr<const ModelFolder> model = session_->model();
    const ModelNextTokens next = nextTokens();
    std::string out;
    appendCsvRow(out, {"rank", "id", "token", "logit", "probability", "temperature"});
    int rank = 0;
    for (const attn::TopToken& t : next.top)
        appendCsvRow(out, {std::to_string(++rank), std::to_string(t.id),
                           QString::fromUtf8(model->tokenizer->tokenBytes(t.id)).toStdString(),
                           formatRoundTrip(t.logit), formatRoundTrip(t.probability),
                           formatRoundTrip(next.temperature)});
    return out;
}

std::string ModelExports::rotaryCsv() const
{
    const attn::Expected<attn::RotaryHead> head = rotaryHead(true);
    if (!head)
        return {};
    std::string out;
    appendCsvRow(out,
                 {"query", "key", "distance", "visible", "score_without_rotation", "score_with_rotation"});
    const int n = int(head->scoresAfter.rows());
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            appendCsvRow(out, {std::to_string(i), std::to_string(j), std::to_string(i - j),
                               head->mask.hides(i, j) ? "0" : "1", formatRoundTrip(head->scoresBefore(i, j)),
                               formatRoundTrip(head->scoresAfter(i, j))});
    return out;
}

ModelMapPicture ModelExports::rolloutPicture() const
{
    if (!views_.readings || !hasResult() || views_.readings->rollout().rows() == 0)
        return {};
    QStringList labels;
    for (const ModelToken& t : views_.readings->tokens())
        labels << t.display;
    return ModelPicturesExporter::rolloutPicture(views_.readings->rollout(), labels,
                                                 views_.readings->passText());
}

ModelMapPicture ModelExports::differencePicture() const
{
    const ModelComparison* c = views_.comparison;
    if (!c || !hasResult() || c->difference().rows() == 0)
        return {};
    return ModelPicturesExporter::differencePicture(c->difference(), c->labels(), c->caption());
}

namespace {

std::vector<std::string> utf8(const QStringList& labels)
{
    std::vector<std::string> out;
    for (const QString& l : labels)
        out.push_back(l.toStdString());
    return out;
}

}  // namespace

std::string ModelExports::rolloutCsv() const
{
    const ModelMapPicture map = rolloutPicture();
    const int n = int(map.values.rows());
    if (n == 0)
        return {};
    return cellTableCsv(utf8(map.labels), {"rollout"}, 0, n - 1,
                        [&](int i, int j) { return std::vector<double>{map.values(i, j)}; });
}

std::string ModelExports::differenceCsv() const
{
    const ModelMapPicture map = differencePicture();
    const int n = int(map.values.rows());
    if (n == 0)
        return {};
    const attn::Matrix& a = views_.comparison->mapA();
    const attn::Matrix& b = views_.comparison->mapB();
    return cellTableCsv(utf8(map.labels), {"a", "b", "b_minus_a"}, 0, n - 1, [&](int i, int j) {
        return std::vector<double>{a(i, j), b(i, j), map.values(i, j)};
    });
}

void ModelExports::registerExports(ViewExportController* controller)
{
    const auto register_ = [this, controller](ExportView view, PaintFunction paint) {
        ExportSource s;
        s.name = ViewExporter::viewName(view);
        s.stem = ViewExporter::fileStem(view);
        s.defaultSize = ViewExporter::defaultSize(view);
        s.paint = std::move(paint);
        if (view == ExportView::ModelNextToken) {
            s.numbers = [this] { return nextTokenCsv(); };
        } else if (view == ExportView::ModelRotary) {
            s.numbers = [this] { return rotaryCsv(); };
        } else {
            s.numbers = [] { return std::string(); };
            s.whyNoNumbers = [] {
                return tr(
                    "Every layer's and head's scores and weights are in File > Export model "
                    "attention (JSON)….");
            };
        }
        s.unavailable = [this, view] {
            if (view != ExportView::ModelRotary || !unavailable().isEmpty())
                return unavailable();
            // A model with learned positions has no rotation to show.
            const attn::Expected<attn::RotaryHead> rotary = rotaryHead(true);
            return rotary ? QString() : QString::fromStdString(rotary.error().message);
        };
        controller->registerView(view, std::move(s));
    };
    register_(ExportView::ModelGrid,
              [this](QPainter& p, const QSize& size) { makeExporter(true)->paintModelView(p, size); });
    register_(ExportView::ModelHeadView,
              [this](QPainter& p, const QSize& size) { makeExporter(true)->paintHeadView(p, size); });
    register_(ExportView::ModelNextToken,
              [this](QPainter& p, const QSize& size) { makeExporter(true)->paintNextToken(p, size); });
    controller->installMenu(views_.grid, ExportView::ModelGrid);
    controller->installMenu(views_.lines, ExportView::ModelHeadView);
    register_(ExportView::ModelRotary,
              [this](QPainter& p, const QSize& size) { makeExporter(true)->paintRotary(p, size); });
    controller->installMenu(views_.next, ExportView::ModelNextToken);
    if (views_.rotary)
        controller->installMenu(views_.rotary, ExportView::ModelRotary);

    // The Lens page's maps, as shown: offered once computed.
    const auto registerMap = [this, controller](ExportView view, std::function<ModelMapPicture()> map,
                                                std::function<std::string()> numbers, QWidget* widget) {
        if (!widget)
            return;
        ExportSource s;
        s.name = ViewExporter::viewName(view);
        s.stem = ViewExporter::fileStem(view);
        s.defaultSize = ViewExporter::defaultSize(view);
        s.paint = [this, map](QPainter& p, const QSize& size) {
            makeExporter(true)->paintMap(p, size, map());
        };
        s.numbers = std::move(numbers);
        s.unavailable = [this, map] {
            if (const QString why = unavailable(); !why.isEmpty())
                return why;
            return map().values.rows() > 0
                       ? QString()
                       : tr("The map is not computed yet: show it on the head lab's Lens page.");
        };
        controller->registerView(view, std::move(s));
        controller->installMenu(widget, view);
    };
    registerMap(
        ExportView::ModelRollout, [this] { return rolloutPicture(); }, [this] { return rolloutCsv(); },
        views_.rollout);
    registerMap(
        ExportView::ModelDifference, [this] { return differencePicture(); },
        [this] { return differenceCsv(); }, views_.difference);
}

void ModelExports::addFileActions(QMenu* file)
{
    QAction* json =
        file->addAction(tr("Export model attention (&JSON)…"), this, &ModelExports::exportJsonInteractive);
    json->setObjectName(QStringLiteral("exportModelJsonAction"));
    json->setStatusTip(
        tr("The model's tokens, every layer's and head's scores and weights, and the next tokens as "
           "model_attention.json, as the command line writes it."));
}

void ModelExports::exportJsonInteractive()
{
    if (const QString why = unavailable(); !why.isEmpty()) {
        emit message(why);
        return;
    }
    const QString suggested = inLastFolder(FolderUse::Export, kModelAttentionFileName);
    QString path = QFileDialog::getSaveFileName(window_, tr("Export the model's attention"), suggested,
                                                tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    rememberFile(FolderUse::Export, path);
    const attn::Status written = exportJson(path);
    emit message(written ? tr("Wrote %1.").arg(QDir::toNativeSeparators(path))
                         : QString::fromStdString(written.error().message));
}

}  // namespace attnlab
