// SPDX-License-Identifier: GPL-3.0-or-later
#include "scoreranges.h"

#include "attention.h"
#include "presentation.h"

#include <algorithm>

namespace attnlab {

ScoreRanges ScoreRanges::of(const attn::AttentionResult& result, bool independent)
{
    const double rawRange = scoreRange(result);
    const double scaledRange = scaledScoreRange(result);
    ScoreRanges ranges;
    ranges.rawDecimals = decimalsForRange(rawRange);
    ranges.scaledDecimals = decimalsForRange(scaledRange);
    const double shared = std::max(rawRange, scaledRange);
    ranges.raw = independent ? rawRange : shared;
    ranges.scaled = independent ? scaledRange : shared;
    return ranges;
}

}  // namespace attnlab
