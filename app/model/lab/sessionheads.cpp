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
    if (largeWork(current_->tokenCount())) {
        requests_->start(job(in_, LabJobKind::RecomputeHeads), true);
        return;
    }
    requests_->supersede();
    finish(*computeNow(*job(in_, LabJobKind::RecomputeHeads)));
}

}  // namespace attnlab
