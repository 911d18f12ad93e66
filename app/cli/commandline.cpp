// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandline.h"

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "commandlineparser.h"
#include "labfile.h"
#include "matrixio.h"
#include "npy.h"
#include "size_limits.h"
#include "tokenizer.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QString>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

// Resources of a static library are registered by hand, outside any namespace.
static void initPresetResources()
{
    Q_INIT_RESOURCE(presets);
}

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
    // --x, --wq, --wk, --wv: X (n, d_model), W (d_model, d_out) or, with
    // transposeWeights, W (d_out, d_model).
    std::optional<std::string> matrixPaths[4];
    bool transposeWeights = false;
    bool dimensionGiven[3] = {false, false, false};  // --d-model, --d-k, --d-v
    bool sentenceGiven = false;
    std::string firstModelOption;  // for "--open cannot be combined with ..."
    bool listPresets = false;
    // --preset NAME: its lab, whose parameters the options after it change.
    std::optional<LabState> presetLab;
    bool presetOverridden = false;  // a model option came after --preset
};

enum MatrixSlot { SlotX, SlotWq, SlotWk, SlotWv };
constexpr const char* kMatrixOptions[4] = {"--x", "--wq", "--wk", "--wv"};

struct UsageError {
    QString message;
};

void printLine(std::FILE* stream, const QString& text)
{
    const QByteArray bytes = text.toLocal8Bit();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stream);
    std::fputc('\n', stream);
    std::fflush(stream);
}

// Exactly one line, whatever the message holds.
void printError(const QString& message)
{
    QString line = message;
    line.replace(QLatin1Char('\n'), QLatin1Char(' '));
    line.replace(QLatin1Char('\r'), QLatin1Char(' '));
    printLine(stderr, QStringLiteral("attention-lab: ") + line);
}

QString quoted(std::string_view text)
{
    return QStringLiteral("'%1'").arg(QString::fromUtf8(text.data(), int(text.size())));
}

QString helpText()
{
    const attn::ModelConfig defaults;
    const attn::AttentionOptions defaultOptions;
    QString text = CommandLine::tr(
        "Usage: attention-lab [OPTION]... [FILE.attnlab]\n"
        "Learn how transformer self-attention works. Opens the window, starting from\n"
        "the options given; with --export-dir, computes one attention map without a\n"
        "window and writes it to files.\n"
        "\n"
        "Model (the defaults are the example of Raschka's article):\n"
        "  --sentence TEXT      the input sentence (default \"%1\")\n"
        "  --tokenizer MODE     article (drop commas, split at blanks) or punctuation\n"
        "                       (every punctuation mark a token) (default %2)\n"
        "  --seed N             random seed, 0 to 18446744073709551615 (default %3)\n"
        "  --d-model N          embedding width, 1 to %4 (default %5)\n"
        "  --d-k N              query and key width, 1 to %6 (default %7)\n"
        "  --d-v N              value width, 1 to %6 (default %8)\n"
        "  --init MODE          article (PyTorch draws as in the article), normal\n"
        "                       (every entry N(0, 1)) or unit-variance (weights\n"
        "                       N(0, 1/d_model)) (default %9)\n"
        "  --scale MODE         divide the scores by sqrt-dk, none (1), or a positive\n"
        "                       NUMBER (default %10)\n"
        "  --causal             mask the keys after each query (decoder attention)\n"
        "\n"
        "Matrices from files: NumPy .npy (float32 or float64, 2-D or 1-D as one row)\n"
        "or .csv (plain numbers as numpy.savetxt(..., delimiter=\",\") writes, or a\n"
        "labelled table as the csv export writes); the ones not given are drawn as\n"
        "usual; d_model, d_k and d_v follow the files:\n"
        "  --x FILE             the embeddings X, one row per token (n x d_model); the\n"
        "                       rows are labelled with the --sentence tokens when\n"
        "                       there are as many, otherwise t0, t1, ...\n"
        "  --wq FILE            W_q as d_model x d_k, so that Q = X W_q\n"
        "  --wk FILE            W_k as d_model x d_k\n"
        "  --wv FILE            W_v as d_model x d_v\n"
        "  --transpose-weights  the weight files are d_out x d_in, as PyTorch's\n"
        "                       nn.Linear.weight\n"
        "\n"
        "Presets (the labs of File > Presets):\n"
        "  --preset NAME        start from a preset: %11; the options after it\n"
        "                       change its parameters (and draw the matrices from the\n"
        "                       seed), e.g. --preset cinema --d-k 512\n"
        "  --list-presets       list the presets with their parameters and exit\n"
        "\n"
        "Saved labs:\n"
        "  --open FILE.attnlab  start from a saved lab (settings and matrices); not\n"
        "                       combined with the model options or matrix files;\n"
        "                       a bare FILE.attnlab argument does the same\n"
        "  --save FILE.attnlab  write the lab to FILE without a window; an existing\n"
        "                       file is replaced only once the new one is complete\n"
        "\n"
        "Export (runs without a window):\n"
        "  --export-dir DIR     write the files into DIR, created if missing; all files\n"
        "                       are written or none\n"
        "  --format LIST        json, csv, npy, or several as json,csv,npy (default\n"
        "                       json,csv); png, svg and pdf write a picture of every\n"
        "                       view and of the whole pipeline, without a display\n"
        "  --size WxH           picture size in pixels for png, svg and pdf\n"
        "                       (each 100 to %12; default 1800x720 for the pipeline\n"
        "                       figure, 900x800 for one map)\n"
        "\n"
        "The d_k lab (variance, saturation and gradients against d_k):\n"
        "  --scaling-lab        see attention-lab --scaling-lab --help\n"
        "\n"
        "  -h, --help           show this help and exit\n"
        "      --version        show the version and exit\n"
        "\n"
        "Files: DIR/attention.json holds the settings, tokens, the matrices X, W_q,\n"
        "W_k, W_v, Q, K, V, scores, scaled_scores, weights, context (arrays of rows,\n"
        "numbers that read back exactly) and the statistics; a masked entry of\n"
        "scaled_scores is null, as JSON has no -inf. DIR/NAME.csv holds each matrix\n"
        "with token or index labels; a masked entry is -inf. DIR/NAME.npy holds each\n"
        "matrix as float64 for numpy.load.\n"
        "\n"
        "Example:\n"
        "  attention-lab --sentence \"Life is short, eat dessert first\" --seed 123 \\\n"
        "      --d-model 16 --d-k 24 --d-v 28 --init article --export-dir out \\\n"
        "      --format json,csv\n"
        "\n"
        "Exit status: 0 on success, 1 if the files cannot be written, 2 for invalid\n"
        "options or input files.");
    return text
        .arg(QString::fromStdString(defaults.sentence),
             QString::fromLatin1(attn::tokenizerModeName(defaults.tokenizer)), QString::number(defaults.seed),
             QString::number(attn::kMaxDModel), QString::number(defaults.dModel),
             QString::number(attn::kMaxDHead), QString::number(defaults.dK), QString::number(defaults.dV),
             QString::fromLatin1(attn::initModeName(defaults.init)),
             QString::fromLatin1(attn::scaleModeName(defaultOptions.scale)))
        .arg(presetNames().join(QStringLiteral(", ")), QString::number(attn::kMaxPictureSide));
}

template <typename Int>
bool parseInteger(std::string_view text, Int* value)
{
    Int parsed{};
    const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size())
        return false;
    *value = parsed;
    return true;
}

std::optional<UsageError> parseDimension(std::string_view option, std::string_view text, int limit,
                                         int* value)
{
    int parsed = 0;
    if (!parseInteger(text, &parsed) || parsed < 1 || parsed > limit) {
        return UsageError{CommandLine::tr("%1 must be a whole number from 1 to %2, not %3")
                              .arg(QLatin1String(option.data(), int(option.size())))
                              .arg(limit)
                              .arg(quoted(text))};
    }
    *value = parsed;
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
    return name != "--export-dir" && name != "--format" && name != "--open" && name != "--save";
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

QString presetListText()
{
    QStringList lines;
    for (const PresetEntry& preset : presetEntries()) {
        const attn::Expected<LabState> lab = readLabFile(preset.path);
        if (!lab) {
            lines << QStringLiteral("%1  %2")
                         .arg(preset.name, -14)
                         .arg(QString::fromStdString(lab.error().message));
            continue;
        }
        const attn::ModelConfig& c = lab->config;
        lines << QStringLiteral("%1  %2")
                     .arg(preset.name, -14)
                     .arg(lab->view.value(QStringLiteral("title")).toString());
        lines << CommandLine::tr(
                     "%1  \"%2\", seed %3, d_model %4, d_k %5, d_v %6, %7 "
                     "initialisation, scale %8%9")
                     .arg(QString(), -14)
                     .arg(QString::fromStdString(c.sentence))
                     .arg(c.seed)
                     .arg(c.dModel)
                     .arg(c.dK)
                     .arg(c.dV)
                     .arg(QLatin1String(attn::initModeName(c.init)),
                          QLatin1String(attn::scaleModeName(lab->options.scale)),
                          lab->options.causal ? CommandLine::tr(", causal") : QString());
    }
    return lines.join(QLatin1Char('\n'));
}

// One option with its value into the request.
std::optional<UsageError> applyOption(std::string_view name, std::string_view value, Request* request)
{
    attn::ModelConfig& config = request->config;
    if (name == "--d-model" || name == "--d-k" || name == "--d-v")
        request->dimensionGiven[name == "--d-model" ? 0 : name == "--d-k" ? 1 : 2] = true;
    if (name == "--sentence") {
        if (value.empty())
            return UsageError{CommandLine::tr("--sentence is empty; give at least one word")};
        request->sentenceGiven = true;
        config.sentence = std::string(value);
    } else if (name == "--tokenizer") {
        if (!attn::parseTokenizerMode(value, &config.tokenizer))
            return UsageError{
                CommandLine::tr("--tokenizer must be article or punctuation, not %1").arg(quoted(value))};
    } else if (name == "--seed") {
        if (!parseInteger(value, &config.seed))
            return UsageError{CommandLine::tr("--seed must be a whole number from 0 to "
                                              "18446744073709551615, not %1")
                                  .arg(quoted(value))};
    } else if (name == "--d-model") {
        return parseDimension(name, value, attn::kMaxDModel, &config.dModel);
    } else if (name == "--d-k") {
        return parseDimension(name, value, attn::kMaxDHead, &config.dK);
    } else if (name == "--d-v") {
        return parseDimension(name, value, attn::kMaxDHead, &config.dV);
    } else if (name == "--init") {
        if (!attn::parseInitMode(value, &config.init))
            return UsageError{CommandLine::tr("--init must be article, normal or unit-variance, "
                                              "not %1")
                                  .arg(quoted(value))};
    } else if (name == "--scale") {
        return parseScale(value, &request->options);
    } else if (name == "--export-dir") {
        if (value.empty())
            return UsageError{CommandLine::tr("--export-dir is empty; give a directory")};
        request->exportDir = std::string(value);
    } else if (name == "--format") {
        request->formats = std::string(value);
    } else if (name == "--preset") {
        return applyPreset(value, request);
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
            request->matrixPaths[slot] = std::string(value);
        }
    }
    return std::nullopt;
}

// The parsed options into a request, in the order given; stops at --help,
// --version or --list-presets (the parser ends the command line there).
std::optional<UsageError> readArguments(const CommandLineParser& parser, Request* request)
{
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
        if (name == "--causal" || name == "--transpose-weights") {
            if (name == "--causal")
                request->options.causal = true;
            else
                request->transposeWeights = true;
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
    for (const QString& arg : parser.positional()) {
        // A bare file name opens that lab, as a file manager (the desktop
        // entry's "attention-lab %f") passes it.
        if (request->openPath)
            return UsageError{CommandLine::tr("unexpected argument %1: only one lab file "
                                              "can be opened; see --help")
                                  .arg(QStringLiteral("'%1'").arg(arg))};
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
    if (request.openPath && request.modelOptions)
        return UsageError{CommandLine::tr("--open cannot be combined with %1: the lab file holds "
                                          "the model; change it in the window")
                              .arg(QString::fromStdString(request.firstModelOption))};
    if (request.transposeWeights && !request.matrixPaths[SlotWq] && !request.matrixPaths[SlotWk]
        && !request.matrixPaths[SlotWv])
        return UsageError{CommandLine::tr("--transpose-weights needs --wq, --wk or --wv")};
    return std::nullopt;
}

bool hasMatrixFiles(const Request& request)
{
    for (const std::optional<std::string>& path : request.matrixPaths)
        if (path)
            return true;
    return false;
}

QString localPath(const std::string& path)
{
    return QString::fromLocal8Bit(path.c_str());
}

// The number of columns of W when its rows are d_model (or of its transpose
// when that fits instead, so that the message shows the shape meant); -1 if
// neither fits.
int outputWidth(const attn::Matrix& W, int dModel)
{
    if (W.rows() == dModel)
        return int(W.cols());
    if (W.cols() == dModel)
        return int(W.rows());
    return -1;
}

// Reads the given .npy or .csv files, takes d_model, d_k and d_v from them (unless
// given as options), checks every shape and draws the matrices not given.
attn::Expected<LabState> labFromMatrixFiles(const Request& request)
{
    attn::Matrix given[4];
    std::string names[4];
    for (int slot = 0; slot < 4; ++slot) {
        if (!request.matrixPaths[slot])
            continue;
        const QString path = localPath(*request.matrixPaths[slot]);
        attn::Expected<attn::Matrix> m = readMatrixFile(path);
        if (!m)
            return attn::Error{std::string(kMatrixOptions[slot]) + ": " + m.error().message};
        given[slot] = std::move(m).value();
        names[slot] = QFileInfo(path).fileName().toStdString();
        if (slot != SlotX && request.transposeWeights) {
            given[slot] = attn::Matrix(given[slot].transpose());
            names[slot] += " transposed";
        }
    }
    const auto have = [&request](int slot) { return bool(request.matrixPaths[slot]); };

    attn::ModelConfig config = request.config;
    if (!request.dimensionGiven[0]) {
        if (have(SlotX))
            config.dModel = int(given[SlotX].cols());
        else
            for (const int slot : {SlotWq, SlotWk, SlotWv})
                if (have(slot)) {
                    config.dModel = int(given[slot].rows());
                    break;
                }
    }
    if (!request.dimensionGiven[1]) {
        if (have(SlotWq))
            config.dK = outputWidth(given[SlotWq], config.dModel);
        else if (have(SlotWk))
            config.dK = outputWidth(given[SlotWk], config.dModel);
    }
    if (!request.dimensionGiven[2] && have(SlotWv))
        config.dV = outputWidth(given[SlotWv], config.dModel);

    const std::string hint = request.transposeWeights
                                 ? "leave out --transpose-weights: the file is already d_in x d_out"
                                 : "use --transpose-weights for PyTorch's nn.Linear.weight (d_out x d_in)";
    if (have(SlotX)) {
        const attn::Status shape =
            checkShape(names[SlotX], given[SlotX], -1, config.dModel, "tokens x d_model");
        if (!shape)
            return shape.error();
        if (given[SlotX].rows() > attn::kMaxTokens)
            return attn::Error{names[SlotX] + " has " + std::to_string(given[SlotX].rows())
                               + " rows (tokens), more than the " + std::to_string(attn::kMaxTokens)
                               + " allowed"};
    }
    const struct {
        int slot;
        int cols;
        const char* dims;
    } weights[] = {{SlotWq, config.dK, "d_model x d_k"},
                   {SlotWk, config.dK, "d_model x d_k"},
                   {SlotWv, config.dV, "d_model x d_v"}};
    for (const auto& w : weights) {
        if (!have(w.slot))
            continue;
        const attn::Status shape =
            checkShape(names[w.slot], given[w.slot], config.dModel, w.cols, w.dims, hint);
        if (!shape)
            return shape.error();
    }
    const attn::Status dimensions = attn::validateDimensions(config.dModel, config.dK, config.dV);
    if (!dimensions)
        return dimensions.error();

    LabState state;
    if (have(SlotX)) {
        const attn::Tokenization tokens = tokensForRows(config, int(given[SlotX].rows()));
        const attn::Expected<attn::Tokenization> own = attn::tokenize(config.sentence, config.tokenizer);
        if (!own || own->tokens.size() != tokens.tokens.size() || own->tokens != tokens.tokens) {
            if (request.sentenceGiven)
                printLine(stderr, CommandLine::tr("attention-lab: warning: the sentence has %1 tokens "
                                                  "but %2 has %3 rows; the rows are labelled t0, t1, ...")
                                      .arg(own ? int(own->tokens.size()) : 0)
                                      .arg(QString::fromStdString(names[SlotX]))
                                      .arg(given[SlotX].rows()));
            config.sentence = placeholderSentence(int(given[SlotX].rows()));
            config.tokenizer = attn::TokenizerMode::Article;
        }
        state.X = given[SlotX];
    } else {
        state.X = attn::drawEmbeddings(config, attn::tokenize(config.sentence, config.tokenizer).value());
    }
    if (!have(SlotWq) || !have(SlotWk) || !have(SlotWv)) {
        attn::Weights drawn = attn::drawWeights(config);
        state.Wq = std::move(drawn.Wq);
        state.Wk = std::move(drawn.Wk);
        state.Wv = std::move(drawn.Wv);
    }
    if (have(SlotWq))
        state.Wq = given[SlotWq];
    if (have(SlotWk))
        state.Wk = given[SlotWk];
    if (have(SlotWv))
        state.Wv = given[SlotWv];
    state.config = config;
    state.options = request.options;
    const attn::Status valid = validateLabState(state);
    if (!valid)
        return valid.error();
    return state;
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
    if (hasMatrixFiles(request))
        return labFromMatrixFiles(request);
    if (request.presetLab && !request.presetOverridden)
        return attn::Expected<LabState>(*request.presetLab);
    return std::nullopt;
}

// --export-dir and/or --save, from `lab` when there is one.
int runHeadless(int argc, char** argv, const Request& request, const LabState* lab)
{
    // Picture export needs the application main() made for it; plain numbers
    // need only Qt Core.
    std::optional<QCoreApplication> app;
    if (!QCoreApplication::instance())
        app.emplace(argc, argv);
    const attn::Expected<AttentionSnapshot> snapshot =
        lab ? computeLabSnapshot(*lab) : computeSnapshot(request.config, request.options);
    if (!snapshot) {
        printError(QString::fromStdString(snapshot.error().message));
        return kExitRuntimeError;
    }

    // Checked before the export so that a --save bound to fail writes nothing.
    if (request.savePath) {
        const QString path = localPath(*request.savePath);
        const QDir parent = QFileInfo(path).absoluteDir();
        if (!parent.exists()) {
            printError(
                CommandLine::tr("cannot write '%1': the directory '%2' does not exist")
                    .arg(QDir::toNativeSeparators(path), QDir::toNativeSeparators(parent.absolutePath())));
            return kExitRuntimeError;
        }
    }
    if (request.exportDir) {
        const QString directory = localPath(*request.exportDir);
        const ExportFormats formats =
            request.formats ? parseExportFormats(*request.formats).value() : ExportFormats();
        const std::vector<OutputFile> files = attentionExportFiles(snapshot.value(), formats);
        const attn::Status written = writeFilesAtomically(directory, files);
        if (!written) {
            printError(QString::fromStdString(written.error().message));
            return kExitRuntimeError;
        }
        printLine(stdout, CommandLine::tr("Wrote %n file(s) to '%1'.", nullptr, int(files.size()))
                              .arg(QDir::toNativeSeparators(directory)));
    }
    if (request.savePath) {
        const QString path = localPath(*request.savePath);
        const LabState state = labStateFromSnapshot(snapshot.value(), lab ? lab->view : QJsonObject());
        const attn::Status saved = saveLabFile(path, state);
        if (!saved) {
            printError(QString::fromStdString(saved.error().message));
            return kExitRuntimeError;
        }
        printLine(stdout, CommandLine::tr("Saved the lab to '%1'.").arg(QDir::toNativeSeparators(path)));
    }
    return 0;
}

}  // namespace

QList<PresetEntry> presetEntries()
{
    initPresetResources();
    QList<PresetEntry> presets;
    for (const auto& [name, file] :
         {std::pair{"article", "article-example"}, std::pair{"cinema", "jane-cinema"},
          std::pair{"scaling-demo", "scaling-demo"}})
        presets.append(
            {QLatin1String(name), QStringLiteral(":/presets/%1.attnlab").arg(QLatin1String(file))});
    return presets;
}

QStringList presetNames()
{
    QStringList names;
    for (const PresetEntry& preset : presetEntries())
        names.append(preset.name);
    return names;
}

QString presetPath(const QString& name)
{
    for (const PresetEntry& preset : presetEntries())
        if (preset.name == name)
            return preset.path;
    return QString();
}

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
    std::optional<UsageError> error = readArguments(parser, &request);
    if (!error && request.help) {
        printLine(stdout, helpText());
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
    if (!error)
        error = validate(request);
    if (error) {
        printError(error->message);
        outcome.exitNow = true;
        outcome.exitCode = kExitUsageError;
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
