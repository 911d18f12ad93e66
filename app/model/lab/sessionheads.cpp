// SPDX-License-Identifier: GPL-3.0-or-later
// Session's multi-head part: the heads' choices, a head selected, and the
// heads' outcome taken in (from the worker, or computed here for lesson
// sizes). The selected head is mirrored into in_.model's W_q, W_k and W_v, so
// that every single-head view, editor and export shows it unchanged.
#include "session.h"

#include "headparams.h"
#include "reaper.h"
#include "resultpool.h"

#include <algorithm>
#include <utility>

namespace attnlab {

void Session::setHeadsConfig(const attn::HeadsConfig& heads)
{
    if (heads == in_.heads)
        return;
    in_.heads = heads;
    redraw();
    emit parametersChanged();
}

void Session::setHeadCount(int heads)
{
    attn::HeadsConfig h = in_.heads;
    h.heads = heads;
    setHeadsConfig(h);
}

void Session::setHeadLayout(attn::HeadLayout layout)
{
    attn::HeadsConfig h = in_.heads;
    h.layout = layout;
    if (layout == attn::HeadLayout::Split)
        h.outputProjection = false;  // out_proj is part of the split layout
    else
        h.torchInit = false;
    setHeadsConfig(h);
}

void Session::setOutputProjection(bool on)
{
    attn::HeadsConfig h = in_.heads;
    h.outputProjection = on && h.layout == attn::HeadLayout::Independent;
    setHeadsConfig(h);
}

void Session::setTorchInit(bool on)
{
    attn::HeadsConfig h = in_.heads;
    h.torchInit = on && h.layout == attn::HeadLayout::Split;
    setHeadsConfig(h);
}

void Session::selectHead(int head)
{
    if (!current_->heads() || head < 0 || head >= current_->headCount() || head == in_.selectedHead)
        return;
    in_.showHead(head);
    publish(current_->showing(head));
    emit headSelected(head);
    emit modelRedrawn();
    emit resultChanged();
}

void Session::recomputeHeads()
{
    // A redraw or a whole pass in flight takes the edit in with a whole pass.
    if ((requests_->computing() && (requests_->redrawing() || !requests_->headsOnly())) || in_.modelStale
        || !current_->heads()) {
        recompute();
        return;
    }
    if (isLargeWork(in_.config, in_.heads, current_->tokenCount())) {
        requests_->start(makeJob(in_, false, false, true), true);
        return;
    }
    requests_->supersede();
    const std::unique_ptr<AttentionJob> job = makeJob(in_, false, false, true);
    finish(*computeNow(*job));
}

QString Session::installHeads(AttentionOutcome& outcome)
{
    const int wanted = in_.selectedHead;
    in_.staleHeads.clear();
    in_.staleParts = 0;  // the newest request's result: every edit is in it
    const std::shared_ptr<const attn::MultiHeadResult>& replaced = current_->heads();
    const bool update = !outcome.redraw && outcome.base && outcome.base == replaced.get();
    // The head shown: the one selected meanwhile, if it is still there.
    const int head = wanted < outcome.multi->headCount() ? wanted : outcome.selectedHead;
    const attn::Model& over = outcome.redraw ? outcome.model : in_.model;
    LabResult next =
        LabResult::multi(tokensOf(over), idsOf(over), std::move(outcome.multi), head, in_.options);
    if (update)
        next.setRecomputedFrom(replaced, std::move(outcome.recomputedHeads));
    if (outcome.preview && head == outcome.previewHead) {
        // The same numbers as the multi's head: the maps that show the
        // preview already keep it, and their samples of it.
        if (std::shared_ptr<ResultSampleCache> samples = requests_->samplesOfPreview(outcome.preview))
            next.setSamples(std::move(samples), false);
        next.setShownObject(std::move(outcome.preview));
    }
    if (head == outcome.selectedHead && outcome.comparison)
        next.setComparison(std::move(outcome.comparison));
    in_.multiHead = std::move(outcome.params);
    if (outcome.redraw) {
        in_.drawnHeads = std::move(outcome.drawnParams);
        in_.headsDrawn = true;
    }
    QString notice;
    if (outcome.redraw)
        notice = in_.installModel(std::move(outcome.model), outcome.config, std::move(outcome.cells),
                                  outcome.report);
    // Without a redraw only the heads edited meanwhile changed, and they are
    // the head shown (an edit of another head selects it first).
    in_.showHead(head, outcome.redraw || head != wanted);
    publish(std::move(next));
    setProblem(QString());
    return notice;
}

}  // namespace attnlab
