// SPDX-License-Identifier: GPL-3.0-or-later
#include "labjob.h"

#include "attentionworker.h"
#include "labrequests.h"

#include <utility>

namespace attnlab {

std::unique_ptr<AttentionJob> makeLabJob(const LabInputs& in, LabJobKind kind, const LabJobWishes& wishes)
{
    const bool redraw = kind == LabJobKind::Redraw || kind == LabJobKind::RedrawKeeping;
    auto job = std::make_unique<AttentionJob>();
    job->redraw = redraw;
    job->keep = kind == LabJobKind::RedrawKeeping;
    job->config = in.config;
    job->options = in.options;
    job->comparison = wishes.comparison;
    job->sampleSizes = wishes.sampleSizes;
    if (!redraw || job->keep)
        job->model = in.model;  // X (n, d_model) and the weights: small next to the maps
    if (job->keep)
        job->cells = in.userCells;
    if (in.heads.multiHead()) {
        job->heads = in.heads;
        job->selectedHead = in.selectedHead;
        // A preview needs the tokens the maps label it with.
        job->preview = wishes.previewWanted
                       && (!redraw
                           || (in.config.sentence == in.modelConfig.sentence
                               && in.config.tokenizer == in.modelConfig.tokenizer && !in.modelStale
                               && !in.borrowed.active()));
        if (!redraw)
            job->params = in.multiHead;
        if (kind == LabJobKind::RecomputeHeads) {
            job->recomputeHeads = in.staleHeads;
            job->recomputeParts = in.staleParts;
            job->base = wishes.base;
        }
    }
    return job;
}

bool isLargeLabWork(const attn::ModelConfig& config, const attn::HeadsConfig& heads, int tokens, double limit)
{
    const double n = tokens;
    const double work = n * n * (config.dK + config.dV) + n * config.dModel * (2.0 * config.dK + config.dV);
    return work * (heads.multiHead() ? heads.heads : 1) > limit;
}

std::shared_ptr<AttentionOutcome> computeLabJob(AttentionJob& job, int tokens, double largeWork,
                                                ResultPool& pool)
{
    auto outcome = std::make_shared<AttentionOutcome>();
    outcome->redraw = job.redraw;
    outcome->keep = job.keep;
    // Large work done here (a lab opened, an undo step) uses every core.
    const int threads =
        isLargeLabWork(job.config, job.heads, tokens, largeWork) ? AttentionWorker::threads() : 1;
    if (job.heads.multiHead())
        computeHeadsJob(job, outcome.get(), threads, nullptr);
    else
        computeSingleHeadJob(job, outcome.get(), pool, threads, nullptr);
    return outcome;
}

namespace {

// The heads' result; *shown is the head it shows.
LabResult headsResult(AttentionOutcome& outcome, LabInputs& in, const LabResult& current,
                      const LabRequests& requests, int* shown)
{
    const int wanted = in.selectedHead;
    in.staleHeads.clear();
    in.staleParts = 0;  // the newest request's result: every edit is in it
    const std::shared_ptr<const attn::MultiHeadResult>& replaced = current.heads();
    const bool update = !outcome.redraw && outcome.base && outcome.base == replaced.get();
    // The head shown: the one selected meanwhile, if it is still there.
    const int head = wanted < outcome.multi->headCount() ? wanted : outcome.selectedHead;
    const attn::Model& over = outcome.redraw ? outcome.model : in.model;
    LabResult next =
        LabResult::multi(tokensOf(over), idsOf(over), std::move(outcome.multi), head, in.options);
    if (update)
        next.setRecomputedFrom(replaced, std::move(outcome.recomputedHeads));
    if (outcome.preview && head == outcome.previewHead) {
        // The same numbers as the multi's head: the maps that show the
        // preview already keep it, and their samples of it.
        if (std::shared_ptr<ResultSampleCache> samples = requests.samplesOfPreview(outcome.preview))
            next.setSamples(std::move(samples), false);
        next.setShownObject(std::move(outcome.preview));
    }
    if (head == outcome.selectedHead && outcome.comparison)
        next.setComparison(std::move(outcome.comparison));
    in.multiHead = std::move(outcome.params);
    if (outcome.redraw) {
        in.drawnHeads = std::move(outcome.drawnParams);
        in.headsDrawn = true;
    }
    *shown = head;
    return next;
}

}  // namespace

LabResult singleHeadResult(AttentionOutcome& outcome, const attn::Model& over,
                           const attn::AttentionOptions& options)
{
    LabResult next = LabResult::single(tokensOf(over), idsOf(over), std::move(outcome.result),
                                       std::move(outcome.stats), options);
    next.setComparison(std::move(outcome.comparison));
    next.setSamples(std::move(outcome.samples), true);
    return next;
}

TakenOutcome takeOutcome(AttentionOutcome& outcome, LabInputs& in, const LabResult& current,
                         const LabRequests& requests)
{
    const int wanted = in.selectedHead;
    const bool heads = outcome.multi != nullptr;
    int head = 0;
    if (!heads)
        in.clearHeads();
    TakenOutcome taken{heads
                           ? headsResult(outcome, in, current, requests, &head)
                           : singleHeadResult(outcome, outcome.redraw ? outcome.model : in.model, in.options),
                       QString()};
    if (outcome.redraw)
        taken.notice = in.installModel(std::move(outcome.model), outcome.config, std::move(outcome.cells),
                                       outcome.report);
    // Without a redraw only the heads edited meanwhile changed, and they are
    // the head shown (an edit of another head selects it first).
    if (heads)
        in.showHead(head, outcome.redraw || head != wanted);
    return taken;
}

}  // namespace attnlab
