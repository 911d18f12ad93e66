// SPDX-License-Identifier: GPL-3.0-or-later
#include "headlabcommand.h"

#include "commandlineparser.h"
#include "echoedvalue.h"
#include "head_scores.h"
#include "numberargument.h"

#include <QCoreApplication>
#include <QStringList>

#include <limits>
#include <string>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

// Large enough for any model's layers and heads; the model read holds each
// to its own count.
constexpr std::uint64_t kMaxIndex = 1u << 20;
// Large enough for any model's positions (twice the span).
constexpr std::uint64_t kMaxSpan = 1u << 20;

const char* const kHeadLabOptions[] = {"--head-scores", "--ablate",     "--ablation",
                                       "--probe",       "--logit-lens", "--rollout",
                                       "--rope",        "--compare",    "--compare-map"};

attn::Error usage(const QString& message)
{
    return attn::Error{message.toStdString()};
}

QString headName(const attn::HeadIndex& head)
{
    return QStringLiteral("%1.%2").arg(head.layer).arg(head.head);
}

attn::Expected<std::vector<attn::HeadIndex>> parseHeads(const QString& text)
{
    const QString malformed =
        CommandLine::tr("--ablate must be a list of LAYER.HEAD numbered from 0, such as 0.1,1.3, not %1")
            .arg(echoedValue(text));
    std::vector<attn::HeadIndex> heads;
    for (const QString& item : text.split(QLatin1Char(','))) {
        const QStringList parts = item.split(QLatin1Char('.'));
        if (parts.size() != 2)
            return usage(malformed);
        const std::optional<std::uint64_t> layer = wholeNumber(parts[0].toStdString(), 0, kMaxIndex);
        const std::optional<std::uint64_t> head = wholeNumber(parts[1].toStdString(), 0, kMaxIndex);
        if (!layer || !head)
            return usage(malformed);
        const attn::HeadIndex index{int(*layer), int(*head)};
        for (const attn::HeadIndex& seen : heads)
            if (seen.layer == index.layer && seen.head == index.head)
                return usage(CommandLine::tr("--ablate names head %1 twice; name each head once")
                                 .arg(headName(index)));
        heads.push_back(index);
    }
    return heads;
}

attn::Expected<attn::HeadIndex> parseHead(const QString& text, const char* option = "--rope")
{
    const QStringList parts = text.split(QLatin1Char('.'));
    const std::optional<std::uint64_t> layer =
        parts.size() == 2 ? wholeNumber(parts[0].toStdString(), 0, kMaxIndex) : std::nullopt;
    const std::optional<std::uint64_t> head =
        parts.size() == 2 ? wholeNumber(parts[1].toStdString(), 0, kMaxIndex) : std::nullopt;
    if (!layer || !head)
        return usage(CommandLine::tr("%1 must be one head as LAYER.HEAD numbered from 0, such as 0.1, not %2")
                         .arg(QLatin1String(option), echoedValue(text)));
    return attn::HeadIndex{int(*layer), int(*head)};
}

std::optional<QString> parseProbe(const QString& text, HeadLabRequest* request)
{
    const QString malformed =
        CommandLine::tr(
            "--probe must be repeat:R or repeat:R:SEED (R tokens repeated twice, R from 2), not %1")
            .arg(echoedValue(text));
    const QStringList parts = text.split(QLatin1Char(':'));
    if (parts.size() < 2 || parts.size() > 3 || parts[0] != QLatin1String("repeat"))
        return malformed;
    const std::optional<std::uint64_t> span = wholeNumber(parts[1].toStdString(), 2, kMaxSpan);
    if (!span)
        return malformed;
    std::uint64_t seed = attn::kDefaultRepeatSeed;
    if (parts.size() == 3) {
        const std::optional<std::uint64_t> given =
            wholeNumber(parts[2].toStdString(), 0, std::numeric_limits<std::uint64_t>::max());
        if (!given)
            return CommandLine::tr("--probe: SEED must be a whole number from 0 to %1, not %2")
                .arg(std::numeric_limits<std::uint64_t>::max())
                .arg(echoedValue(parts[2]));
        seed = *given;
    }
    request->probe = true;
    request->probeSpan = int(*span);
    request->probeSeed = seed;
    return std::nullopt;
}

// --compare and --compare-map, and what they cannot go with.
std::optional<QString> readComparison(const CommandLineParser& parser, HeadLabRequest* request)
{
    if (!parser.isSet(QStringLiteral("--compare"))) {
        if (parser.isSet(QStringLiteral("--compare-map")))
            return CommandLine::tr("--compare-map says which map --compare compares: give --compare too");
        return std::nullopt;
    }
    const QString kind = parser.value(QStringLiteral("--compare"));
    const QString sentencePrefix = QStringLiteral("sentence:");
    const bool ablate = parser.isSet(QStringLiteral("--ablate"));
    if (kind == QLatin1String("ablated")) {
        if (!ablate)
            return CommandLine::tr(
                "--compare ablated compares the intact run with one without heads: give --ablate L.H too");
        request->compare = ComparisonKind::IntactVsAblated;
    } else if (kind == QLatin1String("unscaled")) {
        if (parser.isSet(QStringLiteral("--scale")))
            return CommandLine::tr(
                "--compare unscaled compares scores / sqrt(d_k) with scores / 1 in every head: drop --scale");
        if (ablate)
            return CommandLine::tr(
                "--compare unscaled compares two intact runs: drop --ablate, or give --compare ablated");
        request->compare = ComparisonKind::ScaledVsUnscaled;
    } else if (kind.startsWith(sentencePrefix)) {
        request->compareSentence = kind.mid(sentencePrefix.size());
        if (request->compareSentence.isEmpty())
            return CommandLine::tr("--compare sentence:TEXT needs the other sentence after the colon");
        if (ablate)
            return CommandLine::tr(
                "--compare sentence:TEXT compares two intact runs: drop --ablate, or give --compare ablated");
        if (parser.isSet(QStringLiteral("--probe")))
            return CommandLine::tr(
                "--compare sentence:TEXT compares TEXT with --sentence: give --sentence instead of --probe");
        request->compare = ComparisonKind::OtherSentence;
    } else {
        return CommandLine::tr("--compare must be ablated, unscaled or sentence:TEXT, not %1")
            .arg(echoedValue(kind));
    }
    if (parser.isSet(QStringLiteral("--compare-map"))) {
        const QString map = parser.value(QStringLiteral("--compare-map"));
        if (map != QLatin1String("rollout")) {
            attn::Expected<attn::HeadIndex> head = parseHead(map, "--compare-map");
            if (!head)
                return CommandLine::tr("%1, or rollout").arg(QString::fromStdString(head.error().message));
            request->compareHead = head.value();
        }
    }
    return std::nullopt;
}

}  // namespace

bool asksForHeadLab(const CommandLineParser& parser)
{
    for (const char* option : kHeadLabOptions)
        if (parser.isSet(QLatin1String(option)))
            return true;
    return false;
}

std::optional<QString> headLabWithoutModel(const CommandLineParser& parser)
{
    for (const char* option : kHeadLabOptions)
        if (parser.isSet(QLatin1String(option)))
            return CommandLine::tr(
                       "%1 is the head lab's, over a model's heads: give it with --model DIR "
                       "--export-dir OUT")
                .arg(QLatin1String(option));
    return std::nullopt;
}

attn::Expected<HeadLabRequest> readHeadLabRequest(const CommandLineParser& parser)
{
    HeadLabRequest request;
    request.headScores = parser.isSet(QStringLiteral("--head-scores"));
    request.logitLens = parser.isSet(QStringLiteral("--logit-lens"));
    request.rollout = parser.isSet(QStringLiteral("--rollout"));
    if (parser.isSet(QStringLiteral("--ablate"))) {
        attn::Expected<std::vector<attn::HeadIndex>> heads =
            parseHeads(parser.value(QStringLiteral("--ablate")));
        if (!heads)
            return heads.error();
        request.ablate = std::move(heads).value();
    }
    if (parser.isSet(QStringLiteral("--rope"))) {
        attn::Expected<attn::HeadIndex> head = parseHead(parser.value(QStringLiteral("--rope")));
        if (!head)
            return head.error();
        request.rope = head.value();
    }
    if (parser.isSet(QStringLiteral("--ablation"))) {
        const QString kind = parser.value(QStringLiteral("--ablation"));
        if (request.ablate.empty())
            return usage(
                CommandLine::tr("--ablation says how --ablate removes heads: give --ablate L.H too"));
        if (kind == QLatin1String("mean"))
            request.ablation = attn::HeadAblation::Mean;
        else if (kind != QLatin1String("zero"))
            return usage(CommandLine::tr("--ablation must be zero or mean, not %1").arg(echoedValue(kind)));
    }
    if (const std::optional<QString> bad = readComparison(parser, &request))
        return usage(*bad);
    if (parser.isSet(QStringLiteral("--probe"))) {
        if (parser.isSet(QStringLiteral("--sentence")))
            return usage(
                CommandLine::tr("--probe runs the model over random tokens instead of --sentence; "
                                "give one or the other"));
        if (const std::optional<QString> bad = parseProbe(parser.value(QStringLiteral("--probe")), &request))
            return usage(*bad);
    }
    return request;
}

attn::Status checkHeadLabRequest(const HeadLabRequest& request, const attn::DecoderConfig& config,
                                 bool rotary)
{
    const auto inRange = [&config](const char* option, const attn::HeadIndex& head) -> attn::Status {
        if (head.layer >= config.layers)
            return usage(CommandLine::tr("%1 %2: layer %3 does not exist; the model has layers 0 to %4")
                             .arg(QLatin1String(option), headName(head))
                             .arg(head.layer)
                             .arg(config.layers - 1));
        if (head.head >= config.heads)
            return usage(CommandLine::tr("%1 %2: head %3 does not exist; each layer has heads 0 to %4")
                             .arg(QLatin1String(option), headName(head))
                             .arg(head.head)
                             .arg(config.heads - 1));
        return attn::okStatus();
    };
    for (const attn::HeadIndex& head : request.ablate)
        if (attn::Status s = inRange("--ablate", head); !s)
            return s;
    if (request.rope) {
        if (!rotary)
            return usage(CommandLine::tr("--rope %1: this %2 model has learned positions and rotates no q "
                                         "or k (no RoPE); Llama, Qwen and Mistral models have it")
                             .arg(headName(*request.rope), QString::fromStdString(config.family)));
        if (attn::Status s = inRange("--rope", *request.rope); !s)
            return s;
    }
    if (request.compareHead)
        if (attn::Status s = inRange("--compare-map", *request.compareHead); !s)
            return s;
    if (request.probe) {
        const QString probe = QStringLiteral("repeat:%1").arg(request.probeSpan);
        if (2 * std::int64_t(request.probeSpan) > config.maxPositions)
            return usage(CommandLine::tr("--probe %1 is %2 tokens; this model takes at most %3 "
                                         "(its config.json): give R up to %4")
                             .arg(probe)
                             .arg(2 * std::int64_t(request.probeSpan))
                             .arg(config.maxPositions)
                             .arg(config.maxPositions / 2));
        const attn::TokenIdRange range = attn::repeatProbeIdRange(config.vocabSize);
        if (request.probeSpan > range.size())
            return usage(CommandLine::tr("--probe %1: this model's vocabulary gives %2 distinct ids to draw "
                                         "from (%3 to %4); give R up to %2")
                             .arg(probe)
                             .arg(std::max(range.size(), 0))
                             .arg(range.low)
                             .arg(range.high - 1));
    }
    return attn::okStatus();
}

}  // namespace attnlab
