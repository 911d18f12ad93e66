// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Which keys a query may see (issue 40). Every mask here keeps the diagonal,
// so no query row is ever fully hidden:
//
//   none            every key
//   causal          keys j <= i
//   sliding:W       keys i - W < j <= i (the last W, the query's own included)
//   sink:S,window:W keys j <= i with j < S or i - W < j: the first S tokens
//                   (StreamingLLM's attention sinks) plus the last W
//
// The tiled pass (flash_tiles.h) and the direct engine (attention.h) take
// any of them.

#include "expected.h"

#include <string>
#include <string_view>

namespace attn {

// The keys one query row sees, in key order: [0, head) then [from, to).
// Every mask here gives at most these two runs (head = 0 for all but the
// sink's, and then head < from). Position c of the visible keys is key
// key(c); none and causal are the prefix 0..to-1.
struct VisibleKeys {
    int head = 0;
    int from = 0;
    int to = 0;

    int count() const { return head + (to - from); }
    bool prefix() const { return head == 0 && from == 0; }
    // The key at position c (0 <= c < count()).
    int key(int c) const { return c < head ? c : from + (c - head); }
    // The position of a visible key among them.
    int position(int key) const { return key < head ? key : head + (key - from); }
};

struct AttentionMask {
    enum class Kind { None, Causal, Sliding, SinkWindow };
    Kind kind = Kind::None;
    int window = 0;  // Sliding, SinkWindow: W >= 1
    int sink = 0;    // SinkWindow: S >= 0

    static AttentionMask none() { return {}; }
    static AttentionMask causal() { return {Kind::Causal, 0, 0}; }
    static AttentionMask sliding(int window) { return {Kind::Sliding, window, 0}; }
    static AttentionMask sinkWindow(int sink, int window) { return {Kind::SinkWindow, window, sink}; }

    // Whether query `query` does not see key `key` (0-based).
    bool hides(int query, int key) const;
    // The keys query `query` of `tokens` sees (the query must be < tokens).
    VisibleKeys visible(int query, int tokens) const;
    // Whether every (i, j) with first..last query rows and first..last key
    // columns (inclusive) is hidden: a tile the tiled pass skips.
    bool hidesTile(int queryFirst, int queryLast, int keyFirst, int keyLast) const;

    // "none", "causal", "sliding:W", "sink:S,window:W": what parseAttentionMask reads.
    std::string name() const;

    bool operator==(const AttentionMask& o) const
    {
        return kind == o.kind && window == o.window && sink == o.sink;
    }
    bool operator!=(const AttentionMask& o) const { return !(*this == o); }
};

// The largest W or S parseAttentionMask takes (a window wider than the
// sentence sees what causal sees).
inline constexpr int kMaxMaskWidth = 1 << 20;

// "none", "causal", "sliding:W" (W from 1) or "sink:S,window:W" (S from 0,
// W from 1); an error naming what is wrong otherwise.
Expected<AttentionMask> parseAttentionMask(std::string_view text);

// A mask the parser would not make (W < 1, S < 0, beyond kMaxMaskWidth).
Status validateAttentionMask(const AttentionMask& mask);

}  // namespace attn
