#include "commandline.h"

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "size_limits.h"
#include "tokenizer.h"

#include <QCoreApplication>
#include <QDir>
#include <QString>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

// Qt's window options, handed on to QApplication untouched.
constexpr std::string_view kQtOptionsWithValue[] = {
    "-platform", "-platformpluginpath", "-platformtheme", "-plugin", "-qwindowgeometry",
    "-geometry", "-qwindowtitle", "-title", "-qwindowicon", "-style", "-stylesheet",
    "-session", "-display", "-qmljsdebugger"};
constexpr std::string_view kQtFlags[] = {"-reverse", "-nograb", "-dograb", "-sync",
                                         "-widgetcount"};

// What argv asked for, before anything is validated against the engine.
struct Request {
    bool help = false;
    bool version = false;
    bool modelOptions = false;
    attn::ModelConfig config;
    attn::AttentionOptions options;
    std::optional<std::string> exportDir;
    std::optional<std::string> formats;
};

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
        "Usage: attention-lab [OPTION]...\n"
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
        "Export (runs without a window):\n"
        "  --export-dir DIR     write the files into DIR, created if missing; all files\n"
        "                       are written or none\n"
        "  --format LIST        json, csv or json,csv (default json,csv)\n"
        "\n"
        "  -h, --help           show this help and exit\n"
        "      --version        show the version and exit\n"
        "\n"
        "Files: DIR/attention.json holds the settings, tokens, the matrices X, W_q,\n"
        "W_k, W_v, Q, K, V, scores, scaled_scores, weights, context (arrays of rows,\n"
        "numbers that read back exactly) and the statistics; a masked entry of\n"
        "scaled_scores is null, as JSON has no -inf. DIR/NAME.csv holds each matrix\n"
        "with token or index labels; a masked entry is -inf.\n"
        "\n"
        "Example:\n"
        "  attention-lab --sentence \"Life is short, eat dessert first\" --seed 123 \\\n"
        "      --d-model 16 --d-k 24 --d-v 28 --init article --export-dir out \\\n"
        "      --format json,csv\n"
        "\n"
        "Exit status: 0 on success, 1 if the files cannot be written, 2 for invalid\n"
        "options.");
    return text.arg(QString::fromStdString(defaults.sentence),
                    QString::fromLatin1(attn::tokenizerModeName(defaults.tokenizer)),
                    QString::number(defaults.seed), QString::number(attn::kMaxDModel),
                    QString::number(defaults.dModel), QString::number(attn::kMaxDHead),
                    QString::number(defaults.dK), QString::number(defaults.dV),
                    QString::fromLatin1(attn::initModeName(defaults.init)),
                    QString::fromLatin1(attn::scaleModeName(defaultOptions.scale)));
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

std::optional<UsageError> parseDimension(std::string_view option, std::string_view text,
                                         int limit, int* value)
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
    const std::from_chars_result r =
        std::from_chars(text.data(), text.data() + text.size(), divisor);
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

// One option with its value into the request.
std::optional<UsageError> applyOption(std::string_view name, std::string_view value,
                                      Request* request)
{
    attn::ModelConfig& config = request->config;
    if (name == "--sentence") {
        if (value.empty())
            return UsageError{CommandLine::tr("--sentence is empty; give at least one word")};
        config.sentence = std::string(value);
    } else if (name == "--tokenizer") {
        if (!attn::parseTokenizerMode(value, &config.tokenizer))
            return UsageError{CommandLine::tr("--tokenizer must be article or punctuation, not %1")
                                  .arg(quoted(value))};
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
    }
    return std::nullopt;
}

bool takesValue(std::string_view name)
{
    for (const char* option : {"--sentence", "--tokenizer", "--seed", "--d-model", "--d-k", "--d-v",
                               "--init", "--scale", "--export-dir", "--format"}) {
        if (name == option)
            return true;
    }
    return false;
}

bool isModelOption(std::string_view name)
{
    return name != "--export-dir" && name != "--format";
}

// Reads argv into a request; stops at --help or --version.
std::optional<UsageError> parseArguments(int argc, char** argv, Request* request)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            request->help = true;
            return std::nullopt;
        }
        if (arg == "--version") {
            request->version = true;
            return std::nullopt;
        }
        if (arg == "--causal") {
            request->options.causal = true;
            request->modelOptions = true;
            continue;
        }

        const std::size_t equals = arg.find('=');
        const std::string_view name = arg.substr(0, equals);
        if (arg.substr(0, 2) != "--") {
            if (std::find(std::begin(kQtFlags), std::end(kQtFlags), arg) != std::end(kQtFlags))
                continue;
            if (std::find(std::begin(kQtOptionsWithValue), std::end(kQtOptionsWithValue), name)
                != std::end(kQtOptionsWithValue)) {
                if (equals == std::string_view::npos)
                    ++i;
                continue;
            }
            if (!arg.empty() && arg.front() == '-')
                return UsageError{CommandLine::tr("unknown option %1; see --help")
                                      .arg(quoted(arg))};
            return UsageError{CommandLine::tr("unexpected argument %1; see --help")
                                  .arg(quoted(arg))};
        }
        if (!takesValue(name)) {
            if (name == "--causal")
                return UsageError{CommandLine::tr("--causal takes no value")};
            return UsageError{CommandLine::tr("unknown option %1; see --help").arg(quoted(name))};
        }

        std::string_view value;
        if (equals != std::string_view::npos) {
            value = arg.substr(equals + 1);
        } else {
            if (i + 1 >= argc || std::string_view(argv[i + 1]).substr(0, 2) == "--")
                return UsageError{CommandLine::tr("%1 needs a value; see --help")
                                      .arg(quoted(name))};
            value = argv[++i];
        }
        if (isModelOption(name))
            request->modelOptions = true;
        if (std::optional<UsageError> error = applyOption(name, value, request))
            return error;
    }
    return std::nullopt;
}

// The checks that need the engine: the sentence must give tokens.
std::optional<UsageError> validate(const Request& request)
{
    const attn::Expected<attn::Tokenization> tokens =
        attn::tokenize(request.config.sentence, request.config.tokenizer);
    if (!tokens)
        return UsageError{CommandLine::tr("--sentence: %1")
                              .arg(QString::fromStdString(tokens.error().message))};
    const attn::Status dimensions =
        attn::validateDimensions(request.config.dModel, request.config.dK, request.config.dV);
    if (!dimensions)
        return UsageError{QString::fromStdString(dimensions.error().message)};
    const attn::Expected<double> divisor = attn::scaleDivisor(request.options, request.config.dK);
    if (!divisor)
        return UsageError{CommandLine::tr("--scale: %1")
                              .arg(QString::fromStdString(divisor.error().message))};
    if (request.formats && !request.exportDir)
        return UsageError{CommandLine::tr("--format needs --export-dir")};
    if (request.formats) {
        const attn::Expected<ExportFormats> formats = parseExportFormats(*request.formats);
        if (!formats)
            return UsageError{QString::fromStdString(formats.error().message)};
    }
    return std::nullopt;
}

int runExport(int argc, char** argv, const Request& request)
{
    QCoreApplication app(argc, argv);
    const QString directory = QString::fromLocal8Bit(request.exportDir->c_str());
    const ExportFormats formats =
        request.formats ? parseExportFormats(*request.formats).value() : ExportFormats();

    const attn::Expected<AttentionSnapshot> snapshot =
        computeSnapshot(request.config, request.options);
    if (!snapshot) {
        printError(QString::fromStdString(snapshot.error().message));
        return kExitRuntimeError;
    }
    const std::vector<OutputFile> files = attentionExportFiles(snapshot.value(), formats);
    const attn::Status written = writeFilesAtomically(directory, files);
    if (!written) {
        printError(QString::fromStdString(written.error().message));
        return kExitRuntimeError;
    }
    printLine(stdout, CommandLine::tr("Wrote %n file(s) to '%1'.", nullptr, int(files.size()))
                          .arg(QDir::toNativeSeparators(directory)));
    return 0;
}

}  // namespace

CommandLineOutcome handleCommandLine(int argc, char** argv)
{
    CommandLineOutcome outcome;
    Request request;
    std::optional<UsageError> error = parseArguments(argc, argv, &request);
    if (!error && request.help) {
        printLine(stdout, helpText());
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

    outcome.config = request.config;
    outcome.options = request.options;
    outcome.haveConfig = request.modelOptions;
    if (request.exportDir) {
        outcome.exitNow = true;
        outcome.exitCode = runExport(argc, argv, request);
    }
    return outcome;
}

}  // namespace attnlab
