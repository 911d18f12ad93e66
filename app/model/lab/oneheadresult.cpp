// SPDX-License-Identifier: GPL-3.0-or-later
#include "oneheadresult.h"

namespace attnlab {

std::shared_ptr<const attn::MultiHeadResult> oneHeadResult(
    const std::shared_ptr<const attn::AttentionResult>& head, const attn::AttentionStats& stats)
{
    if (!head)
        return nullptr;
    auto r = std::make_shared<attn::MultiHeadResult>();
    r->layout = attn::HeadLayout::Independent;
    r->heads.push_back(*head);
    r->stats.push_back(stats);
    // The average of one head's weights is its weights; the concatenation
    // of one context is that context. No output projection with one head.
    r->weightsAverage = head->weightsMatrix();
    r->concat = head->context;
    return r;
}

std::shared_ptr<const attn::MultiHeadResult> OneHeadView::of(
    const std::shared_ptr<const attn::AttentionResult>& head, const attn::AttentionStats& stats)
{
    if (head != source_ || !result_) {
        source_ = head;
        result_ = oneHeadResult(head, stats);
    }
    return result_;
}

void OneHeadView::clear()
{
    source_.reset();
    result_.reset();
}

}  // namespace attnlab
