// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelcommand.h"

#include "attentionexport.h"
#include "commandlineparser.h"
#include "consoleio.h"
#include "demomodel.h"
#include "echoedvalue.h"
#include "exportdirectory.h"
#include "generatecommand.h"
#include "headlabcommand.h"
#include "lens_rollout.h"
#include "modelattentionexport.h"
#include "modelfamilies.h"
#include "modelmapbudget.h"
#include "modelpictures.h"
#include "rotaryexport.h"
#include "stagedwrite.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

// The options a --model run reads (and main()'s hidden ones it ignores).
bool isModelRunOption(const QString& name)
{
    for (const char* allowed :
         {"--model",       "--sentence", "--scale",      "--mask",        "--no-qk-norm",
          "--temperature", "--caption",  "--export-dir", "--format",      "--allow-large-export",
          "--head-scores", "--ablate",   "--ablation",   "--probe",       "--logit-lens",
          "--rollout",     "--rope",     "--compare",    "--compare-map", "--generate",
          "--sample",      "--top-k",    "--size",       "--kernel",      "--exit-after-first-paint",
          "--screenshot"})
        if (name == QLatin1String(allowed))
            return true;
    return false;
}

attn::Error usage(const QString& message)
{
    return attn::Error{message.toStdString()};
}

// The window also takes --preset: the lab is the preset's, and the model
// reads its sentence (the lesson's "cinema").
std::optional<QString> checkCombination(const CommandLineParser& parser, bool window = false)
{
    for (const CommandLineParser::Option& option : parser.options()) {
        if (isModelRunOption(option.name) || (window && option.name == QLatin1String("--preset")))
            continue;
        // --seed seeds --generate's --sample (generatecommand.h).
        if (option.name == QLatin1String("--seed") && parser.isSet(QStringLiteral("--generate")))
            continue;
        return CommandLine::tr(
                   "--model cannot be combined with %1: the checkpoint is the model "
                   "(its sizes, weights and tokenizer); with --model give --sentence, "
                   "--scale, --mask, --temperature, --export-dir and --format")
            .arg(option.name);
    }
    if (!parser.positional().isEmpty())
        return CommandLine::tr("--model cannot be combined with a lab file (%1); open one or the other")
            .arg(echoedValue(parser.positional().first()));
    return std::nullopt;
}

}  // namespace

std::optional<QString> modelOptionConflict(const CommandLineParser& parser)
{
    return checkCombination(parser);
}

std::optional<QString> readModelTemperature(const CommandLineParser& parser, double* temperature)
{
    if (!parser.isSet(QStringLiteral("--temperature")))
        return std::nullopt;
    const std::string text = parser.value(QStringLiteral("--temperature")).toStdString();
    double t = 0;
    const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), t);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(t)
        || t < attn::kMinTemperature || t > attn::kMaxTemperature)
        return CommandLine::tr("--temperature must be a number from %1 to %2, not %3")
            .arg(attn::kMinTemperature)
            .arg(attn::kMaxTemperature)
            .arg(echoedValue(QString::fromStdString(text)));
    *temperature = t;
    return std::nullopt;
}

namespace {

std::optional<QString> checkFormats(const ModelCommandInput& input)
{
    if (input.formats && !input.exportDir)
        return CommandLine::tr("--format needs --export-dir");
    if (!input.formats)
        return std::nullopt;
    const attn::Expected<ExportFormats> formats = parseExportFormats(*input.formats);
    if (!formats)
        return QString::fromStdString(formats.error().message);
    if (input.caption && !formats->png && !formats->svg && !formats->pdf)
        return CommandLine::tr("--caption labels the pictures: give --format png, svg or pdf");
    if (formats->csv || formats->npy)
        return CommandLine::tr(
            "--format: --model writes json (model_attention.json) and png, svg, pdf "
            "(model_view); csv and npy are the application's own model's");
    return std::nullopt;
}

const char* scaleModeOf(const attn::AttentionOptions& scale)
{
    return attn::scaleModeName(scale.scale);
}

}  // namespace

bool wantsModel(const CommandLineParser& parser)
{
    return parser.isSet(QStringLiteral("--model"));
}

attn::Expected<ModelStart> modelStart(const CommandLineParser& parser, const ModelCommandInput& input)
{
    if (std::optional<QString> conflict = checkCombination(parser))
        return usage(*conflict);
    double temperature = 1.0;
    if (std::optional<QString> bad = readModelTemperature(parser, &temperature))
        return usage(*bad);
    if (std::optional<QString> bad = checkFormats(input))
        return usage(*bad);
    if (input.caption && input.caption->trimmed().isEmpty())
        return usage(CommandLine::tr("--caption is empty; give the line the pictures should carry"));
    const QString folder = parser.value(QStringLiteral("--model"));
    if (folder.isEmpty())
        return usage(CommandLine::tr(
            "--model is empty; give the folder of a model (config.json, its weights and tokenizer)"));
    attn::Expected<HeadLabRequest> lab = readHeadLabRequest(parser);
    if (!lab)
        return lab.error();
    if (!lab->probe && !parser.isSet(QStringLiteral("--sentence")))
        return usage(CommandLine::tr("--model needs --sentence TEXT, the sentence to run it over"));
    QString sentence = parser.value(QStringLiteral("--sentence"));

    const attn::Expected<QString> located = resolveModelFolder(folder);
    attn::Expected<ModelFolder> model =
        located ? readModelFolder(located.value()) : attn::Expected<ModelFolder>(located.error());
    if (!model)
        return usage(CommandLine::tr("--model %1: %2")
                         .arg(echoedValue(QDir::toNativeSeparators(folder)),
                              QString::fromStdString(model.error().message)));
    const attn::DecoderConfig& config = model->config();
    if (const attn::Status checked =
            checkHeadLabRequest(*lab, config, !model->decoder->rotaryFrequencies().empty());
        !checked)
        return checked.error();

    attn::DecoderRunOptions options;
    options.divisors = attn::HeadDivisors::standard(config);
    if (const attn::Status set =
            options.divisors.set(input.scale.scale, input.scale.customDivisor, config.headDim);
        !set)
        return usage(CommandLine::tr("--scale: %1").arg(QString::fromStdString(set.error().message)));
    if (std::optional<QString> bad =
            readModelWhatIfs(parser, input, *model, &options.mask, &options.skipQkNorm))
        return usage(*bad);
    options.temperature = temperature;
    options.topK = std::min(10, config.vocabSize);
    options.threads = std::max(1, QThread::idealThreadCount());

    ModelHeadLab headLab;
    std::vector<int> ids;
    if (lab->probe) {
        const attn::TokenIdRange range = attn::repeatProbeIdRange(config.vocabSize);
        attn::Expected<std::vector<int>> drawn = attn::repeatedSpanIds(lab->probeSpan, lab->probeSeed, range);
        if (!drawn)
            return usage(CommandLine::tr("--probe: %1").arg(QString::fromStdString(drawn.error().message)));
        ids = std::move(drawn).value();
        headLab.probe = RepeatProbeRun{lab->probeSpan, lab->probeSeed, range, {}};
        const attn::Expected<QString> text = model->tokenizer->decode(ids);
        sentence = text ? text.value() : QString();
        // The losses read the last block's residual stream.
        options.keepHidden = true;
    } else {
        ids = model->tokenizer->encodeIds(sentence);
    }
    if (lab->logitLens)
        options.keepHidden = true;
    if (!lab->ablate.empty()) {
        headLab.ablated = lab->ablate;
        headLab.ablation = lab->ablation;
        options.headOutput = attn::ablationHook(lab->ablate, lab->ablation);
    }
    if (int(ids.size()) > config.maxPositions)
        return usage(CommandLine::tr("--sentence is %1 tokens; this model takes at most %2 "
                                     "(its config.json)")
                         .arg(ids.size())
                         .arg(config.maxPositions));
    // The window's budget and message (ModelSession): a pass whose maps do
    // not fit is refused before it starts, not ended by std::bad_alloc.
    if (const std::optional<QString> tooLarge =
            modelMapBudgetProblem(config, model->familyName, int(ids.size())))
        return usage(CommandLine::tr("--sentence: %1").arg(*tooLarge));
    // A model_attention.json of gigabytes is written only when asked for.
    const bool json = !input.formats || parseExportFormats(*input.formats)->json;
    if (lab->rollout && !json)
        return usage(CommandLine::tr("--rollout adds rollout to %1: give --format json")
                         .arg(QLatin1String(kModelAttentionFileName)));
    if (const double bytes = modelAttentionJsonBytes(config, int(ids.size()));
        json && bytes > kMaxModelAttentionJsonBytes && !parser.isSet(QStringLiteral("--allow-large-export")))
        return usage(CommandLine::tr("--format json would write %1 of about %2 GB (%3 heads' scores and "
                                     "weights over %4 tokens), more than the %5 GB written unasked; shorten "
                                     "--sentence, write only the pictures (--format png, svg or pdf), or "
                                     "give --allow-large-export to write it")
                         .arg(QLatin1String(kModelAttentionFileName))
                         .arg(bytes / 1e9, 0, 'f', 1)
                         .arg(config.layers * config.heads)
                         .arg(ids.size())
                         .arg(kMaxModelAttentionJsonBytes / 1e9));
    attn::Expected<attn::DecoderResult> result = model->decoder->run(ids, options);
    if (!result)
        return usage(QString::fromStdString(result.error().message));
    std::optional<attn::DecoderResult> intactPass;  // with --ablate
    if (!headLab.ablated.empty()) {
        // The intact model's next tokens beside the ablated ones.
        attn::DecoderRunOptions intact = options;
        intact.headOutput = nullptr;
        intact.keepMaps = false;
        intact.keepHidden = false;
        attn::Expected<attn::DecoderResult> pass = model->decoder->run(ids, intact);
        if (!pass)
            return usage(QString::fromStdString(pass.error().message));
        headLab.intactTop = pass->top;
        intactPass = std::move(pass).value();
    }
    if (headLab.probe) {
        const attn::Expected<std::vector<double>> losses =
            attn::nextTokenLosses(*model->decoder, *result, options.threads);
        const attn::Expected<attn::RepeatLoss> loss = losses
                                                          ? attn::repeatLoss(*losses, lab->probeSpan)
                                                          : attn::Expected<attn::RepeatLoss>(losses.error());
        if (!loss)
            return usage(CommandLine::tr("--probe: %1").arg(QString::fromStdString(loss.error().message)));
        headLab.probe->loss = loss.value();
    }

    ModelStart start;
    if (lab->rollout) {
        attn::Expected<attn::Matrix> rollout = attn::attentionRollout(*model->decoder, *result);
        if (!rollout)
            return usage(
                CommandLine::tr("--rollout: %1").arg(QString::fromStdString(rollout.error().message)));
        headLab.rollout = std::move(rollout).value();
    }
    if (lab->logitLens) {
        attn::Expected<attn::LogitLens> lens =
            attn::logitLens(*model->decoder, *result, 5, options.temperature, options.threads);
        if (!lens)
            return usage(
                CommandLine::tr("--logit-lens: %1").arg(QString::fromStdString(lens.error().message)));
        start.logitLens = std::move(lens).value();
    }
    if (lab->rope) {
        attn::Expected<attn::RotaryHead> rotary =
            model->decoder->rotaryHead(*result, lab->rope->layer, lab->rope->head);
        if (!rotary)
            return usage(CommandLine::tr("--rope: %1").arg(QString::fromStdString(rotary.error().message)));
        start.rotary = std::move(rotary).value();
    }
    if (lab->headScores) {
        attn::Expected<attn::HeadScoreTable> scores = attn::headScores(*model->decoder, *result);
        if (!scores)
            return usage(
                CommandLine::tr("--head-scores: %1").arg(QString::fromStdString(scores.error().message)));
        start.headScores = std::move(scores).value();
    }
    if (lab->compare) {
        // The Lens page's A/B difference (ModelComparison): pass A and pass B.
        attn::DecoderRunOptions other = options;
        other.keepMaps = false;
        other.keepHidden = false;
        other.headOutput = nullptr;
        std::optional<attn::DecoderResult> ranB;
        ModelDifference d;
        QStringList labelsB;
        switch (*lab->compare) {
        case ComparisonKind::IntactVsAblated: d.comparison = "ablated"; break;
        case ComparisonKind::ScaledVsUnscaled: d.comparison = "unscaled"; break;
        case ComparisonKind::OtherSentence: d.comparison = "sentence"; break;
        }
        if (*lab->compare != ComparisonKind::IntactVsAblated) {
            std::vector<int> idsB = ids;
            if (*lab->compare == ComparisonKind::ScaledVsUnscaled) {
                other.divisors.set(attn::ScaleMode::None, 0.0, config.headDim);
            } else {
                idsB = model->tokenizer->encodeIds(lab->compareSentence);
                if (idsB.size() != ids.size())
                    return usage(
                        CommandLine::tr("--compare sentence:TEXT: TEXT is %1 tokens and --sentence %2; "
                                        "the maps compare runs of equal length")
                            .arg(idsB.size())
                            .arg(ids.size()));
                d.otherSentence = lab->compareSentence;
                d.otherIds = idsB;
                for (const int id : idsB)
                    labelsB << model->tokenizer->token(id).display;
            }
            attn::Expected<attn::DecoderResult> b = model->decoder->run(idsB, other);
            if (!b)
                return usage(QString::fromStdString(b.error().message));
            ranB = std::move(b).value();
        }
        const attn::DecoderResult& passA =
            *lab->compare == ComparisonKind::IntactVsAblated ? *intactPass : result.value();
        const attn::DecoderResult& passB = ranB ? *ranB : result.value();
        const ComparedMap map = lab->compareHead ? ComparedMap::SelectedHead : ComparedMap::Rollout;
        const int layer = lab->compareHead ? lab->compareHead->layer : 0;
        const int head = lab->compareHead ? lab->compareHead->head : 0;
        attn::Expected<attn::Matrix> a = comparedMap(*model->decoder, passA, map, layer, head);
        attn::Expected<attn::Matrix> b = a ? comparedMap(*model->decoder, passB, map, layer, head) : a;
        if (!b)
            return usage(CommandLine::tr("--compare: %1").arg(QString::fromStdString(b.error().message)));
        d.head = lab->compareHead;
        d.a = std::move(a).value();
        d.b = std::move(b).value();
        ComparisonText text;
        text.kind = *lab->compare;
        text.map = map;
        text.layer = layer;
        text.head = head;
        text.ablated = lab->ablate;
        text.ablation = lab->ablation;
        text.headDim = config.headDim;
        text.otherSentence = lab->compareSentence;
        const attn::Matrix difference = d.b - d.a;
        start.differenceCaption =
            comparisonCaption(text, difference.size() > 0 ? difference.cwiseAbs().maxCoeff() : 0.0);
        QStringList labelsA;
        for (const int id : ids)
            labelsA << model->tokenizer->token(id).display;
        start.differenceLabels = comparisonLabels(labelsA, labelsB);
        start.difference = std::move(d);
    }
    start.model = std::move(model).value();
    start.result = std::move(result).value();
    start.scaleMode = scaleModeOf(input.scale);
    start.sentence = sentence;
    start.headLab = std::move(headLab);
    return start;
}

attn::Expected<std::shared_ptr<const ModelFolder>> modelWindowFolder(const CommandLineParser& parser)
{
    if (std::optional<QString> conflict = checkCombination(parser, true))
        return usage(*conflict);
    for (const char* option : {"--generate", "--sample", "--top-k"})
        if (parser.isSet(QLatin1String(option)))
            return usage(CommandLine::tr("%1 with --model writes generation.json: give --export-dir OUT")
                             .arg(QLatin1String(option)));
    for (const char* option : {"--scale", "--mask", "--no-qk-norm", "--temperature", "--format", "--caption",
                               "--allow-large-export", "--head-scores", "--ablate", "--ablation", "--probe",
                               "--logit-lens", "--rollout", "--rope", "--compare", "--compare-map"})
        if (parser.isSet(QLatin1String(option)))
            return usage(
                CommandLine::tr("%1 with --model is for the export: give --export-dir OUT, or set it "
                                "in the window's Model tab")
                    .arg(QLatin1String(option)));
    const QString folder = parser.value(QStringLiteral("--model"));
    if (folder.isEmpty())
        return usage(CommandLine::tr(
            "--model is empty; give the folder of a model (config.json, its weights and tokenizer)"));
    const attn::Expected<QString> located = resolveModelFolder(folder);
    attn::Expected<ModelFolder> model =
        located ? readModelFolder(located.value()) : attn::Expected<ModelFolder>(located.error());
    if (!model)
        return usage(CommandLine::tr("--model %1: %2")
                         .arg(echoedValue(QDir::toNativeSeparators(folder)),
                              QString::fromStdString(model.error().message)));
    model->folder = QFileInfo(located.value()).absoluteFilePath();
    return std::shared_ptr<const ModelFolder>(std::make_shared<ModelFolder>(std::move(model.value())));
}

int runModelCommand(const CommandLineParser& parser, const ModelCommandInput& input, int argc, char** argv)
{
    std::optional<QCoreApplication> app;
    if (!QCoreApplication::instance())
        app.emplace(argc, argv);
    const QString directory = localPath(*input.exportDir);
    if (const std::optional<QString> link = linkInTheWay(directory))
        return fail(kExitRuntimeError, *link);
    if (asksForGeneration(parser))
        return runGenerateCommand(parser, input, directory);
    const attn::Expected<ModelStart> start = modelStart(parser, input);
    if (!start)
        return fail(kExitUsageError, QString::fromStdString(start.error().message));
    const ExportFormats formats =
        input.formats ? parseExportFormats(*input.formats).value() : ExportFormats();
    std::vector<OutputFile> files;
    if (formats.json)
        files.push_back(
            modelAttentionJsonFile(start->model, start->result, start->scaleMode, &start->headLab));
    if (start->headScores)
        files.push_back(headScoresJsonFile(start->model, start->result, start->scaleMode, *start->headScores,
                                           start->headLab));
    if (start->logitLens)
        files.push_back(logitLensJsonFile(start->model, start->result, start->scaleMode, *start->logitLens,
                                          start->headLab));
    if (start->rotary) {
        // Not owned: the start outlives the files, all local to this call.
        files.push_back(
            ropeJsonFile(std::shared_ptr<const ModelFolder>(std::shared_ptr<void>(), &start->model),
                         std::shared_ptr<const attn::DecoderResult>(std::shared_ptr<void>(), &start->result),
                         start->scaleMode, *start->rotary, start->headLab));
    }
    if (start->difference)
        files.push_back(differenceJsonFile(start->model, start->result, start->scaleMode, *start->difference,
                                           &start->headLab));
    if (formats.png || formats.svg || formats.pdf) {
        attn::Expected<std::vector<OutputFile>> pictures =
            modelPictureFiles(start.value(), start->sentence, parser.value(QStringLiteral("--caption")),
                              formats, parser.pictureSize().isValid() ? parser.pictureSize() : QSize());
        if (!pictures)
            return fail(kExitRuntimeError, QString::fromStdString(pictures.error().message));
        for (OutputFile& file : pictures.value())
            files.push_back(std::move(file));
    }
    if (const attn::Status written = writeFilesAtomically(directory, files); !written)
        return fail(kExitRuntimeError, QString::fromStdString(written.error().message));
    printLine(stdout, CommandLine::tr("Wrote %n file(s) to '%1'.", nullptr, int(files.size()))
                          .arg(QDir::toNativeSeparators(directory)));
    return kExitOk;
}

std::optional<QString> readModelWhatIfs(const CommandLineParser& parser, const ModelCommandInput& input,
                                        const ModelFolder& model, std::optional<attn::AttentionMask>* mask,
                                        bool* skipQkNorm)
{
    if (input.mask) {
        // A decoder's what-if: the keys after the query stay hidden.
        if (input.mask->kind == attn::AttentionMask::Kind::None)
            return CommandLine::tr(
                "--mask none would let each position of the model read the "
                "tokens it is to predict; with --model give causal, "
                "sliding:W or sink:S,window:W");
        *mask = input.mask;
    }
    if (parser.isSet(QStringLiteral("--no-qk-norm"))) {
        // The what-if of QK-norm: only a model that has it can lose it.
        if (!model.config().qkNorm)
            return CommandLine::tr(
                       "--no-qk-norm: this %1 model has no QK-norm (q_norm and k_norm) "
                       "to remove; Qwen3 models have it")
                .arg(model.familyName);
        *skipQkNorm = true;
    }
    return std::nullopt;
}

}  // namespace attnlab
