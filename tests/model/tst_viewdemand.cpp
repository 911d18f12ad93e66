// SPDX-License-Identifier: GPL-3.0-or-later
// ViewDemand: which views take a result, and whether the session computes
// the scaled-vs-unscaled comparison with it.

#include "viewdemand.h"

#include <QtTest>

using namespace attnlab;

class TestViewDemand : public QObject {
    Q_OBJECT
private slots:
    void comparison_data();
    void comparison();
    void matrixTableLive();
};

void TestViewDemand::comparison_data()
{
    QTest::addColumn<bool>("windowShown");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<bool>("compareShown");
    QTest::addColumn<bool>("lessonShown");
    QTest::addColumn<bool>("computeWithResult");
    QTest::addColumn<bool>("updateCompare");
    QTest::addColumn<bool>("updateLesson");

    // Off screen and small (the article's 6 tokens): every view kept
    // current, the comparison computed when first read.
    QTest::newRow("hidden, 6 tokens") << false << 6 << false << false << false << true << true;
    QTest::newRow("hidden, 512 tokens") << false << 512 << false << false << false << true << true;
    // One token over the limit: off screen acts as on screen.
    QTest::newRow("hidden, 513 tokens, nothing shown")
        << false << 513 << false << false << false << false << false;
    QTest::newRow("hidden, 513 tokens, compare shown")
        << false << 513 << true << false << true << true << false;
    // On screen: only what is seen, and then with the result.
    QTest::newRow("shown, nothing") << true << 6 << false << false << false << false << false;
    QTest::newRow("shown, compare tab") << true << 6 << true << false << true << true << false;
    QTest::newRow("shown, lesson dock") << true << 6 << false << true << true << false << true;
    QTest::newRow("shown, both, 4000 tokens") << true << 4000 << true << true << true << true << true;
}

void TestViewDemand::comparison()
{
    QFETCH(bool, windowShown);
    QFETCH(int, tokens);
    QFETCH(bool, compareShown);
    QFETCH(bool, lessonShown);
    const ViewDemand::Comparison demand =
        ViewDemand::comparison(windowShown, tokens, compareShown, lessonShown);
    QTEST(demand.computeWithResult, "computeWithResult");
    QTEST(demand.updateCompareView, "updateCompare");
    QTEST(demand.updateLesson, "updateLesson");
}

void TestViewDemand::matrixTableLive()
{
    QVERIFY(ViewDemand::matrixTableLive(false, false));  // tests and scripts read every table
    QVERIFY(ViewDemand::matrixTableLive(false, true));
    QVERIFY(!ViewDemand::matrixTableLive(true, false));  // a hidden tab on screen waits
    QVERIFY(ViewDemand::matrixTableLive(true, true));
}

QTEST_GUILESS_MAIN(TestViewDemand)
#include "tst_viewdemand.moc"
