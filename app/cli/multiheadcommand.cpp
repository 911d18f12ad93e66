// SPDX-License-Identifier: GPL-3.0-or-later
#include "multiheadcommand.h"

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "commandlineparser.h"
#include "consoleio.h"
#include "echoedvalue.h"
#include "exportdirectory.h"
#include "labfile.h"
#include "matrixio.h"
#include "mhastate.h"
#include "multihead.h"
#include "multihead_init.h"
#include "numberargument.h"
#include "runoutputs.h"
#include "size_limits.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

const char* const kMultiHeadOptions[] = {"--heads", "--head-layout", "--output-projection", "--mha-state"};

struct Request {
    int heads = 1;
    std::optional<attn::HeadLayout> layout;  // as given
    bool torchMha = false;
    bool outputProjection = false;
    std::optional<std::string> statePath;
};

struct UsageError {
    QString message;
};

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

std::optional<UsageError> readRequest(const CommandLineParser& parser, Request* r)
{
    for (const CommandLineParser::Option& option : parser.options()) {
        const std::string value = option.value.toStdString();
        if (option.name == QLatin1String("--heads")) {
            if (std::optional<QString> bad = readWholeNumber("--heads", value, 1, attn::kMaxHeads, &r->heads))
                return UsageError{*bad};
        } else if (option.name == QLatin1String("--head-layout")) {
            attn::HeadLayout layout;
            if (!attn::parseHeadLayout(value, &layout))
                return UsageError{CommandLine::tr("--head-layout must be independent or split, not %1")
                                      .arg(echoedValue(option.value))};
            r->layout = layout;
        } else if (option.name == QLatin1String("--init")) {
            r->torchMha = value == "torch-mha";
        } else if (option.name == QLatin1String("--output-projection")) {
            r->outputProjection = true;
        } else if (option.name == QLatin1String("--mha-state")) {
            if (value.empty())
                return UsageError{CommandLine::tr("--mha-state is empty; give the folder of .npy files")};
            r->statePath = value;
        }
    }
    return std::nullopt;
}

QString divisorsOf(int e)
{
    QStringList list;
    for (int d = 1; d <= std::min(e, attn::kMaxHeads); ++d)
        if (e % d == 0)
            list << QString::number(d);
    return list.join(QStringLiteral(", "));
}

std::optional<UsageError> checkFormats(const std::optional<std::string>& list)
{
    if (list) {
        const attn::Expected<ExportFormats> formats = parseExportFormats(*list);
        if (formats && (formats->png || formats->svg || formats->pdf))
            return UsageError{
                CommandLine::tr("--format: the multi-head export writes json, csv and npy; pictures "
                                "of the heads are not available from the command line")};
    }
    return std::nullopt;
}

// Checks the combination of options; the layout it comes to.
std::optional<UsageError> checkRequest(const Request& r, const MultiHeadCommandInput& in,
                                       attn::HeadLayout* layout, bool headless = true)
{
    if (in.conflictingOption)
        return UsageError{CommandLine::tr("%1 cannot be combined with the multi-head options: a preset is a "
                                          "single-head lab; give its settings as options")
                              .arg(QLatin1String(in.conflictingOption))};
    if (in.headWeightFiles)
        return UsageError{
            CommandLine::tr("--wq, --wk and --wv give one head; with the multi-head options the "
                            "heads are drawn from --seed or read with --mha-state")};
    if (r.statePath && r.torchMha)
        return UsageError{
            CommandLine::tr("--mha-state and --init torch-mha both give the module's parameters; "
                            "use one of them")};
    if (r.statePath && !in.xPath)
        return UsageError{
            CommandLine::tr("--mha-state needs --x FILE: the input X (n x E) the module runs on")};
    const bool impliesSplit = r.torchMha || r.statePath;
    if (impliesSplit && r.layout == attn::HeadLayout::Independent)
        return UsageError{
            CommandLine::tr("%1 is the split layout (torch.nn.MultiheadAttention); drop "
                            "--head-layout independent")
                .arg(r.torchMha ? QStringLiteral("--init torch-mha") : QStringLiteral("--mha-state"))};
    *layout = impliesSplit ? attn::HeadLayout::Split : r.layout.value_or(attn::HeadLayout::Independent);
    if (r.outputProjection && *layout == attn::HeadLayout::Split)
        return UsageError{
            CommandLine::tr("--output-projection is for the independent layout; the split layout "
                            "always has out_proj")};
    if (headless && !in.exportDir && !in.savePath)
        return UsageError{
            CommandLine::tr("the multi-head options run headless: give --export-dir DIR or --save "
                            "FILE.attnlab")};
    return checkFormats(in.formats);
}

struct Inputs {
    attn::ModelConfig config;
    attn::Tokenization tokens;
    attn::Matrix X;
};

attn::Expected<Inputs> readInputs(const Request& r, const MultiHeadCommandInput& in)
{
    Inputs inputs;
    inputs.config = in.config;
    if (r.torchMha)
        inputs.config.init = attn::InitMode::Article;  // nn.Embedding after manual_seed, as the article
    if (in.xPath) {
        attn::Expected<attn::Matrix> x = readMatrixFile(localPath(*in.xPath));
        if (!x)
            return attn::Error{"--x: " + x.error().message};
        if (x->cols() > attn::kMaxDModel)
            return attn::Error{CommandLine::tr("--x has %1 columns (d_model); at most %2 are allowed")
                                   .arg(x->cols())
                                   .arg(attn::kMaxDModel)
                                   .toStdString()};
        inputs.config.dModel = int(x->cols());
        inputs.tokens = tokensForRows(inputs.config, int(x->rows()));
        if (const attn::Expected<attn::Tokenization> own = attn::tokenizeFor(inputs.config);
            !own || own->tokens != inputs.tokens.tokens) {
            // The rows labelled t0, t1, ...: the sentence that gives those
            // tokens, so that a saved lab opens to the same rows.
            inputs.config.sentence = placeholderSentence(int(x->rows()));
            inputs.config.tokenizer = attn::TokenizerMode::Article;
        }
        inputs.X = std::move(x).value();
        return inputs;
    }
    attn::Expected<attn::Tokenization> tokens = attn::tokenizeFor(inputs.config);
    if (!tokens)
        return attn::Error{"--sentence: " + tokens.error().message};
    inputs.tokens = std::move(tokens).value();
    inputs.X = attn::drawEmbeddings(inputs.config, inputs.tokens);
    return inputs;
}

attn::Expected<AttentionSnapshot> compute(const Request& r, const MultiHeadCommandInput& in,
                                          attn::HeadLayout layout)
{
    attn::Expected<Inputs> inputs = readInputs(r, in);
    if (!inputs)
        return inputs.error();
    attn::ModelConfig& config = inputs->config;
    const int e = config.dModel, h = r.heads;
    if (layout == attn::HeadLayout::Independent) {
        const long long entries = 1LL * h * e * (2LL * config.dK + config.dV);
        if (entries > attn::kMaxHeadWeightEntries)
            return attn::Error{
                CommandLine::tr("--heads %1 with d_model %2, d_k %3 and d_v %4 needs %5 weight "
                                "entries; at most %6 are allowed")
                    .arg(h)
                    .arg(e)
                    .arg(config.dK)
                    .arg(config.dV)
                    .arg(entries)
                    .arg(attn::kMaxHeadWeightEntries)
                    .toStdString()};
        attn::IndependentHeads params;
        params.heads = attn::drawIndependentHeads(config, h);
        if (r.outputProjection)
            params.Wo = attn::drawOutputProjection(config, h);
        return computeMultiHeadSnapshot(config, in.options, std::move(inputs->tokens), std::move(inputs->X),
                                        std::move(params), attn::initModeName(config.init));
    }
    if (e % h != 0)
        return attn::Error{CommandLine::tr("--heads %1 does not divide d_model = %2: the split layout has "
                                           "head_dim = E / h (E = %2 divides by %3)")
                               .arg(h)
                               .arg(e)
                               .arg(divisorsOf(e))
                               .toStdString()};
    const int hd = e / h;
    for (const auto& [index, option, value] :
         {std::tuple{1, "--d-k", config.dK}, std::tuple{2, "--d-v", config.dV}})
        if (in.dimensionGiven[index] && value != hd)
            return attn::Error{
                CommandLine::tr("%1 %2 does not fit the split layout: d_k = d_v = d_model / h = %3")
                    .arg(QLatin1String(option))
                    .arg(value)
                    .arg(hd)
                    .toStdString()};
    attn::SplitHeads params;
    std::string init;
    if (r.statePath) {
        attn::Expected<attn::SplitHeads> state = readMhaState(localPath(*r.statePath), e, h);
        if (!state)
            return attn::Error{"--mha-state: " + state.error().message};
        params = std::move(state).value();
        init = "mha-state";
    } else if (r.torchMha) {
        params = attn::drawTorchMha(config.seed, e, h);
        init = "torch-mha";
    } else {
        attn::ModelConfig heads = config;
        heads.dK = heads.dV = hd;
        params = attn::packSplitHeads(attn::drawIndependentHeads(heads, h));
        init = attn::initModeName(config.init);
    }
    return computeMultiHeadSnapshot(config, in.options, std::move(inputs->tokens), std::move(inputs->X),
                                    std::move(params), init);
}

}  // namespace

bool wantsMultiHead(const CommandLineParser& parser)
{
    for (const char* name : kMultiHeadOptions)
        if (parser.isSet(QLatin1String(name)))
            return true;
    for (const CommandLineParser::Option& option : parser.options())
        if (option.name == QLatin1String("--init") && option.value == QLatin1String("torch-mha"))
            return true;
    return false;
}

int runMultiHeadCommand(const CommandLineParser& parser, const MultiHeadCommandInput& in, int argc,
                        char** argv)
{
    Request request;
    attn::HeadLayout layout = attn::HeadLayout::Independent;
    std::optional<UsageError> error = readRequest(parser, &request);
    if (!error)
        error = checkRequest(request, in, &layout);
    if (error)
        return fail(kExitUsageError, error->message);
    std::optional<QCoreApplication> app;
    if (!QCoreApplication::instance())
        app.emplace(argc, argv);
    // A link where the directory is to be made: said before any work.
    if (in.exportDir) {
        if (const std::optional<QString> link = linkInTheWay(localPath(*in.exportDir)))
            return fail(kExitRuntimeError, *link);
    }
    const attn::Expected<AttentionSnapshot> snapshot = compute(request, in, layout);
    if (!snapshot)
        return fail(kExitUsageError, text(snapshot.error().message));
    const LabState lab = in.savePath ? labStateFromSnapshot(snapshot.value()) : LabState();
    return writeRunOutputs(snapshot.value(), in.savePath ? &lab : nullptr, in.exportDir, in.formats,
                           in.savePath);
}

attn::Expected<LabState> multiHeadStartLab(const CommandLineParser& parser, const MultiHeadCommandInput& in)
{
    Request request;
    attn::HeadLayout layout = attn::HeadLayout::Independent;
    std::optional<UsageError> error = readRequest(parser, &request);
    if (!error)
        error = checkRequest(request, in, &layout, false);
    if (error)
        return attn::Error{error->message.toStdString()};
    attn::Expected<AttentionSnapshot> snapshot = compute(request, in, layout);
    if (!snapshot)
        return snapshot.error();
    return labStateFromSnapshot(snapshot.value());
}

int runMultiHeadLab(const LabState& lab, const std::optional<std::string>& exportDir,
                    const std::optional<std::string>& formats, const std::optional<std::string>& savePath)
{
    if (std::optional<UsageError> error = checkFormats(formats))
        return fail(kExitUsageError, error->message);
    const attn::Expected<AttentionSnapshot> snapshot = computeLabSnapshot(lab);
    if (!snapshot)
        return fail(kExitRuntimeError, text(snapshot.error().message));
    return writeRunOutputs(snapshot.value(), savePath ? &lab : nullptr, exportDir, formats, savePath);
}

}  // namespace attnlab
