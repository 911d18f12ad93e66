// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The colour ranges of the raw and scaled score maps: symmetric about 0,
// shared by default (the larger of the two, so the shrinking by the divisor
// is visible) or each its own; the decimals of each map's numbers follow its
// own values, whichever range colours it.

namespace attn {
struct AttentionResult;
}

namespace attnlab {

class ScoreRanges {
public:
    static ScoreRanges of(const attn::AttentionResult& result, bool independent);

    double raw = 1.0;  // the raw map's colours span -raw .. raw
    double scaled = 1.0;
    int rawDecimals = 2;
    int scaledDecimals = 2;
};

}  // namespace attnlab
