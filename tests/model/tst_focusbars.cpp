// SPDX-License-Identifier: GPL-3.0-or-later
// The focused query's bars, mixture and number extremes on hand-worked rows.

#include "focusbars.h"

#include <QtTest>

#include <limits>
#include <vector>

using namespace attnlab;

class TestFocusBars : public QObject {
    Q_OBJECT
private slots:
    void oneBarPerKey();
    void runsOfKeysKeepTheirPeaks();
    void thousandsOfKeys();
    void groupForTheBarsThatFit();
    void mixtureOfFewKeysIsEveryKey();
    void mixtureKeepsTheLargestWeights();
    void extremes();
};

void TestFocusBars::oneBarPerKey()
{
    const std::vector<double> s{1.5, -2.0, 0.25};
    const std::vector<double> w{0.3, 0.1, 0.6};
    const FocusBars bars = focusBars(s.data(), w.data(), 3);
    QCOMPARE(bars.group, 1);
    QCOMPARE(bars.keys, (std::vector<double>{1, 2, 3}));  // key j at j + 1
    QCOMPARE(bars.scores, s);
    QCOMPARE(bars.weights, w);
    QCOMPARE(focusBars(s.data(), w.data(), 0).keys.size(), std::size_t(0));
}

void TestFocusBars::runsOfKeysKeepTheirPeaks()
{
    // 7 keys in at most 3 bars: runs of ceil(7 / 3) = 3 keys, {1,2,3} {4,5,6} {7},
    // centred at (1 + 3) / 2 = 2, (4 + 6) / 2 = 5 and 7. Each bar: the score of
    // largest magnitude with its sign (-3, 4, -4), the largest weight.
    const std::vector<double> s{1, -3, 2, 0.5, -0.5, 4, -4};
    const std::vector<double> w{0.1, 0.2, 0.3, 0.05, 0.05, 0.2, 0.1};
    const FocusBars bars = focusBars(s.data(), w.data(), 7, 3);
    QCOMPARE(bars.group, 3);
    QCOMPARE(bars.keys, (std::vector<double>{2, 5, 7}));
    QCOMPARE(bars.scores, (std::vector<double>{-3, 4, -4}));
    QCOMPARE(bars.weights, (std::vector<double>{0.3, 0.2, 0.1}));
}

void TestFocusBars::thousandsOfKeys()
{
    // 1030 keys, 512 bars at most: 3 keys a bar, 344 bars, the last one key 1030 alone.
    std::vector<double> s(1030), w(1030, 0.0);
    for (int j = 0; j < 1030; ++j)
        s[std::size_t(j)] = j % 2 ? -j : j;
    w[1000] = 0.75;  // key 1001, in bar 333 (keys 1000..1002)
    const FocusBars bars = focusBars(s.data(), w.data(), 1030);
    QCOMPARE(bars.group, 3);
    QCOMPARE(int(bars.keys.size()), 344);
    QCOMPARE(bars.keys[0], 2.0);
    QCOMPARE(bars.keys[343], 1030.0);
    QCOMPARE(bars.scores[0], 2.0);   // 0, -1, 2
    QCOMPARE(bars.scores[1], -5.0);  // -3, 4, -5
    QCOMPARE(bars.scores[343], -1029.0);
    QCOMPARE(bars.weights[333], 0.75);
    QCOMPARE(bars.weights[332], 0.0);
}

void TestFocusBars::groupForTheBarsThatFit()
{
    // The panel asks for as many bars as its plot's width holds: 2,048 keys
    // in 100 bars are 21 keys a bar (20 would need 103 bars).
    QCOMPARE(focusBarGroup(2048, 100), 21);
    QCOMPARE(focusBarGroup(16, 16), 1);
    QCOMPARE(focusBarGroup(17, 16), 2);
    QCOMPARE(focusBarGroup(0, 16), 1);
    QCOMPARE(focusBarGroup(5, 0), 5);  // no room: one bar for all
    std::vector<double> s(2048, 1.0), w(2048, 0.0);
    QCOMPARE(int(focusBars(s.data(), w.data(), 2048, 100).keys.size()), 98);
}

void TestFocusBars::mixtureOfFewKeysIsEveryKey()
{
    const std::vector<double> w{0.5, 0.25, 0.25};
    const FocusMixture mix = focusMixture(w.data(), 3, 1.0, 3);
    QCOMPARE(mix.keys, (std::vector<int>{0, 1, 2}));  // the sentence's order
    QCOMPARE(mix.otherKeys, 0);
    QCOMPARE(mix.otherWeight, 0.0);
}

void TestFocusBars::mixtureKeepsTheLargestWeights()
{
    // Two terms of five: keys 5 (0.375) and 2 (0.25); the other three keys
    // carry 1 - 0.625 = 0.375 of the weight.
    const std::vector<double> w{0.0625, 0.25, 0.125, 0.1875, 0.375};
    const FocusMixture mix = focusMixture(w.data(), 5, 1.0, 2);
    QCOMPARE(mix.keys, (std::vector<int>{4, 1}));
    QCOMPARE(mix.otherKeys, 3);
    QCOMPARE(mix.otherWeight, 0.375);
    // A sum rounded below the shown weights gives 0, never a negative rest.
    QCOMPARE(focusMixture(w.data(), 5, 0.5, 2).otherWeight, 0.0);
    // Only the attended keys count (a causal row: the first 3).
    const FocusMixture causal = focusMixture(w.data(), 3, 0.4375, 2);
    QCOMPARE(causal.keys, (std::vector<int>{1, 2}));
    QCOMPARE(causal.otherKeys, 1);
    QCOMPARE(causal.otherWeight, 0.0625);
}

void TestFocusBars::extremes()
{
    const std::vector<double> s{2, -0.5, 0.001, 0, -3};
    const std::vector<double> w{0.2, 0, 0.3, 0.5, 0};
    const FocusExtremes e = focusExtremes(s.data(), w.data(), 5);
    QCOMPARE(e.lowScore, -3.0);
    QCOMPARE(e.highScore, 2.0);
    QCOMPARE(e.tinyScore, 0.001);
    QCOMPARE(e.tinyWeight, 0.2);
    // The range always includes 0; no non-zero entry leaves infinity.
    const std::vector<double> positive{1, 2};
    const std::vector<double> none{0, 0};
    const FocusExtremes p = focusExtremes(positive.data(), none.data(), 2);
    QCOMPARE(p.lowScore, 0.0);
    QCOMPARE(p.highScore, 2.0);
    QCOMPARE(p.tinyScore, 1.0);
    QCOMPARE(p.tinyWeight, std::numeric_limits<double>::infinity());
    QCOMPARE(focusExtremes(none.data(), positive.data(), 2).tinyScore,
             std::numeric_limits<double>::infinity());
}

QTEST_APPLESS_MAIN(TestFocusBars)
#include "tst_focusbars.moc"
