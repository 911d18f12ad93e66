// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalinglabcommand.h"

#include "consoleio.h"
#include "echoedvalue.h"
#include "exportdirectory.h"
#include "numberargument.h"

#include "csv.h"
#include "jsonwriter.h"
#include "commandlineparser.h"
#include "numberformat.h"

#include <QCoreApplication>

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace attnlab {

namespace {

struct ScalingLabCommand {
    Q_DECLARE_TR_FUNCTIONS(ScalingLabCommand)
};

QString helpText()
{
    const attn::ScalingLabConfig defaults;
    return ScalingLabCommand::tr(
               "Usage: attention-lab --scaling-lab [--n-keys N] [--samples N] [--seed N]\n"
               "                     --export-dir DIR [--format LIST]\n"
               "The d_k lab without a window: for d_k from 1 to 1024, draws random queries\n"
               "and keys with N(0, 1) entries and measures the variance of q.k and of\n"
               "q.k/sqrt(d_k), and the mean largest softmax weight, entropy and softmax\n"
               "Jacobian norm over n keys, unscaled and scaled.\n"
               "\n"
               "  --n-keys N       keys per query, 2 to %1 (default %2)\n"
               "  --samples N      random queries per d_k, 1 to %3 (default %4, or fewer\n"
               "                   when %5 / ((n + 1) * 1024) is smaller, so that a run\n"
               "                   takes about a second; the count chosen is said on\n"
               "                   stderr and written as \"samples\"); more than that runs\n"
               "                   with a progress line on stderr\n"
               "  --seed N         random seed, 0 to 18446744073709551615 (default %6)\n"
               "  --export-dir DIR write the files into DIR, created if missing; all files\n"
               "                   are written or none\n"
               "  --format LIST    any of json, csv, png, svg, pdf, comma-separated\n"
               "                   (default json,csv,png)\n"
               "  -h, --help       show this help and exit\n"
               "\n"
               "Files: DIR/scaling_lab.json (arrays d_k, var_raw, var_scaled, var_raw_stderr,\n"
               "var_scaled_stderr, max_weight_raw, max_weight_scaled, entropy_raw,\n"
               "entropy_scaled, grad_norm_raw, grad_norm_scaled; n_keys, samples, seed),\n"
               "DIR/scaling_lab.csv (one row per d_k) and the plots\n"
               "DIR/scaling_lab_{variance,max_weight,entropy,jacobian}.{png,svg,pdf}.\n"
               "\n"
               "Exit status: 0 on success, 1 if the files cannot be written, 2 for invalid\n"
               "options.")
        .arg(attn::kScalingLabMaxKeys)
        .arg(defaults.nKeys)
        .arg(attn::kScalingLabMaxSamples)
        .arg(defaults.samples)
        .arg(attn::kScalingLabMaxDraws)
        .arg(defaults.seed);
}

struct Request {
    bool help = false;
    bool samplesGiven = false;
    attn::ScalingLabConfig config;
    std::optional<QString> exportDir;
    ScalingLabFormats formats;
};

// The lab's options (CommandLineParser let only these through) into a
// request; an error message for a bad value, or nothing.
std::optional<QString> read(const CommandLineParser& parser, Request* request)
{
    if (!parser.helpAsked()) {
        if (const QString repeated = parser.repeatedOptionError(); !repeated.isEmpty())
            return repeated;
    }
    for (const CommandLineParser::Option& option : parser.options()) {
        const QString& name = option.name;
        if (name == QLatin1String("--help")) {
            request->help = true;
            return std::nullopt;
        }
        const std::string text = option.value.toStdString();
        const std::string_view value = text;
        attn::ScalingLabConfig& c = request->config;
        if (name == QLatin1String("--n-keys")) {
            if (std::optional<QString> error =
                    readWholeNumber("--n-keys", value, 2, attn::kScalingLabMaxKeys, &c.nKeys))
                return error;
        } else if (name == QLatin1String("--samples")) {
            request->samplesGiven = true;
            if (std::optional<QString> error =
                    readWholeNumber("--samples", value, 1, attn::kScalingLabMaxSamples, &c.samples))
                return error;
        } else if (name == QLatin1String("--seed")) {
            if (std::optional<QString> error = readWholeNumber(
                    "--seed", value, std::uint64_t(0), std::numeric_limits<std::uint64_t>::max(), &c.seed))
                return error;
        } else if (name == QLatin1String("--export-dir")) {
            if (value.empty())
                return ScalingLabCommand::tr("--export-dir is empty; give a directory");
            request->exportDir = option.value;
        } else if (name == QLatin1String("--format")) {
            const auto formats = parseScalingLabFormats(option.value);
            if (!formats.ok())
                return QString::fromStdString(formats.error().message);
            request->formats = formats.value();
        }
    }
    return std::nullopt;
}

}  // namespace

bool scalingLabWantsPlots(const CommandLineParser& parser)
{
    const QString formats = parser.value(QStringLiteral("--format"));
    if (!parser.isSet(QStringLiteral("--format")))
        return true;  // json,csv,png
    const attn::Expected<ScalingLabFormats> parsed = parseScalingLabFormats(formats);
    return parsed.ok() && !parsed.value().images.isEmpty();
}

namespace {

struct Column {
    const char* name;
    const std::vector<double>* values;
};

std::vector<Column> columns(const attn::ScalingLabCurves& c)
{
    return {{"var_raw", &c.varRaw},
            {"var_scaled", &c.varScaled},
            {"var_raw_stderr", &c.varRawStdErr},
            {"var_scaled_stderr", &c.varScaledStdErr},
            {"max_weight_raw", &c.maxWeightRaw},
            {"max_weight_scaled", &c.maxWeightScaled},
            {"entropy_raw", &c.entropyRaw},
            {"entropy_scaled", &c.entropyScaled},
            {"grad_norm_raw", &c.gradNormRaw},
            {"grad_norm_scaled", &c.gradNormScaled}};
}

// A run beyond the budget says how far it is: on a terminal one line
// rewritten in place, otherwise a line at every tenth.
attn::ScalingLabProgress progressPrinter(const attn::ScalingLabConfig& config)
{
    const bool terminal = ::isatty(::fileno(stderr)) == 1;
    const QString what = ScalingLabCommand::tr(
                             "attention-lab: %1 samples per d_k for %2 keys, "
                             "more than a second's work:")
                             .arg(config.samples)
                             .arg(config.nKeys);
    auto shown = std::make_shared<int>(0);  // nothing to say at 0%
    return [terminal, what, shown](int done, int total) {
        const int percent = int((long long)done * 100 / total);
        const int step = terminal ? percent : percent / 10 * 10;
        if (step == *shown)
            return;
        *shown = step;
        const QByteArray line = (what + QStringLiteral(" %1% done").arg(step)).toLocal8Bit();
        if (terminal)
            std::fprintf(stderr, "\r%s%s", line.constData(), done == total ? "\n" : "");
        else
            std::fprintf(stderr, "%s\n", line.constData());
        std::fflush(stderr);
    };
}

}  // namespace

attn::Expected<ScalingLabFormats> parseScalingLabFormats(const QString& list)
{
    ScalingLabFormats f;
    f.json = f.csv = false;
    f.images.clear();
    const QStringList names = list.split(QLatin1Char(','));
    for (const QString& raw : names) {
        const QString name = raw.trimmed().toLower();
        if (name == QLatin1String("json"))
            f.json = true;
        else if (name == QLatin1String("csv"))
            f.csv = true;
        else if (name == QLatin1String("png") || name == QLatin1String("svg")
                 || name == QLatin1String("pdf")) {
            if (!f.images.contains(name))
                f.images.append(name);
        } else
            return attn::Error{ScalingLabCommand::tr("--format takes json, csv, png, svg and "
                                                     "pdf, comma-separated, not %1")
                                   .arg(echoedValue(raw.trimmed()))
                                   .toStdString()};
    }
    return f;
}

QStringList scalingLabColumns()
{
    QStringList names{QStringLiteral("d_k")};
    for (const Column& c : columns(attn::ScalingLabCurves{}))
        names.append(QLatin1String(c.name));
    return names;
}

void writeScalingLabJson(std::ostream& out, const attn::ScalingLabCurves& curves)
{
    JsonWriter json(out);
    json.beginObject();
    json.key("n_keys");
    json.value(curves.nKeys);
    json.key("samples");
    json.value(curves.samples);
    json.key("seed");
    json.value(curves.seed);
    json.key("d_k");
    json.beginArray(JsonWriter::Layout::Inline);
    for (int d : curves.dK)
        json.value(d);
    json.endArray();
    for (const Column& c : columns(curves)) {
        json.key(c.name);
        json.beginArray(JsonWriter::Layout::Inline);
        for (double v : *c.values)
            json.value(v);
        json.endArray();
    }
    json.endObject();
    json.finish();
}

void writeScalingLabCsv(std::ostream& out, const attn::ScalingLabCurves& curves)
{
    std::string text;
    CsvRow header;
    for (const QString& name : scalingLabColumns())
        header.push_back(name.toStdString());
    appendCsvRow(text, header);
    const std::vector<Column> cols = columns(curves);
    for (std::size_t g = 0; g < curves.size(); ++g) {
        CsvRow row{std::to_string(curves.dK[g])};
        for (const Column& c : cols)
            row.push_back(formatRoundTrip((*c.values)[g]));
        appendCsvRow(text, row);
    }
    out << text;
}

int runScalingLabCommand(const CommandLineParser& parser, const ScalingLabPlotter& plotter)
{
    Request request;
    if (const auto error = read(parser, &request))
        return fail(kExitUsageError, *error);
    if (request.help) {
        printLine(stdout, helpText());
        return kExitOk;
    }
    if (!request.exportDir)
        return fail(kExitUsageError, ScalingLabCommand::tr("--scaling-lab needs --export-dir DIR "
                                                           "(see attention-lab --scaling-lab --help)"));
    if (const attn::Status valid = attn::validateScalingLabConfig(request.config); !valid)
        return fail(kExitUsageError, QString::fromStdString(valid.error().message));

    if (const std::optional<QString> link = linkInTheWay(*request.exportDir))
        return fail(kExitRuntimeError, *link);

    attn::ScalingLabConfig& config = request.config;
    const int budget = attn::scalingLabBudgetSamples(config.nKeys);
    if (!request.samplesGiven) {
        config.samples = attn::defaultScalingLabSamples(config.nKeys);
        if (config.samples < attn::kScalingLabDefaultSamples)
            printLine(stderr, ScalingLabCommand::tr("attention-lab: %1 samples per d_k for %2 keys "
                                                    "(the most that keep the run to about a "
                                                    "second); --samples N asks for more")
                                  .arg(config.samples)
                                  .arg(config.nKeys));
    }
    attn::ScalingLabProgress progress;
    if (config.samples > budget)
        progress = progressPrinter(config);
    const auto run = attn::runScalingLab(config, nullptr, progress);
    if (!run.ok())
        return fail(kExitRuntimeError, QString::fromStdString(run.error().message));
    const attn::ScalingLabCurves curves = run.value();

    std::vector<OutputFile> files;
    if (request.formats.json)
        files.push_back(
            {"scaling_lab.json", [&curves](std::ostream& out) { writeScalingLabJson(out, curves); }});
    if (request.formats.csv)
        files.push_back(
            {"scaling_lab.csv", [&curves](std::ostream& out) { writeScalingLabCsv(out, curves); }});

    if (!request.formats.images.isEmpty()) {
        // Drawn by the window's d_k lab view, which main() passed with the
        // GUI application the plots need.
        if (!plotter)
            return fail(kExitRuntimeError,
                        ScalingLabCommand::tr("the plots need the window's views; none were drawn"));
        auto images = plotter(curves, request.formats.images);
        if (!images.ok())
            return fail(kExitRuntimeError, QString::fromStdString(images.error().message));
        for (OutputFile& f : images.value())
            files.push_back(std::move(f));
    }
    const attn::Status written = writeFilesAtomically(*request.exportDir, files);
    if (!written)
        return fail(kExitRuntimeError, QString::fromStdString(written.error().message));
    return kExitOk;
}

}  // namespace attnlab
