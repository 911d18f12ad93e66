// SPDX-License-Identifier: GPL-3.0-or-later
// HeadRanking on hand-made tables: the largest first, equal weights in
// layer-then-head order, the count clamped; a piece found by its
// vocabulary spelling, the last one when it repeats. CinemaLesson's number
// texts.
#include "cinemalesson.h"
#include "headranking.h"

#include <QtTest>

using namespace attnlab;

class TestHeadRanking : public QObject {
    Q_OBJECT
private slots:
    void largestFirst();
    void findsThePiece();
    void texts();
};

void TestHeadRanking::largestFirst()
{
    attn::Matrix table(2, 3);
    table << 0.1, 0.5, 0.2,  //
        0.5, 0.05, 0.7;
    const std::vector<RankedHead> top = HeadRanking::rank(table, 3);
    QCOMPARE(int(top.size()), 3);
    QCOMPARE(top[0].layer, 1);
    QCOMPARE(top[0].head, 2);
    QCOMPARE(top[0].weight, 0.7);
    // 0.5 twice: layer 0 head 1 before layer 1 head 0.
    QCOMPARE(top[1].layer, 0);
    QCOMPARE(top[1].head, 1);
    QCOMPARE(top[2].layer, 1);
    QCOMPARE(top[2].head, 0);
    QCOMPARE(int(HeadRanking::rank(table, 10).size()), 6);
    QCOMPARE(HeadRanking::rank(table, 10).back().weight, 0.05);
    QVERIFY(HeadRanking::rank(table, 0).empty());
    QVERIFY(HeadRanking::rank(attn::Matrix(), 3).empty());
}

void TestHeadRanking::findsThePiece()
{
    const std::vector<ModelToken> tokens{{40, QStringLiteral("Ġwatch"), QStringLiteral("␣watch")},
                                         {2342, QStringLiteral("watch"), QStringLiteral("watch")},
                                         {2342, QStringLiteral("Ġwatch"), QStringLiteral("␣watch")},
                                         {11, QStringLiteral("Ġa"), QStringLiteral("␣a")}};
    QCOMPARE(HeadRanking::findPiece(tokens, QStringLiteral("Ġwatch")), 2);
    QCOMPARE(HeadRanking::findPiece(tokens, QStringLiteral("watch")), 1);
    QCOMPARE(HeadRanking::findPiece(tokens, QStringLiteral("Ġcinema")), -1);
    QCOMPARE(HeadRanking::findPiece({}, QStringLiteral("Ġa")), -1);
}

void TestHeadRanking::texts()
{
    QCOMPARE(CinemaLesson::headText({1, 2, 0.30749}), QStringLiteral("layer 2 · head 3 (0.307)"));
    QCOMPARE(CinemaLesson::shortHeadText({0, 3, 0.0015}), QStringLiteral("L1 H4 0.002"));
    QCOMPARE(CinemaLesson::percentText(0.01834), QStringLiteral("1.8 %"));
    QCOMPARE(CinemaLesson::percentText(0.000123), QStringLiteral("0.012 %"));
    QCOMPARE(CinemaLesson::pieces(), (QStringList{QStringLiteral("Ġcinema"), QStringLiteral("Ġwatch")}));
}

QTEST_MAIN(TestHeadRanking)
#include "tst_headranking.moc"
