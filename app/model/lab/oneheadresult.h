// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Heads tab shows the lab's heads whatever their number: with one head
// the session computes no multi-head result, and this gives that head as a
// multi-head result of one (its maps, its statistics, its weights as the
// average and its context as the concatenation), so that the tab shows it
// rather than nothing.

#include "attention.h"
#include "multihead.h"
#include "statistics.h"

#include <memory>

namespace attnlab {

// A one-head MultiHeadResult of `head` (null for null): copies of its maps,
// so it costs the single result's memory once more; built when the tab is
// shown (OneHeadView keeps it while `head` is current).
std::shared_ptr<const attn::MultiHeadResult> oneHeadResult(
    const std::shared_ptr<const attn::AttentionResult>& head, const attn::AttentionStats& stats);

// Keeps the one-head result of the last result it was given, so that a
// view asking again for the same result gets the same object.
class OneHeadView {
public:
    std::shared_ptr<const attn::MultiHeadResult> of(const std::shared_ptr<const attn::AttentionResult>& head,
                                                    const attn::AttentionStats& stats);
    void clear();

private:
    std::shared_ptr<const attn::AttentionResult> source_;
    std::shared_ptr<const attn::MultiHeadResult> result_;
};

}  // namespace attnlab
