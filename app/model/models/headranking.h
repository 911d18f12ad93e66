// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Heads ranked by one number each: the (layers, heads) table of
// ModelSession::weightsFromLast, largest first (the lesson's "which heads
// look at “cinema”"), and the position of a token piece in a sentence.

#include "modeltokenizer.h"
#include "matrix.h"

#include <QString>

#include <vector>

namespace attnlab {

struct RankedHead {
    int layer = 0;  // 0-based
    int head = 0;   // 0-based
    double weight = 0.0;
};

class HeadRanking {
public:
    // The `count` largest entries of `table` (rows layers, columns heads),
    // largest first; equal weights in layer, then head order.
    static std::vector<RankedHead> rank(const attn::Matrix& table, int count);
    // The last token whose vocabulary piece is `piece` ("Ġcinema": with
    // GPT-2's leading space), or -1.
    static int findPiece(const std::vector<ModelToken>& tokens, const QString& piece);
};

}  // namespace attnlab
