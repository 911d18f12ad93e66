// SPDX-License-Identifier: GPL-3.0-or-later
// Row-wise softmax by hand-worked cases: values, shift invariance, huge
// logits, masked entries and fully masked rows.

#include "softmax.h"

#include <QtTest>

#include <cmath>
#include <limits>

class TestSoftmax : public QObject {
    Q_OBJECT
private slots:
    void handWorked_data();
    void handWorked();
    void fullyMaskedRow();
    void inPlaceMatrix();
};

void TestSoftmax::handWorked_data()
{
    const double inf = std::numeric_limits<double>::infinity();
    QTest::addColumn<QVector<double>>("in");
    QTest::addColumn<QVector<double>>("expected");
    const double e = std::exp(1.0);
    QTest::newRow("uniform") << QVector<double>{0, 0, 0, 0} << QVector<double>{0.25, 0.25, 0.25, 0.25};
    QTest::newRow("0 and 1") << QVector<double>{0, 1} << QVector<double>{1 / (1 + e), e / (1 + e)};
    QTest::newRow("ln 1 2 3") << QVector<double>{0, std::log(2.0), std::log(3.0)}
                              << QVector<double>{1.0 / 6, 2.0 / 6, 3.0 / 6};
    QTest::newRow("huge logits stay finite")
        << QVector<double>{1e30, 1e30 - 1e15, -1e30} << QVector<double>{1, 0, 0};
    QTest::newRow("shift by 1e300") << QVector<double>{1e300, 1e300} << QVector<double>{0.5, 0.5};
    QTest::newRow("very negative") << QVector<double>{-1e308, -1e308 + 1e292} << QVector<double>{0.0, 1.0};
    QTest::newRow("masked entry") << QVector<double>{0, -inf, 0} << QVector<double>{0.5, 0, 0.5};
    QTest::newRow("single value") << QVector<double>{42} << QVector<double>{1};
}

void TestSoftmax::handWorked()
{
    QFETCH(QVector<double>, in);
    QFETCH(QVector<double>, expected);
    QVector<double> out(in.size());
    QVERIFY(attn::softmaxRow(in.data(), out.data(), int(in.size())));
    double sum = 0;
    for (int j = 0; j < in.size(); ++j) {
        QVERIFY(std::isfinite(out[j]));
        QVERIFY2(std::abs(out[j] - expected[j]) < 1e-15,
                 qPrintable(QStringLiteral("entry %1: %2 vs %3").arg(j).arg(out[j]).arg(expected[j])));
        sum += out[j];
    }
    QVERIFY(std::abs(sum - 1.0) < 1e-15);
}

void TestSoftmax::fullyMaskedRow()
{
    const double inf = std::numeric_limits<double>::infinity();
    double row[3] = {-inf, -inf, -inf};
    QVERIFY(!attn::softmaxRow(row, row, 3));
    for (double v : row)
        QCOMPARE(v, 0.0);
}

void TestSoftmax::inPlaceMatrix()
{
    attn::Matrix m(2, 3);
    m << 1, 2, 3, -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity();
    QCOMPARE(attn::softmaxRowsInPlace(m), 1);
    const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    QVERIFY(std::abs(m(0, 2) - std::exp(3.0) / z) < 1e-15);
    QCOMPARE(m.row(1).sum(), 0.0);
}

QTEST_APPLESS_MAIN(TestSoftmax)
#include "tst_softmax.moc"
