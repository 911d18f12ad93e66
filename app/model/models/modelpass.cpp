// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelpass.h"

#include <QCoreApplication>
#include <QString>

#include <utility>

namespace attnlab {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ModelPass", text);
}

// Each repeat's mean loss of `result` (its residual stream kept).
attn::Expected<attn::RepeatLoss> probeLoss(const attn::DecoderModel& model, const attn::DecoderResult& result,
                                           int span, int threads)
{
    const attn::Expected<std::vector<double>> losses = attn::nextTokenLosses(model, result, threads);
    if (!losses)
        return losses.error();
    return attn::repeatLoss(*losses, span);
}

}  // namespace

attn::Expected<std::vector<ModelToken>> repeatProbeTokens(const ModelFolder& model, const RepeatProbe& probe)
{
    const attn::DecoderConfig& c = model.config();
    if (probe.span < 2)
        return attn::Error{
            tr("The probe repeats a span of at least 2 tokens, not %1.").arg(probe.span).toStdString()};
    if (2 * std::int64_t(probe.span) > c.maxPositions)
        return attn::Error{tr("A span of %1 repeated twice is %2 tokens; this model reads at most %3: "
                              "choose R up to %4.")
                               .arg(probe.span)
                               .arg(2 * std::int64_t(probe.span))
                               .arg(c.maxPositions)
                               .arg(c.maxPositions / 2)
                               .toStdString()};
    const attn::TokenIdRange range = attn::repeatProbeIdRange(c.vocabSize);
    attn::Expected<std::vector<int>> ids = attn::repeatedSpanIds(probe.span, probe.seed, range);
    if (!ids)
        return ids.error();
    std::vector<ModelToken> tokens;
    tokens.reserve(ids->size());
    for (const int id : *ids)
        tokens.push_back(model.tokenizer->token(id));
    return tokens;
}

ModelPassOutcome runModelPass(const ModelPassRequest& request, const std::atomic<bool>& stop)
{
    const attn::DecoderModel& model = *request.model->decoder;
    ModelPassOutcome outcome;
    attn::DecoderRunOptions run = request.options;
    run.cancel = &stop;
    run.headOutput = nullptr;
    // The stream is kept for the logit lens and the probe's losses (8 n E
    // bytes a layer, beside the maps' 8 n^2 + 32 n head_dim a head).
    run.keepHidden = true;
    outcome.result = model.run(request.ids, run);
    outcome.cancelled = attn::isCancelled(outcome.result);
    if (!outcome.result)
        return outcome;
    // The scores read the kept maps: no new pass.
    attn::Expected<attn::HeadScoreTable> scores = attn::headScores(model, *outcome.result);
    if (!scores) {
        outcome.result = scores.error();
        return outcome;
    }
    outcome.scores = std::move(scores.value());
    attn::Expected<attn::ScoreRangeTable> ranges = attn::scoreRangeTable(model, *outcome.result);
    if (!ranges) {
        outcome.result = ranges.error();
        return outcome;
    }
    outcome.ranges = std::move(ranges.value());
    if (request.probe) {
        attn::Expected<attn::RepeatLoss> loss =
            probeLoss(model, *outcome.result, request.probe->span, run.threads);
        if (!loss) {
            outcome.result = loss.error();
            return outcome;
        }
        outcome.probeLoss = *loss;
    }
    if (request.ablated.empty())
        return outcome;
    // The pass without the heads, its maps kept as the command line's
    // --ablate keeps them (the export writes them).
    attn::DecoderRunOptions without = run;
    without.headOutput = attn::ablationHook(request.ablated, request.ablation);
    attn::Expected<attn::DecoderResult> other = model.run(request.ids, without);
    if (!other) {
        outcome.cancelled = attn::isCancelled(other);
        outcome.result = other.error();
        return outcome;
    }
    if (request.probe) {
        attn::Expected<attn::RepeatLoss> loss = probeLoss(model, *other, request.probe->span, run.threads);
        if (!loss) {
            outcome.result = loss.error();
            return outcome;
        }
        outcome.ablatedProbeLoss = *loss;
    }
    outcome.ablated = request.ablated;
    outcome.ablation = request.ablation;
    outcome.ablatedResult = std::make_shared<const attn::DecoderResult>(std::move(other.value()));
    return outcome;
}

}  // namespace attnlab
