// SPDX-License-Identifier: GPL-3.0-or-later
// ScoreRanges: the raw and scaled score maps' colour ranges and decimals.

#include "scoreranges.h"

#include "attention.h"

#include <QLocale>
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
    void washedOutBelowATenth();
    void namesTheRangeUsed();
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

// The scaling demo at d_k 512: the scaled scores reach 145.47 / sqrt(512) =
// 6.429, 4.4% of the shared range: said; at d_k 24 (20%) not; the boundary
// is a tenth, and independent ranges are never washed out.
void TestScoreRanges::washedOutBelowATenth()
{
    QLocale::setDefault(QLocale::c());
    attn::AttentionResult r = article();
    QVERIFY(!ScoreRanges::of(r, false).scaledWashedOut());
    QCOMPARE(ScoreRanges::of(r, false).washedOutNote(), QString());
    QVERIFY(std::abs(ScoreRanges::of(r, false).scaledShare() - 1.0 / std::sqrt(24.0)) < 1e-12);

    r.divisor = std::sqrt(512.0);
    const ScoreRanges shared = ScoreRanges::of(r, false);
    QVERIFY(std::abs(shared.scaledShare() - 1.0 / std::sqrt(512.0)) < 1e-12);
    QVERIFY(shared.scaledWashedOut());
    QCOMPARE(shared.washedOutNote(),
             QStringLiteral("The scaled scores reach ±6.429, 4% of the colour range they share with the "
                            "raw scores (±145.5), so their map is nearly white."));
    QVERIFY(!ScoreRanges::of(r, true).scaledWashedOut());
    QCOMPARE(ScoreRanges::of(r, true).scaledShare(), 1.0);

    r.divisor = 10.0;  // exactly a tenth: not below it
    QVERIFY(!ScoreRanges::of(r, false).scaledWashedOut());
    r.divisor = 10.01;
    QVERIFY(ScoreRanges::of(r, false).scaledWashedOut());
    r.divisor = 500.0;  // below 1%: a decimal
    QVERIFY(ScoreRanges::of(r, false).washedOutNote().contains(QStringLiteral(", 0.2% of")));
}

void TestScoreRanges::namesTheRangeUsed()
{
    QLocale::setDefault(QLocale::c());
    QCOMPARE(ScoreRanges::of(article(), false).scaledRangeText(), QStringLiteral("shared colour range"));
    QCOMPARE(ScoreRanges::of(article(), true).scaledRangeText(), QStringLiteral("own colour range"));
    attn::AttentionResult r = article();
    r.divisor = std::sqrt(512.0);
    QCOMPARE(ScoreRanges::of(r, false).scaledRangeText(),
             QStringLiteral("shared colour range; values reach ±6.429"));
    QCOMPARE(ScoreRanges::of(r, true).scaledRangeText(), QStringLiteral("own colour range"));
}

QTEST_GUILESS_MAIN(TestScoreRanges)
#include "tst_scoreranges.moc"
