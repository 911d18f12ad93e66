// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The colour ranges of the raw and scaled score maps: symmetric about 0,
// shared by default (the larger of the two, so the shrinking by the divisor
// is visible) or each its own; the decimals of each map's numbers follow its
// own values, whichever range colours it.
//
// A shared range can wash the scaled map out: at d_k 512 its values reach
// about a twentieth of the raw scores' range and the map is nearly white.
// scaledWashedOut() says when they use less than a tenth of it (the window
// then says so on the map, with the switch to independent ranges), and
// scaledRangeText() names the range a picture used.

#include <QString>

namespace attn {
struct AttentionResult;
}

namespace attnlab {

class ScoreRanges {
public:
    static ScoreRanges of(const attn::AttentionResult& result, bool independent);

    // Below this share of the shared range the scaled map reads as white.
    static constexpr double kWashedOutShare = 0.1;

    double raw = 1.0;  // the raw map's colours span -raw .. raw
    double scaled = 1.0;
    int rawDecimals = 2;
    int scaledDecimals = 2;
    bool independent = false;
    double scaledPeak = 1.0;  // the largest |scaled score| (kept cells)

    // The share of its colour range the scaled map's values reach (1 with its own range).
    double scaledShare() const;
    // A shared range that the scaled values use less than kWashedOutShare of.
    bool scaledWashedOut() const;
    // For a picture's title (its colour bar shows the numbers): "shared
    // colour range" (washed out: "...; values reach ±6.429") or "own colour range".
    QString scaledRangeText() const;
    // The window's note on a washed-out scaled map; empty when it is not.
    QString washedOutNote() const;
};

}  // namespace attnlab
