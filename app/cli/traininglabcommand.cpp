// SPDX-License-Identifier: GPL-3.0-or-later
#include "traininglabcommand.h"

#include "commandlineparser.h"
#include "consoleio.h"
#include "echoedvalue.h"
#include "exportdirectory.h"
#include "numberargument.h"
#include "scalinglabcommand.h"
#include "trainingexport.h"

#include <QCoreApplication>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace attnlab {

namespace {

struct TrainingLabCommand {
    Q_DECLARE_TR_FUNCTIONS(TrainingLabCommand)
};

QString number(double x)
{
    return QString::number(x, 'g', 12);
}

QString helpText()
{
    const attn::TrainingSettings d;
    return TrainingLabCommand::tr(
               "Usage: attention-lab --training-lab [--d-k N] [--steps N] [--seed N]\n"
               "                     [--optimizer adam|sgd] [--lr X] [--n-keys N]\n"
               "                     [--d-model N] [--classes N] [--batch N] [--beta X]\n"
               "                     [--divisor X] --export-dir DIR [--format LIST]\n"
               "The training lab without a window: trains one attention head on\n"
               "associative recall (n keys e_j ~ N(0, I) with labels y_j in 0..C-1, a query\n"
               "x_q = e_t + 0.5 N(0, I), values beta onehot(y_j), loss the cross-entropy of\n"
               "sum_j a_j v_j against y_t), once dividing the scores by sqrt(d_k) and once\n"
               "by 1, from the same starting weights on the same batches.\n"
               "\n"
               "  --d-k N          width of q and k, 1 to %1 (default %2)\n"
               "  --steps N        training steps, 1 to %3 (default %4)\n"
               "  --seed N         random seed, 0 to 18446744073709551615 (default %5)\n"
               "  --optimizer O    adam (torch.optim.Adam, beta1 0.9, beta2 0.999, eps 1e-8)\n"
               "                   or sgd (default adam)\n"
               "  --lr X           learning rate, above 0 and at most %6 (default %7)\n"
               "  --n-keys N       keys per example, 2 to %8 (default %9)\n"
               "  --d-model N      width of the embeddings, 1 to %10 (default %11)\n"
               "  --classes N      labels C, 2 to %12 (default %13)\n"
               "  --batch N        examples per step, 1 to %14 (default %15); batch * keys *\n"
               "                   d_model at most %16\n"
               "  --beta X         size of the values, above 0 and at most %17 (default %18)\n"
               "  --divisor X      a third run dividing by X, %19 to %20\n"
               "  --export-dir DIR write the files into DIR, created if missing; all files\n"
               "                   are written or none\n"
               "  --format LIST    any of json, csv, png, svg, pdf, comma-separated\n"
               "                   (default json,csv,png)\n"
               "  -h, --help       show this help and exit\n"
               "\n"
               "Files: DIR/training_lab.json (\"task\": every setting; \"d_k\"; \"runs\": per run\n"
               "\"scale\" (sqrt-dk, none or custom), \"divisor\" and arrays over the steps\n"
               "\"loss\", \"accuracy\", \"grad_norm_q\", \"grad_norm_k\", \"max_weight\",\n"
               "\"entropy\", \"saturated_wrong\"), DIR/training_lab.csv (header scale,\n"
               "divisor, step, then those seven; one row per run and step, steps from 1)\n"
               "and the plots as png, svg or pdf.\n"
               "\n"
               "Exit status: 0 on success, 1 if the files cannot be written, 2 for invalid\n"
               "options.")
        .arg(attn::kTrainingMaxDk)
        .arg(d.dK)
        .arg(attn::kTrainingMaxSteps)
        .arg(d.steps)
        .arg(d.seed)
        .arg(number(attn::kTrainingMaxLearningRate), number(d.learningRate))
        .arg(attn::kTrainingMaxKeys)
        .arg(d.task.nKeys)
        .arg(attn::kTrainingMaxDModel)
        .arg(d.task.dModel)
        .arg(attn::kTrainingMaxClasses)
        .arg(d.task.classes)
        .arg(attn::kTrainingMaxBatch)
        .arg(d.task.batch)
        .arg(attn::kTrainingMaxBatchEntries)
        .arg(number(attn::kTrainingMaxBeta), number(d.task.beta), number(attn::kTrainingMinDivisor),
             number(attn::kTrainingMaxDivisor));
}

// A decimal (what std::from_chars reads, nothing around it) that is finite
// and within (low, high], or [low, high] when `lowIncluded`.
std::optional<QString> readDecimal(const char* option, std::string_view text, double low, bool lowIncluded,
                                   double high, double* value)
{
    double x = 0.0;
    const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), x);
    const bool ok = !text.empty() && r.ec == std::errc() && r.ptr == text.data() + text.size()
                    && std::isfinite(x) && (lowIncluded ? x >= low : x > low) && x <= high;
    if (ok) {
        *value = x;
        return std::nullopt;
    }
    const QString quotedText = echoedValue(QString::fromUtf8(text.data(), qsizetype(text.size())));
    if (lowIncluded)
        return TrainingLabCommand::tr("%1 must be a number from %2 to %3, not %4")
            .arg(QLatin1String(option), number(low), number(high), quotedText);
    return TrainingLabCommand::tr("%1 must be a number above %2 and at most %3, not %4")
        .arg(QLatin1String(option), number(low), number(high), quotedText);
}

struct Request {
    bool help = false;
    attn::TrainingSettings settings;
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
    attn::TrainingSettings& s = request->settings;
    for (const CommandLineParser::Option& option : parser.options()) {
        const QString& name = option.name;
        if (name == QLatin1String("--help")) {
            request->help = true;
            return std::nullopt;
        }
        const std::string text = option.value.toStdString();
        const std::string_view value = text;
        std::optional<QString> error;
        if (name == QLatin1String("--d-k"))
            error = readWholeNumber("--d-k", value, 1, attn::kTrainingMaxDk, &s.dK);
        else if (name == QLatin1String("--steps"))
            error = readWholeNumber("--steps", value, 1, attn::kTrainingMaxSteps, &s.steps);
        else if (name == QLatin1String("--seed"))
            error = readWholeNumber("--seed", value, std::uint64_t(0),
                                    std::numeric_limits<std::uint64_t>::max(), &s.seed);
        else if (name == QLatin1String("--n-keys"))
            error = readWholeNumber("--n-keys", value, 2, attn::kTrainingMaxKeys, &s.task.nKeys);
        else if (name == QLatin1String("--d-model"))
            error = readWholeNumber("--d-model", value, 1, attn::kTrainingMaxDModel, &s.task.dModel);
        else if (name == QLatin1String("--classes"))
            error = readWholeNumber("--classes", value, 2, attn::kTrainingMaxClasses, &s.task.classes);
        else if (name == QLatin1String("--batch"))
            error = readWholeNumber("--batch", value, 1, attn::kTrainingMaxBatch, &s.task.batch);
        else if (name == QLatin1String("--lr"))
            error = readDecimal("--lr", value, 0.0, false, attn::kTrainingMaxLearningRate, &s.learningRate);
        else if (name == QLatin1String("--beta"))
            error = readDecimal("--beta", value, 0.0, false, attn::kTrainingMaxBeta, &s.task.beta);
        else if (name == QLatin1String("--divisor"))
            error = readDecimal("--divisor", value, attn::kTrainingMinDivisor, true,
                                attn::kTrainingMaxDivisor, &s.customDivisor);
        else if (name == QLatin1String("--optimizer")) {
            if (value == "adam")
                s.optimizer = attn::TrainingOptimizer::Adam;
            else if (value == "sgd")
                s.optimizer = attn::TrainingOptimizer::Sgd;
            else
                error = TrainingLabCommand::tr("--optimizer must be adam or sgd, not %1")
                            .arg(echoedValue(option.value));
        } else if (name == QLatin1String("--export-dir")) {
            if (value.empty())
                error = TrainingLabCommand::tr("--export-dir is empty; give a directory");
            request->exportDir = option.value;
        } else if (name == QLatin1String("--format")) {
            const auto formats = parseScalingLabFormats(option.value);
            if (!formats.ok())
                error = QString::fromStdString(formats.error().message);
            else
                request->formats = formats.value();
        }
        if (error)
            return error;
    }
    return std::nullopt;
}

}  // namespace

bool trainingLabWantsPlots(const CommandLineParser& parser)
{
    if (!parser.isSet(QStringLiteral("--format")))
        return true;  // json,csv,png
    const attn::Expected<ScalingLabFormats> parsed =
        parseScalingLabFormats(parser.value(QStringLiteral("--format")));
    return parsed.ok() && !parsed.value().images.isEmpty();
}

int runTrainingLabCommand(const CommandLineParser& parser, const TrainingLabPlotter& plotter)
{
    Request request;
    if (const auto error = read(parser, &request))
        return fail(kExitUsageError, *error);
    if (request.help) {
        printLine(stdout, helpText());
        return kExitOk;
    }
    if (!request.exportDir)
        return fail(kExitUsageError, TrainingLabCommand::tr("--training-lab needs --export-dir DIR "
                                                            "(see attention-lab --training-lab --help)"));
    if (const attn::Status valid = attn::validateTrainingSettings(request.settings); !valid)
        return fail(kExitUsageError, QString::fromStdString(valid.error().message));
    const QStringList& images = request.formats.images;
    if (!images.isEmpty() && !plotter)
        return fail(kExitUsageError,
                    TrainingLabCommand::tr("--format %1: this build draws no training plots; "
                                           "give --format json,csv")
                        .arg(images.join(QLatin1Char(','))));
    if (const std::optional<QString> link = linkInTheWay(*request.exportDir))
        return fail(kExitRuntimeError, *link);

    attn::TrainingLab lab(request.settings);
    lab.run();

    std::vector<OutputFile> files;
    if (request.formats.json)
        files.push_back(bytesFile("training_lab.json",
                                  QByteArray::fromStdString(trainingLabJson(lab.settings(), lab.curves()))));
    if (request.formats.csv)
        files.push_back(
            bytesFile("training_lab.csv", QByteArray::fromStdString(trainingLabCsv(lab.curves()))));
    if (!images.isEmpty()) {
        // Drawn by the window's Training tab, which main() passed with the
        // GUI application the plots need.
        auto pictures = plotter(lab, images);
        if (!pictures.ok())
            return fail(kExitRuntimeError, QString::fromStdString(pictures.error().message));
        for (OutputFile& f : pictures.value())
            files.push_back(std::move(f));
    }
    const attn::Status written = writeFilesAtomically(*request.exportDir, files);
    if (!written)
        return fail(kExitRuntimeError, QString::fromStdString(written.error().message));
    return kExitOk;
}

}  // namespace attnlab
