// SPDX-License-Identifier: GPL-3.0-or-later
// A share of attention as text: never "1" for less than all of it, nor "0"
// for more than none.

#include "sharetext.h"

#include <QLocale>
#include <QtTest>

using namespace attnlab;

class TestShareText : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void shares_data();
    void shares();
};

void TestShareText::shares_data()
{
    QTest::addColumn<double>("share");
    QTest::addColumn<QString>("text");
    QTest::newRow("plain") << 0.4321 << "0.43";
    QTest::newRow("all") << 1.0 << "1";
    QTest::newRow("none") << 0.0 << "0";
    QTest::newRow("0.9997") << 0.9997 << "0.9997";
    QTest::newRow("0.996") << 0.996 << "0.996";
    QTest::newRow("0.95") << 0.95 << "0.95";
    QTest::newRow("0.999999999") << 0.999999999 << "almost all";
    QTest::newRow("tiny") << 1e-12 << "1e-12";
}

void TestShareText::shares()
{
    QFETCH(double, share);
    QFETCH(QString, text);
    QCOMPARE(shareText(share), text);
}

QTEST_APPLESS_MAIN(TestShareText)
#include "tst_sharetext.moc"
