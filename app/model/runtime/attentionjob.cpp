// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionjob.h"

#include "headparams.h"
#include "presampler.h"
#include "reaper.h"
#include "resultpool.h"

#include <algorithm>

namespace attnlab {

namespace {

bool sameModel(const attn::Model& a, const attn::Model& b)
{
    return a.tokenization.tokens == b.tokenization.tokens && a.tokenization.ids == b.tokenization.ids
           && a.tokenization.vocab == b.tokenization.vocab && attn::sameBits(a.X, b.X)
           && attn::sameBits(a.Wq, b.Wq) && attn::sameBits(a.Wk, b.Wk) && attn::sameBits(a.Wv, b.Wv);
}

bool sameCells(const UserCells& a, const UserCells& b)
{
    for (int i = 0; i < 4; ++i) {
        const CellMask& x = a.mask[i];
        const CellMask& y = b.mask[i];
        if (x.rows() != y.rows() || x.cols() != y.cols() || (x.size() > 0 && !(x == y).all()))
            return false;
    }
    return true;
}

}  // namespace

bool sameWork(const AttentionJob& a, const AttentionJob& b)
{
    // A redraw reads the model only for the user's cells it keeps; the
    // heads' pass samples nothing for the maps (the single head's does).
    const bool sameSamples = a.heads.multiHead() || a.sampleSizes == b.sampleSizes;
    return a.redraw && b.redraw && a.config == b.config && a.options == b.options && a.keep == b.keep
           && a.comparison == b.comparison && sameSamples && a.heads == b.heads
           && a.selectedHead == b.selectedHead && a.recomputeHeads.empty() && b.recomputeHeads.empty()
           && !a.base && !b.base && (!a.keep || (sameCells(a.cells, b.cells) && sameModel(a.model, b.model)));
}

void computeSingleHeadJob(AttentionJob& job, AttentionOutcome* outcome, ResultPool& pool, int threads,
                          const std::atomic<bool>* stop)
{
    if (job.redraw) {
        attn::Expected<attn::Model> built = attn::buildModel(job.config);
        if (!built) {
            outcome->error = QString::fromStdString(built.error().message);
            return;
        }
        outcome->model = std::move(built.value());
        outcome->config = job.config;
        outcome->cells = job.keep ? keepUserCells(job.model, job.cells, &outcome->model, &outcome->report)
                                  : UserCells::none(outcome->model);
    } else {
        outcome->model = std::move(job.model);
    }
    if (stop && *stop)
        return;
    const attn::Model& m = outcome->model;
    outcome->result = pool.take(m.X.rows());
    const Presampler presampler(int(m.X.rows()), job.sampleSizes);
    attn::WeightRowVisitor sample;
    if (presampler.cache())
        sample = [&presampler](int i, const attn::WeightRow& row) { presampler.visit(i, row); };
    // Every core: the GUI thread waits for the result anyway.
    const attn::Status status = attn::computeAttentionWithStatistics(
        m.X, m.Wq, m.Wk, m.Wv, job.options, outcome->result.get(), &outcome->stats, threads, sample, stop);
    outcome->samples = presampler.cache();
    if (!status) {
        outcome->error = QString::fromStdString(status.error().message);
        return;
    }
    if (job.comparison && !(stop && *stop))
        outcome->comparison = shareLarge<const attn::ScalingComparison>(
            attn::compareScaling(*outcome->result), 2 * ResultPool::mapBytes(m.X.rows()));
}

std::shared_ptr<const attn::AttentionResult> previewHead(const AttentionJob& job, int* head, int threads,
                                                         const std::atomic<bool>* stop)
{
    const attn::HeadLayout layout = job.heads.layout;
    const bool split = layout == attn::HeadLayout::Split;
    if (!attn::headAloneExact(layout))
        return {};
    auto result = std::make_shared<attn::AttentionResult>();
    attn::AttentionStats stats;
    if (job.redraw) {
        if (!headDrawsAlone(job.config, job.heads))
            return {};
        attn::Expected<attn::Model> built = attn::buildModel(job.config);
        if (!built)
            return {};
        *head = std::clamp(job.selectedHead, 0, job.heads.heads - 1);
        attn::Expected<attn::HeadWeights> drawn = drawHeadAlone(job.config, job.heads, *head);
        if (!drawn)
            return {};
        attn::Model& m = built.value();
        m.Wq = std::move(drawn->Wq);
        m.Wk = std::move(drawn->Wk);
        m.Wv = std::move(drawn->Wv);
        if (job.keep) {
            KeptReport report;
            keepUserCells(job.model, job.cells, &m, &report);
        }
        // The draw's split biases are zero, added as the whole pass adds them.
        const attn::RowVector bias = attn::RowVector::Zero(3 * m.Wq.cols());
        if (!attn::computeHeadAlone(m.X, layout, attn::HeadWeights{m.Wq, m.Wk, m.Wv}, split ? &bias : nullptr,
                                    job.options, result.get(), &stats, threads, stop))
            return {};
        return result;
    }
    const int h = job.params.headCount();
    if (h < 1)
        return {};
    *head = std::clamp(job.selectedHead, 0, h - 1);
    const attn::RowVector bias = split ? attn::splitHeadBias(job.params.split, *head) : attn::RowVector();
    if (!attn::computeHeadAlone(job.model.X, layout, job.params.head(*head), split ? &bias : nullptr,
                                job.options, result.get(), &stats, threads, stop))
        return {};
    return result;
}

void computeHeadsJob(AttentionJob& job, AttentionOutcome* outcome, int threads, const std::atomic<bool>* stop,
                     const PreviewSink& preview)
{
    if (job.preview && preview) {
        outcome->preview = previewHead(job, &outcome->previewHead, threads, stop);
        if (outcome->preview && !(stop && *stop))
            preview(outcome->previewHead, outcome->preview);
    }
    if (job.redraw) {
        attn::Expected<attn::Model> built = attn::buildModel(job.config);
        if (!built) {
            outcome->error = QString::fromStdString(built.error().message);
            return;
        }
        attn::Expected<attn::MultiHeadParams> drawn = drawMultiHead(job.config, job.heads);
        if (!drawn) {
            outcome->error = QString::fromStdString(drawn.error().message);
            return;
        }
        job.selectedHead = std::clamp(job.selectedHead, 0, drawn->headCount() - 1);
        attn::Model& m = built.value();
        attn::HeadWeights selected = drawn->head(job.selectedHead);
        m.Wq = std::move(selected.Wq);
        m.Wk = std::move(selected.Wk);
        m.Wv = std::move(selected.Wv);
        outcome->config = job.config;
        outcome->cells =
            job.keep ? keepUserCells(job.model, job.cells, &m, &outcome->report) : UserCells::none(m);
        outcome->params = drawn.value();
        setHeadWeights(&outcome->params, job.selectedHead, attn::HeadWeights{m.Wq, m.Wk, m.Wv});
        outcome->drawnParams = std::move(drawn.value());
        outcome->model = std::move(m);
    } else {
        outcome->model = std::move(job.model);
        outcome->params = std::move(job.params);
    }
    if (stop && *stop)
        return;
    const int h = outcome->params.headCount();
    const int n = int(outcome->model.X.rows());
    const bool update = !job.redraw && job.base && !job.recomputeHeads.empty();
    attn::MultiHeadResult start =
        update ? attn::copyMultiHeadResult(*job.base, threads) : attn::MultiHeadResult();
    outcome->multi = shareLarge(std::move(start), multiHeadBytes(h, n));
    const attn::Status status =
        update ? recomputeHeads(outcome->model.X, outcome->params, job.recomputeHeads, job.options,
                                outcome->multi.get(), threads, stop, job.recomputeParts)
               : attnlab::computeHeads(outcome->model.X, outcome->params, job.options, outcome->multi.get(),
                                       threads, stop);
    if (!status) {
        outcome->error = QString::fromStdString(status.error().message);
        outcome->multi.reset();
        return;
    }
    if (update) {
        outcome->recomputedHeads = job.recomputeHeads;
        outcome->base = job.base.get();
    }
    const int selected = std::clamp(job.selectedHead, 0, h - 1);
    outcome->selectedHead = selected;
    outcome->result =
        std::shared_ptr<attn::AttentionResult>(outcome->multi, &outcome->multi->heads[std::size_t(selected)]);
    outcome->stats = outcome->multi->stats[std::size_t(selected)];
    if (job.comparison && !(stop && *stop))
        outcome->comparison = shareLarge<const attn::ScalingComparison>(
            attn::compareScaling(*outcome->result), 2 * ResultPool::mapBytes(n));
}

}  // namespace attnlab
