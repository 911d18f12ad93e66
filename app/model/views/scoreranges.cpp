// SPDX-License-Identifier: GPL-3.0-or-later
#include "scoreranges.h"

#include "attention.h"
#include "presentation.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>

namespace attnlab {

namespace {

struct ScoreRangesText {
    Q_DECLARE_TR_FUNCTIONS(ScoreRanges)
};

QString rangeNumber(double v)
{
    return QLocale().toString(v, 'g', 4);
}

}  // namespace

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
    ranges.independent = independent;
    ranges.scaledPeak = scaledRange;
    return ranges;
}

double ScoreRanges::scaledShare() const
{
    return scaled > 0 ? std::min(1.0, scaledPeak / scaled) : 1.0;
}

bool ScoreRanges::scaledWashedOut() const
{
    return !independent && scaledShare() < kWashedOutShare;
}

QString ScoreRanges::scaledRangeText() const
{
    if (independent)
        return ScoreRangesText::tr("own colour range");
    if (scaledWashedOut())
        return ScoreRangesText::tr("shared colour range; values reach ±%1").arg(rangeNumber(scaledPeak));
    return ScoreRangesText::tr("shared colour range");
}

QString ScoreRanges::washedOutNote() const
{
    if (!scaledWashedOut())
        return QString();
    return ScoreRangesText::tr(
               "The scaled scores reach ±%1, %2% of the colour range they share with the "
               "raw scores (±%3), so their map is nearly white.")
        .arg(rangeNumber(scaledPeak))
        .arg(QLocale().toString(100.0 * scaledShare(), 'f', scaledShare() < 0.01 ? 1 : 0))
        .arg(rangeNumber(scaled));
}

}  // namespace attnlab
