// SPDX-License-Identifier: GPL-3.0-or-later
// DkSteps: the d_k control's arrow and page steps. The grid is
// round(2^(i / 8)) without repeats, worked by hand around the values used.

#include "dksteps.h"

#include <QtTest>

using namespace attnlab;

class TestDkSteps : public QObject {
    Q_OBJECT
private slots:
    void arrowsFollowTheGrid();
    void pagesDoubleAndHalve();
};

void TestDkSteps::arrowsFollowTheGrid()
{
    // 2^(37/8) = 24.7 -> 25 and 2^(36/8) = 22.6 -> 23: the article's 24 is
    // between grid points.
    QCOMPARE(DkSteps::next(24), 25);
    QCOMPARE(DkSteps::previous(24), 23);
    // On a grid point: its neighbours. 2^(17/8) = 4.36 rounds to 4 again, so
    // the point after 4 is 2^(18/8) = 4.76 -> 5.
    QCOMPARE(DkSteps::next(4), 5);
    QCOMPARE(DkSteps::previous(5), 4);
    QCOMPARE(DkSteps::previous(25), 23);
    // 2^(79/8) = 939.0; the top is 2^10.
    QCOMPARE(DkSteps::next(1000), 1024);
    QCOMPARE(DkSteps::previous(1000), 939);
    // The ends hold.
    QCOMPARE(DkSteps::previous(1), 1);
    QCOMPARE(DkSteps::next(1024), 1024);
}

void TestDkSteps::pagesDoubleAndHalve()
{
    QCOMPARE(DkSteps::page(24, true), 48);
    QCOMPARE(DkSteps::page(25, false), 13);  // halving rounds up
    QCOMPARE(DkSteps::page(3, false), 2);
    QCOMPARE(DkSteps::page(2, false), 1);
    QCOMPARE(DkSteps::page(1, false), 1);      // never 0
    QCOMPARE(DkSteps::page(600, true), 1024);  // within kMaxDHead
    QCOMPARE(DkSteps::page(1024, true), 1024);
}

QTEST_GUILESS_MAIN(TestDkSteps)
#include "tst_dksteps.moc"
