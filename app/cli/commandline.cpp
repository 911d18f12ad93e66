// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandline.h"

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "commandlinehelp.h"
#include "commandlineparser.h"
#include "consoleio.h"
#include "dksweepframes.h"
#include "echoedvalue.h"
#include "exportdirectory.h"
#include "flashexport.h"
#include "flashtilesoption.h"
#include "generatecommand.h"
#include "modelattentionexport.h"
#include "labfile.h"
#include "matrixfilestart.h"
#include "headlabcommand.h"
#include "modelcommand.h"
#include "multiheadcommand.h"
#include "numberargument.h"
#include "presets.h"
#include "runoutputs.h"
#include "scaling_lab.h"
#include "stagedwrite.h"
#include "size_limits.h"
#include "tokenizer.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSize>
#include <QString>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

// What argv asked for, before anything is validated against the engine.
struct Request {
    bool help = false;
    bool version = false;
    bool modelOptions = false;
    attn::ModelConfig config;
    attn::AttentionOptions options;
    std::optional<std::string> exportDir;
    std::optional<std::string> formats;
    std::optional<std::string> openPath;  // --open FILE.attnlab
    std::optional<std::string> savePath;  // --save FILE.attnlab
    MatrixFileStart matrixFiles;          // --x, --wq, --wk, --wv and what goes with them
    std::string firstModelOption;         // for "--open cannot be combined with ..."
    bool listPresets = false;
    // --preset NAME: its lab, whose parameters the options after it change.
    std::optional<LabState> presetLab;
    bool presetOverridden = false;            // a model option came after --preset
    bool dkSweep = false;                     // --dk-sweep: the frames of the d_k sweep
    std::optional<FlashBlocks> flashTiles;    // --flash-tiles RxC: flash.json
    bool causalGiven = false;                 // --causal
    std::optional<attn::AttentionMask> mask;  // --mask MASK
    QSize pictureSize;                        // --size, or invalid
};

struct UsageError {
    QString message;
};

QString quoted(std::string_view text)
{
    return echoedValue(QString::fromUtf8(text.data(), qsizetype(text.size())));
}

std::optional<UsageError> parseDimension(std::string_view option, std::string_view text, int limit,
                                         int* value)
{
    if (std::optional<QString> error = readWholeNumber(option, text, 1, limit, value))
        return UsageError{*error};
    return std::nullopt;
}

std::optional<UsageError> parseScale(std::string_view text, attn::AttentionOptions* options)
{
    if (text == "sqrt-dk") {
        options->scale = attn::ScaleMode::SqrtDk;
        return std::nullopt;
    }
    if (text == "none") {
        options->scale = attn::ScaleMode::None;
        return std::nullopt;
    }
    double divisor = 0;
    const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), divisor);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(divisor)
        || !(divisor > 0)) {
        return UsageError{CommandLine::tr("--scale must be sqrt-dk, none or a positive number, "
                                          "not %1")
                              .arg(quoted(text))};
    }
    options->scale = attn::ScaleMode::Custom;
    options->customDivisor = divisor;
    return std::nullopt;
}

bool isModelOptionName(std::string_view name)
{
    return name != "--export-dir" && name != "--format" && name != "--open" && name != "--save"
           && name != "--dk-sweep" && name != "--flash-tiles";
}

// --preset NAME and --list-presets: the presets of File > Presets by short
// name. A preset sets every parameter; the options after it change them.
std::optional<UsageError> applyPreset(std::string_view value, Request* request)
{
    const QString name = QString::fromUtf8(value.data(), int(value.size()));
    const QString path = presetPath(name);
    if (path.isEmpty())
        return UsageError{CommandLine::tr("unknown preset %1; the presets are %2 (see "
                                          "--list-presets)")
                              .arg(quoted(value), presetNames().join(QStringLiteral(", ")))};
    attn::Expected<LabState> lab = readLabFile(path);
    if (!lab)
        return UsageError{
            CommandLine::tr("--preset %1: %2").arg(name, QString::fromStdString(lab.error().message))};
    request->config = lab->config;
    request->options = lab->options;
    request->presetLab = std::move(lab).value();
    request->presetOverridden = false;
    return std::nullopt;
}

// After --preset, a model option changes the preset's parameters.
void notePresetOverride(std::string_view name, Request* request)
{
    if (request->presetLab && name != "--preset" && isModelOptionName(name))
        request->presetOverridden = true;
}

bool isPathOptionName(std::string_view name)
{
    return name == "--export-dir" || name == "--open" || name == "--save" || name == "--x" || name == "--wq"
           || name == "--wk" || name == "--wv";
}

// A file name longer than the system takes (PATH_MAX) would fail later with
// a message that echoes all of it; refused here with its length.
std::optional<UsageError> checkPathLength(std::string_view what, std::string_view path)
{
    if (path.size() < std::size_t(PATH_MAX))
        return std::nullopt;
    return UsageError{CommandLine::tr("%1: the file name %2 is longer than the system takes (%3 bytes)")
                          .arg(QString::fromUtf8(what.data(), qsizetype(what.size())), quoted(path),
                               QString::number(PATH_MAX - 1))};
}

// One option with its value into the request.
std::optional<UsageError> applyOption(std::string_view name, std::string_view value, Request* request)
{
    if (isPathOptionName(name)) {
        if (std::optional<UsageError> error = checkPathLength(name, value))
            return error;
    }
    attn::ModelConfig& config = request->config;
    if (name == "--d-model" || name == "--d-k" || name == "--d-v")
        request->matrixFiles.dimensionGiven[name == "--d-model" ? 0 : name == "--d-k" ? 1 : 2] = true;
    if (name == "--sentence") {
        if (value.empty())
            return UsageError{CommandLine::tr("--sentence is empty; give at least one word")};
        request->matrixFiles.sentenceGiven = true;
        config.sentence = std::string(value);
    } else if (name == "--tokenizer") {
        if (!attn::parseTokenizerMode(value, &config.tokenizer))
            return UsageError{
                CommandLine::tr("--tokenizer must be article or punctuation, not %1").arg(quoted(value))};
    } else if (name == "--seed") {
        if (std::optional<QString> error = readWholeNumber(
                name, value, std::uint64_t(0), std::numeric_limits<std::uint64_t>::max(), &config.seed))
            return UsageError{*error};
    } else if (name == "--d-model") {
        return parseDimension(name, value, attn::kMaxDModel, &config.dModel);
    } else if (name == "--d-k") {
        return parseDimension(name, value, attn::kMaxDHead, &config.dK);
    } else if (name == "--d-v") {
        return parseDimension(name, value, attn::kMaxDHead, &config.dV);
    } else if (name == "--init") {
        // torch-mha is the multi-head command's (multiheadcommand.h).
        if (value != "torch-mha" && !attn::parseInitMode(value, &config.init))
            return UsageError{CommandLine::tr("--init must be article, normal or unit-variance, "
                                              "not %1 (or torch-mha for nn.MultiheadAttention's heads)")
                                  .arg(quoted(value))};
    } else if (name == "--scale") {
        return parseScale(value, &request->options);
    } else if (name == "--mask") {
        const attn::Expected<attn::AttentionMask> mask = attn::parseAttentionMask(value);
        if (!mask)
            return UsageError{
                CommandLine::tr("--mask must be causal, sliding:W (W from 1) or sink:S,window:W "
                                "(S from 0, W from 1), or none; not %1")
                    .arg(quoted(value))};
        request->mask = mask.value();
        request->options.setMask(mask.value());
    } else if (name == "--export-dir") {
        if (value.empty())
            return UsageError{CommandLine::tr("--export-dir is empty; give a directory")};
        request->exportDir = std::string(value);
    } else if (name == "--format") {
        request->formats = std::string(value);
    } else if (name == "--preset") {
        return applyPreset(value, request);
    } else if (name == "--flash-tiles") {
        FlashBlocks blocks;
        if (std::optional<QString> error = parseFlashTiles(value, &blocks))
            return UsageError{*error};
        request->flashTiles = blocks;
    } else if (name == "--open" || name == "--save") {
        if (value.empty())
            return UsageError{CommandLine::tr("%1 is empty; give a file name")
                                  .arg(QLatin1String(name.data(), int(name.size())))};
        (name == "--open" ? request->openPath : request->savePath) = std::string(value);
    } else {
        for (int slot = 0; slot < 4; ++slot) {
            if (name != kMatrixOptions[slot])
                continue;
            if (value.empty())
                return UsageError{CommandLine::tr("%1 is empty; give a .npy or .csv file")
                                      .arg(QLatin1String(name.data(), int(name.size())))};
            request->matrixFiles.paths[slot] = std::string(value);
        }
    }
    return std::nullopt;
}

// The parsed options into a request, in the order given; stops at --help,
// --version or --list-presets (the parser ends the command line there).
std::optional<UsageError> readArguments(const CommandLineParser& parser, Request* request)
{
    if (!parser.helpAsked() && !parser.versionAsked() && !parser.listPresetsAsked()) {
        if (const QString repeated = parser.repeatedOptionError(); !repeated.isEmpty())
            return UsageError{repeated};
    }
    for (const CommandLineParser::Option& option : parser.options()) {
        const std::string nameText = option.name.toStdString();
        const std::string valueText = option.value.toLocal8Bit().toStdString();
        const std::string_view name = nameText;
        if (name == "--help") {
            request->help = true;
            return std::nullopt;
        }
        if (name == "--version") {
            request->version = true;
            return std::nullopt;
        }
        if (name == "--list-presets") {
            request->listPresets = true;
            return std::nullopt;
        }
        // main()'s: the picture size, the kernels and the benchmark's switches.
        if (name == "--size" || name == "--kernel" || name == "--exit-after-first-paint"
            || name == "--screenshot")
            continue;
        if (name == "--dk-sweep")
            request->dkSweep = true;
        if (name == "--causal" || name == "--transpose-weights") {
            if (name == "--causal") {
                request->options.causal = true;
                request->causalGiven = true;
            } else
                request->matrixFiles.transposeWeights = true;
        }
        if (isModelOptionName(name)) {
            request->modelOptions = true;
            if (request->firstModelOption.empty())
                request->firstModelOption = nameText;
        }
        if (std::optional<UsageError> error = applyOption(name, valueText, request))
            return error;
        notePresetOverride(name, request);
    }
    // --causal is causal's own spelling; with another mask it asks for two.
    if (request->causalGiven && request->mask && request->mask->kind != attn::AttentionMask::Kind::Causal)
        return UsageError{CommandLine::tr("--causal conflicts with --mask %1: give one of them")
                              .arg(QString::fromStdString(request->mask->name()))};
    for (const QString& arg : parser.positional()) {
        // A bare file name opens that lab, as a file manager (the desktop
        // entry's "attention-lab %f") passes it.
        if (arg.isEmpty())
            return UsageError{
                CommandLine::tr("an argument is empty (''); give a lab file to open, or "
                                "leave it out")};
        if (std::optional<UsageError> error = checkPathLength("argument", arg.toLocal8Bit().toStdString()))
            return error;
        if (request->openPath)
            return UsageError{CommandLine::tr("unexpected argument %1: only one lab file "
                                              "can be opened; see --help")
                                  .arg(echoedValue(arg))};
        request->openPath = arg.toLocal8Bit().toStdString();
    }
    return std::nullopt;
}

// The checks that need the engine: the sentence must give tokens.
std::optional<UsageError> validate(const Request& request)
{
    const attn::Expected<attn::Tokenization> tokens =
        attn::tokenize(request.config.sentence, request.config.tokenizer);
    if (!tokens)
        return UsageError{
            CommandLine::tr("--sentence: %1").arg(QString::fromStdString(tokens.error().message))};
    const attn::Status dimensions =
        attn::validateDimensions(request.config.dModel, request.config.dK, request.config.dV);
    if (!dimensions)
        return UsageError{QString::fromStdString(dimensions.error().message)};
    const attn::Expected<double> divisor = attn::scaleDivisor(request.options, request.config.dK);
    if (!divisor)
        return UsageError{
            CommandLine::tr("--scale: %1").arg(QString::fromStdString(divisor.error().message))};
    if (request.formats && !request.exportDir)
        return UsageError{CommandLine::tr("--format needs --export-dir")};
    if (request.formats) {
        const attn::Expected<ExportFormats> formats = parseExportFormats(*request.formats);
        if (!formats)
            return UsageError{QString::fromStdString(formats.error().message)};
        const attn::Status images = checkImageExport(formats.value());
        if (!images)
            return UsageError{QString::fromStdString(images.error().message)};
    }
    if (request.dkSweep) {
        if (!request.exportDir || !request.formats || *request.formats != "png")
            return UsageError{
                CommandLine::tr("--dk-sweep writes PNG frames: give --export-dir DIR "
                                "--format png")};
        if (request.savePath)
            return UsageError{CommandLine::tr("--dk-sweep cannot be combined with --save")};
    }
    if (request.flashTiles && !request.exportDir)
        return UsageError{CommandLine::tr("--flash-tiles writes flash.json: give --export-dir DIR")};
    if (request.flashTiles && request.dkSweep)
        return UsageError{CommandLine::tr("--flash-tiles cannot be combined with --dk-sweep")};
    if (request.openPath && request.modelOptions)
        return UsageError{CommandLine::tr("--open cannot be combined with %1: the lab file holds "
                                          "the model; change it in the window")
                              .arg(QString::fromStdString(request.firstModelOption))};
    const MatrixFileStart& files = request.matrixFiles;
    if (files.transposeWeights && !files.paths[SlotWq] && !files.paths[SlotWk] && !files.paths[SlotWv])
        return UsageError{CommandLine::tr("--transpose-weights needs --wq, --wk or --wv")};
    return std::nullopt;
}

// The state to start from when it is not simply drawn from the options.
std::optional<attn::Expected<LabState>> loadStart(const Request& request)
{
    if (request.openPath) {
        attn::Expected<LabState> lab = readLabFile(localPath(*request.openPath));
        if (!lab)
            return attn::Expected<LabState>(attn::Error{"--open: " + lab.error().message});
        for (const std::string& warning : lab->warnings)
            printLine(stderr,
                      CommandLine::tr("attention-lab: warning: %1").arg(QString::fromStdString(warning)));
        return lab;
    }
    if (request.matrixFiles.any())
        return labFromMatrixFiles(request.matrixFiles, request.config, request.options);
    if (request.presetLab && !request.presetOverridden)
        return attn::Expected<LabState>(*request.presetLab);
    return std::nullopt;
}

// --dk-sweep --export-dir DIR --format png: the frames of the slider's d_k
// from 1 to 1024 over `lab`, or the lab the options draw.
int runDkSweep(const Request& request, const LabState* lab)
{
    LabState start;
    if (lab) {
        start = *lab;
    } else {
        const attn::Expected<AttentionSnapshot> snapshot = computeSnapshot(request.config, request.options);
        if (!snapshot) {
            printError(QString::fromStdString(snapshot.error().message));
            return kExitRuntimeError;
        }
        start = labStateFromSnapshot(snapshot.value());
    }
    const QSize size = request.pictureSize.isValid() ? request.pictureSize : dkSweepFrameSize();
    const attn::Expected<std::vector<OutputFile>> frames =
        dkSweepFrameFiles(start, attn::defaultScalingLabDks(), size);
    if (!frames) {
        printError(QString::fromStdString(frames.error().message));
        return kExitRuntimeError;
    }
    const QString directory = localPath(*request.exportDir);
    const attn::Status written = writeFilesAtomically(directory, frames.value());
    if (!written) {
        printError(QString::fromStdString(written.error().message));
        return kExitRuntimeError;
    }
    printLine(stdout, CommandLine::tr("Wrote %n d_k frame(s) to '%1'.", nullptr, int(frames->size()))
                          .arg(QDir::toNativeSeparators(directory)));
    return 0;
}

// --export-dir and/or --save, from `lab` when there is one.
int runHeadless(int argc, char** argv, const Request& request, const LabState* lab)
{
    // Picture export needs the application main() made for it; plain numbers
    // need only Qt Core.
    std::optional<QCoreApplication> app;
    if (!QCoreApplication::instance())
        app.emplace(argc, argv);
    // A link where the directory is to be made: said before any work.
    if (request.exportDir) {
        if (const std::optional<QString> link = linkInTheWay(localPath(*request.exportDir))) {
            printError(*link);
            return kExitRuntimeError;
        }
    }
    if (request.dkSweep && lab && (lab->heads.multiHead() || lab->borrowed.active())) {
        printError(CommandLine::tr("--dk-sweep sweeps a lab of one head; this lab has %n head(s)", nullptr,
                                   lab->heads.multiHead() ? lab->heads.heads : 1));
        return kExitUsageError;
    }
    if (request.dkSweep)
        return runDkSweep(request, lab);
    if (request.flashTiles && lab && lab->heads.multiHead()) {
        printError(CommandLine::tr("--flash-tiles tiles a lab of one head; this lab has %n head(s)", nullptr,
                                   lab->heads.heads));
        return kExitUsageError;
    }
    if (lab && lab->heads.multiHead())
        return runMultiHeadLab(*lab, request.exportDir, request.formats, request.savePath);
    const attn::Expected<AttentionSnapshot> snapshot =
        lab ? computeLabSnapshot(*lab) : computeSnapshot(request.config, request.options);
    if (!snapshot) {
        printError(QString::fromStdString(snapshot.error().message));
        return kExitRuntimeError;
    }
    std::vector<OutputFile> flash;
    if (request.flashTiles) {
        if (const std::optional<QString> problem = flashTilesProblem(snapshot.value(), *request.flashTiles))
            return fail(kExitUsageError, *problem);
        flash.push_back(flashJsonFile(snapshot.value(), request.flashTiles->rows, request.flashTiles->cols));
    }
    const LabState state = request.savePath
                               ? labStateFromSnapshot(snapshot.value(), lab ? lab->view : QJsonObject())
                               : LabState();
    return writeRunOutputs(snapshot.value(), request.savePath ? &state : nullptr, request.exportDir,
                           request.formats, request.savePath, std::move(flash));
}

MultiHeadCommandInput multiHeadInput(const Request& request)
{
    MultiHeadCommandInput in;
    in.config = request.config;
    in.options = request.options;
    in.exportDir = request.exportDir;
    in.formats = request.formats;
    in.xPath = request.matrixFiles.paths[SlotX];
    in.headWeightFiles = request.matrixFiles.paths[SlotWq] || request.matrixFiles.paths[SlotWk]
                         || request.matrixFiles.paths[SlotWv];
    std::copy(std::begin(request.matrixFiles.dimensionGiven), std::end(request.matrixFiles.dimensionGiven),
              std::begin(in.dimensionGiven));
    in.savePath = request.savePath;
    in.conflictingOption = request.presetLab ? "--preset" : nullptr;
    return in;
}

}  // namespace

CommandLineOutcome handleCommandLine(int argc, char** argv)
{
    CommandLineParser parser;
    if (!parser.parse(argc, argv)) {
        printError(parser.error());
        CommandLineOutcome outcome;
        outcome.exitNow = true;
        outcome.exitCode = kExitUsageError;
        return outcome;
    }
    return handleCommandLine(parser, argc, argv);
}

CommandLineOutcome handleCommandLine(const CommandLineParser& parser, int argc, char** argv)
{
    CommandLineOutcome outcome;
    Request request;
    request.pictureSize = parser.pictureSize();
    std::optional<UsageError> error = readArguments(parser, &request);
    if (!error && request.help) {
        printLine(stdout, commandLineHelpText());
        outcome.exitNow = true;
        return outcome;
    }
    if (!error && request.listPresets) {
        printLine(stdout, presetListText());
        outcome.exitNow = true;
        return outcome;
    }
    if (!error && request.version) {
        printLine(stdout, QStringLiteral("attention-lab " ATTNLAB_VERSION));
        outcome.exitNow = true;
        return outcome;
    }
    if (!error && !wantsModel(parser) && parser.isSet(QStringLiteral("--caption")))
        error =
            UsageError{CommandLine::tr("--caption labels the pictures of --model DIR --export-dir OUT "
                                       "--format png, svg or pdf")};
    if (!error && !wantsModel(parser) && parser.isSet(QStringLiteral("--temperature")))
        error =
            UsageError{CommandLine::tr("--temperature divides the next-token logits of a GPT-2 model: "
                                       "give it with --model DIR")};
    if (!error && !wantsModel(parser) && parser.isSet(QStringLiteral("--allow-large-export")))
        error = UsageError{CommandLine::tr("--allow-large-export lets --model DIR --export-dir OUT write a "
                                           "model_attention.json over %1 GB: give it with --model DIR")
                               .arg(kMaxModelAttentionJsonBytes / 1e9)};
    if (!error && wantsModel(parser) && request.flashTiles)
        error =
            UsageError{CommandLine::tr("--flash-tiles tiles the lab's head; it does not take --model DIR "
                                       "yet")};
    if (!error && !wantsModel(parser))
        if (const std::optional<QString> headLab = headLabWithoutModel(parser))
            error = UsageError{*headLab};
    if (!error && !wantsModel(parser))
        if (const std::optional<QString> generation = generationWithoutModel(parser))
            error = UsageError{*generation};
    if (!error && wantsModel(parser) && !request.exportDir) {
        attn::Expected<std::shared_ptr<const ModelFolder>> model = modelWindowFolder(parser);
        if (!model) {
            printError(QString::fromStdString(model.error().message));
            outcome.exitNow = true;
            outcome.exitCode = kExitUsageError;
            return outcome;
        }
        outcome.model = model.value();
        if (request.presetLab && !request.presetOverridden) {
            // The preset's lab in the window; the model follows its sentence.
            outcome.haveLab = true;
            outcome.lab = *request.presetLab;
            outcome.config = outcome.lab.config;
            outcome.options = outcome.lab.options;
            outcome.haveConfig = true;
            return outcome;
        }
        if (request.presetLab) {
            // A --sentence after it: the preset's parameters with that sentence, drawn again.
            outcome.config = request.config;
            outcome.options = request.options;
            outcome.haveConfig = true;
            return outcome;
        }
        if (parser.isSet(QStringLiteral("--sentence"))) {
            outcome.config.sentence = parser.value(QStringLiteral("--sentence")).toStdString();
            outcome.haveConfig = true;
        }
        return outcome;
    }
    if (!error && wantsModel(parser)) {
        outcome.exitNow = true;
        outcome.exitCode = runModelCommand(
            parser,
            ModelCommandInput{request.options, request.exportDir, request.formats,
                              parser.isSet(QStringLiteral("--caption"))
                                  ? std::optional<QString>(parser.value(QStringLiteral("--caption")))
                                  : std::nullopt,
                              request.mask},
            argc, argv);
        return outcome;
    }
    if (!error)
        error = validate(request);
    if (error) {
        printError(error->message);
        outcome.exitNow = true;
        outcome.exitCode = kExitUsageError;
        return outcome;
    }

    if (wantsMultiHead(parser) && request.dkSweep)
        error =
            UsageError{CommandLine::tr("--dk-sweep sweeps a lab of one head; leave out the "
                                       "multi-head options")};
    if (wantsMultiHead(parser) && request.flashTiles)
        error =
            UsageError{CommandLine::tr("--flash-tiles tiles a lab of one head; leave out the "
                                       "multi-head options")};
    if (error) {
        printError(error->message);
        outcome.exitNow = true;
        outcome.exitCode = kExitUsageError;
        return outcome;
    }
    if (wantsMultiHead(parser) && (request.exportDir || request.savePath)) {
        outcome.exitNow = true;
        outcome.exitCode = runMultiHeadCommand(parser, multiHeadInput(request), argc, argv);
        return outcome;
    }
    if (wantsMultiHead(parser)) {
        attn::Expected<LabState> lab = multiHeadStartLab(parser, multiHeadInput(request));
        if (!lab) {
            printError(QString::fromStdString(lab.error().message));
            outcome.exitNow = true;
            outcome.exitCode = kExitUsageError;
            return outcome;
        }
        outcome.haveLab = true;
        outcome.lab = std::move(lab).value();
        outcome.config = outcome.lab.config;
        outcome.options = outcome.lab.options;
        outcome.haveConfig = true;
        return outcome;
    }

    std::optional<attn::Expected<LabState>> start = loadStart(request);
    if (start && !start->ok()) {
        printError(QString::fromStdString(start->error().message));
        outcome.exitNow = true;
        outcome.exitCode = kExitUsageError;
        return outcome;
    }

    outcome.config = request.config;
    outcome.options = request.options;
    outcome.haveConfig = request.modelOptions;
    if (start) {
        outcome.haveLab = true;
        outcome.lab = std::move(*start).value();
        if (request.openPath)
            outcome.labPath = localPath(*request.openPath).toStdString();
        outcome.config = outcome.lab.config;
        outcome.options = outcome.lab.options;
        outcome.haveConfig = true;
    }
    if (request.exportDir || request.savePath) {
        outcome.exitNow = true;
        outcome.exitCode = runHeadless(argc, argv, request, start ? &outcome.lab : nullptr);
    }
    return outcome;
}

}  // namespace attnlab
