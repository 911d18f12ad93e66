// SPDX-License-Identifier: GPL-3.0-or-later
// ScoreRanges: the raw and scaled score maps' colour ranges and decimals.

#include "scoreranges.h"

#include "attention.h"

#include <QtTest>

#include <cmath>

using namespace attnlab;

class TestScoreRanges : public QObject {
    Q_OBJECT
private slots:
    void sharedByDefault();
    void independent();
    void causalMaskLeavesOutMaskedScores();
    void emptyScoresSpanOne();
};

namespace {

// The article's example at d_k 24: largest |q.k| 145.47, divisor sqrt(24).
attn::AttentionResult article()
{
    attn::AttentionResult r;
    r.maxAbsScore = 145.47;
    r.maxAbsKeptScore = 145.47;
    r.divisor = std::sqrt(24.0);
    return r;
}

}  // namespace

void TestScoreRanges::sharedByDefault()
{
    const ScoreRanges ranges = ScoreRanges::of(article(), false);
    QCOMPARE(ranges.raw, 145.47);
    QCOMPARE(ranges.scaled, 145.47);
    // 145.47 / 4.899 = 29.69: one decimal, the raw scores none.
    QCOMPARE(ranges.rawDecimals, 0);
    QCOMPARE(ranges.scaledDecimals, 1);
}

void TestScoreRanges::independent()
{
    const ScoreRanges ranges = ScoreRanges::of(article(), true);
    QCOMPARE(ranges.raw, 145.47);
    QCOMPARE(ranges.scaled, 145.47 / std::sqrt(24.0));
    QCOMPARE(ranges.rawDecimals, 0);
    QCOMPARE(ranges.scaledDecimals, 1);
}

void TestScoreRanges::causalMaskLeavesOutMaskedScores()
{
    attn::AttentionResult r = article();
    r.causal = true;
    r.maxAbsKeptScore = 40.0;  // the largest score is above the diagonal
    r.divisor = 8.0;
    const ScoreRanges ranges = ScoreRanges::of(r, true);
    QCOMPARE(ranges.raw, 145.47);  // the raw map shows every score
    QCOMPARE(ranges.scaled, 5.0);
    QCOMPARE(ranges.scaledDecimals, 2);
    QCOMPARE(ScoreRanges::of(r, false).scaled, 145.47);
}

void TestScoreRanges::emptyScoresSpanOne()
{
    const ScoreRanges ranges = ScoreRanges::of(attn::AttentionResult(), false);
    QCOMPARE(ranges.raw, 1.0);
    QCOMPARE(ranges.scaled, 1.0);
    QCOMPARE(ranges.rawDecimals, 2);
}

QTEST_GUILESS_MAIN(TestScoreRanges)
#include "tst_scoreranges.moc"
