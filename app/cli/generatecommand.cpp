// SPDX-License-Identifier: GPL-3.0-or-later
#include "generatecommand.h"

#include "commandlineparser.h"
#include "consoleio.h"
#include "demomodel.h"
#include "echoedvalue.h"
#include "generation.h"
#include "generationexport.h"
#include "headlabcommand.h"
#include "modelcommand.h"
#include "modelfamilies.h"
#include "numberargument.h"
#include "size_limits.h"
#include "stagedwrite.h"

#include <QCoreApplication>
#include <QDir>
#include <QThread>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

attn::Error usage(const QString& message)
{
    return attn::Error{message.toStdString()};
}

// The --model export's options that write other files or pictures.
const char* const kNotWithGeneration[] = {
    "--head-scores", "--probe",  "--logit-lens", "--rollout",
    "--rope",        "--format", "--caption",    "--allow-large-export"};

}  // namespace

bool asksForGeneration(const CommandLineParser& parser)
{
    for (const char* option : {"--generate", "--sample", "--top-k"})
        if (parser.isSet(QLatin1String(option)))
            return true;
    return false;
}

std::optional<QString> generationWithoutModel(const CommandLineParser& parser)
{
    for (const char* option : {"--generate", "--sample", "--top-k"})
        if (parser.isSet(QLatin1String(option)))
            return CommandLine::tr(
                       "%1 generates text with a model: give it with --model DIR --sentence TEXT "
                       "--export-dir OUT")
                .arg(QLatin1String(option));
    return std::nullopt;
}

attn::Expected<GenerationRequest> readGenerationRequest(const CommandLineParser& parser)
{
    GenerationRequest request;
    request.sample = parser.isSet(QStringLiteral("--sample"));
    if (!parser.isSet(QStringLiteral("--generate")))
        return usage(CommandLine::tr("%1 chooses the tokens --generate N makes: give --generate N too")
                         .arg(request.sample ? QStringLiteral("--sample") : QStringLiteral("--top-k")));
    for (const char* option : kNotWithGeneration)
        if (parser.isSet(QLatin1String(option)))
            return usage(CommandLine::tr("%1 is not for --generate, which writes generation.json alone; "
                                         "run it without --generate")
                             .arg(QLatin1String(option)));
    const std::string count = parser.value(QStringLiteral("--generate")).toStdString();
    if (std::optional<QString> bad =
            readWholeNumber("--generate", count, 1, attn::kMaxGeneratedTokens, &request.count))
        return usage(*bad);
    if (parser.isSet(QStringLiteral("--top-k"))) {
        if (!request.sample)
            return usage(
                CommandLine::tr("--top-k keeps the K most likely tokens to sample from: give "
                                "--sample too"));
        const std::string k = parser.value(QStringLiteral("--top-k")).toStdString();
        if (std::optional<QString> bad = readWholeNumber("--top-k", k, 1, attn::kMaxTopK, &request.topK))
            return usage(*bad);
    }
    if (parser.isSet(QStringLiteral("--seed"))) {
        if (!request.sample)
            return usage(
                CommandLine::tr("--seed seeds the draws of --sample: give --sample too (greedy "
                                "draws nothing)"));
        const std::string seed = parser.value(QStringLiteral("--seed")).toStdString();
        if (std::optional<QString> bad = readWholeNumber(
                "--seed", seed, std::uint64_t(0), std::numeric_limits<std::uint64_t>::max(), &request.seed))
            return usage(*bad);
    }
    return request;
}

int runGenerateCommand(const CommandLineParser& parser, const ModelCommandInput& input,
                       const QString& directory)
{
    if (std::optional<QString> conflict = modelOptionConflict(parser))
        return fail(kExitUsageError, *conflict);
    const attn::Expected<GenerationRequest> request = readGenerationRequest(parser);
    if (!request)
        return fail(kExitUsageError, QString::fromStdString(request.error().message));
    double temperature = 1.0;
    if (std::optional<QString> bad = readModelTemperature(parser, &temperature))
        return fail(kExitUsageError, *bad);
    const QString folder = parser.value(QStringLiteral("--model"));
    if (folder.isEmpty())
        return fail(kExitUsageError,
                    CommandLine::tr("--model is empty; give the folder of a model (config.json, "
                                    "its weights and tokenizer)"));
    if (!parser.isSet(QStringLiteral("--sentence")))
        return fail(kExitUsageError,
                    CommandLine::tr("--generate continues a sentence: give --sentence TEXT, the prompt"));
    const attn::Expected<QString> located = resolveModelFolder(folder);
    attn::Expected<ModelFolder> model =
        located ? readModelFolder(located.value()) : attn::Expected<ModelFolder>(located.error());
    if (!model)
        return fail(kExitUsageError, CommandLine::tr("--model %1: %2")
                                         .arg(echoedValue(QDir::toNativeSeparators(folder)),
                                              QString::fromStdString(model.error().message)));
    const attn::DecoderConfig& config = model->config();

    GenerationRun run;
    attn::GenerationOptions& options = run.options;
    options.maxNewTokens = request->count;
    options.sample = request->sample;
    options.temperature = temperature;
    options.topK = request->topK;
    options.seed = request->seed;
    options.threads = std::max(1, QThread::idealThreadCount());
    options.divisors = attn::HeadDivisors::standard(config);
    if (const attn::Status set =
            options.divisors.set(input.scale.scale, input.scale.customDivisor, config.headDim);
        !set)
        return fail(kExitUsageError,
                    CommandLine::tr("--scale: %1").arg(QString::fromStdString(set.error().message)));
    run.scaleMode = attn::scaleModeName(input.scale.scale);
    if (std::optional<QString> bad =
            readModelWhatIfs(parser, input, *model, &options.mask, &options.skipQkNorm))
        return fail(kExitUsageError, *bad);

    // The head lab's ablation (--ablate, --ablation): every step without those heads.
    const attn::Expected<HeadLabRequest> lab = readHeadLabRequest(parser);
    if (!lab)
        return fail(kExitUsageError, QString::fromStdString(lab.error().message));
    if (const attn::Status checked = checkHeadLabRequest(*lab, config); !checked)
        return fail(kExitUsageError, QString::fromStdString(checked.error().message));
    options.ablated = lab->ablate;
    options.ablation = lab->ablation;

    const std::vector<int> ids = model->tokenizer->encodeIds(parser.value(QStringLiteral("--sentence")));
    if (ids.empty())
        return fail(kExitUsageError,
                    CommandLine::tr("--sentence gives no tokens; give the text to continue"));
    const int maxTokens = std::min(config.maxPositions, attn::kMaxTokens);
    if (request->count > maxTokens - int(ids.size()))
        return fail(
            kExitUsageError,
            CommandLine::tr("--generate %1: the sentence's %2 tokens and %1 new ones make %3; this model "
                            "takes at most %4 (its config.json): give N up to %5")
                .arg(request->count)
                .arg(ids.size())
                .arg(std::int64_t(ids.size()) + request->count)
                .arg(maxTokens)
                .arg(std::max(maxTokens - int(ids.size()), 0)));
    if (const attn::Status checked = attn::checkGeneration(config, ids, options); !checked)
        return fail(kExitUsageError, CommandLine::tr("--generate %1: %2")
                                         .arg(request->count)
                                         .arg(QString::fromStdString(checked.error().message)));
    attn::Expected<attn::Generation> generation = attn::generate(*model->decoder, ids, options);
    if (!generation)
        return fail(kExitUsageError, QString::fromStdString(generation.error().message));
    run.generation = std::move(generation).value();

    const ModelFolder& read = model.value();
    const std::vector<OutputFile> files{generationJsonFile(read, run)};
    if (const attn::Status written = writeFilesAtomically(directory, files); !written)
        return fail(kExitRuntimeError, QString::fromStdString(written.error().message));
    printLine(stdout, CommandLine::tr("Wrote %n file(s) to '%1'.", nullptr, int(files.size()))
                          .arg(QDir::toNativeSeparators(directory)));
    return kExitOk;
}

}  // namespace attnlab
