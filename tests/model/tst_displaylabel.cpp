// SPDX-License-Identifier: GPL-3.0-or-later
// displayLabel on its own: what it keeps of a token, counted in grapheme
// clusters (QTextBoundaryFinder, independently of the function) and UTF-16
// units, for short words, long words, clusters of many combining marks,
// emoji sequences and characters outside the BMP; and that its time does not
// grow with the token.

#include "displaylabel.h"
#include "presentation.h"

#include <QElapsedTimer>
#include <QTextBoundaryFinder>
#include <QtTest>

using attnlab::displayLabel;
using attnlab::kLabelClusters;
using attnlab::kMaxClusterUnits;

namespace {

int clusters(const QString& text)
{
    QTextBoundaryFinder finder(QTextBoundaryFinder::Grapheme, text);
    int count = 0;
    while (finder.toNextBoundary() > 0)
        ++count;
    return count;
}

QString times(const QString& piece, int count)
{
    QString text;
    for (int i = 0; i < count; ++i)
        text += piece;
    return text;
}

const QString kEllipsis = QStringLiteral("\u2026");
const QString kAcute = QStringLiteral("\u0301");              // combining acute accent
const QString kClef = QStringLiteral("\U0001D11E");           // two UTF-16 units
const QString kCombiningStem = QStringLiteral("\U0001D165");  // a combining mark, two units
const QString kFamily = QStringLiteral("\U0001F468\u200D\U0001F469\u200D\U0001F467");  // 8 units, 1 cluster

}  // namespace

class TestDisplayLabel : public QObject {
    Q_OBJECT
private slots:
    void limits();
    void kept_data();
    void kept();
    void neverSplitsACharacter();
    void timeDoesNotGrowWithTheToken();
    void positionedLabelsAreBounded();
};

void TestDisplayLabel::limits()
{
    QCOMPARE(kLabelClusters, 64);
    QCOMPARE(kMaxClusterUnits, 32);
    QCOMPARE(clusters(kFamily), 1);
    QCOMPARE(int(kFamily.size()), 8);
    QCOMPARE(clusters("e" + kAcute), 1);
}

void TestDisplayLabel::kept_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("maxClusters");
    QTest::addColumn<QString>("label");
    QTest::newRow("empty") << QString() << 64 << QString();
    QTest::newRow("a word") << "dessert" << 64 << "dessert";
    QTest::newRow("64 letters, whole") << times("x", 64) << 64 << times("x", 64);
    QTest::newRow("65 letters: 64 and …") << times("x", 65) << 64 << times("x", 64) + kEllipsis;
    QTest::newRow("150,000 letters: 64 and …") << times("x", 150000) << 64 << times("x", 64) + kEllipsis;
    // 64 clusters of two units each (128 units): whole; 65: cut after 64.
    QTest::newRow("64 decomposed é, whole") << times("e" + kAcute, 64) << 64 << times("e" + kAcute, 64);
    QTest::newRow("65 decomposed é") << times("e" + kAcute, 65) << 64 << times("e" + kAcute, 64) + kEllipsis;
    // One cluster of 60,001 units: its base and 31 marks (32 units), then …
    QTest::newRow("a and 60,000 marks")
        << "a" + times(kAcute, 60000) << 64 << "a" + times(kAcute, 31) + kEllipsis;
    QTest::newRow("a and 31 marks, whole") << "a" + times(kAcute, 31) << 64 << "a" + times(kAcute, 31);
    QTest::newRow("word, then a heavy cluster")
        << "ab" + ("c" + times(kAcute, 40)) + "d" << 64 << "ab" + ("c" + times(kAcute, 31)) + kEllipsis;
    // 70 families (560 units) keep 64 of them.
    QTest::newRow("70 families") << times(kFamily, 70) << 64 << times(kFamily, 64) + kEllipsis;
    QTest::newRow("a smaller limit") << "transformers" << 5 << "trans" + kEllipsis;
    QTest::newRow("clefs outside the BMP") << times(kClef, 65) << 64 << times(kClef, 64) + kEllipsis;
}

void TestDisplayLabel::kept()
{
    QFETCH(QString, text);
    QFETCH(int, maxClusters);
    QFETCH(QString, label);
    const QString shown = displayLabel(text, maxClusters);
    QCOMPARE(shown, label);
    // At most maxClusters clusters and the ellipsis; no cluster is longer than the limit.
    QVERIFY(clusters(shown) <= maxClusters + 1);
    QVERIFY(shown.size() <= qsizetype(maxClusters) * kMaxClusterUnits + 1);
    QCOMPARE(shown == text, !shown.endsWith(kEllipsis) || text.endsWith(kEllipsis));
}

// A cut inside a cluster of marks that take two units each keeps whole
// code points: base (1 unit) and 15 marks (30 units), not half of the 16th.
void TestDisplayLabel::neverSplitsACharacter()
{
    const QString heavy = "a" + times(kCombiningStem, 100);
    QCOMPARE(clusters(heavy), 1);
    const QString shown = displayLabel(heavy);
    QCOMPARE(shown, "a" + times(kCombiningStem, 15) + kEllipsis);
    QCOMPARE(int(shown.size()), 1 + 30 + 1);
    for (qsizetype i = 0; i < shown.size(); ++i) {
        if (shown.at(i).isHighSurrogate())
            QVERIFY(i + 1 < shown.size() && shown.at(i + 1).isLowSurrogate());
    }
}

// Only a head of the token is looked at: a token 100 times longer costs no
// more than a few times as much (a generous factor for a loaded machine).
void TestDisplayLabel::timeDoesNotGrowWithTheToken()
{
    const QString shortWord = times("x", 10000);
    const QString longWord = times("x", 1000000);
    qsizetype kept = 0;
    const auto cost = [&kept](const QString& text) {
        QElapsedTimer clock;
        clock.start();
        for (int i = 0; i < 200; ++i)
            kept += displayLabel(text).size();
        return clock.nsecsElapsed();
    };
    cost(shortWord);  // warm-up
    const qint64 small = cost(shortWord);
    const qint64 large = cost(longWord);
    QCOMPARE(kept, qsizetype(3 * 200 * 65));
    QVERIFY2(large < 10 * small + 20000000, qPrintable(QStringLiteral("%1 vs %2 ns").arg(large).arg(small)));
}

// The maps' and tables' labels: bounded, and two long words cut to the same
// label are told apart by their positions.
void TestDisplayLabel::positionedLabelsAreBounded()
{
    const QString a = times("x", 100) + "a";
    const QString b = times("x", 100) + "b";
    const QStringList labels = attnlab::positionedLabels({"the", a, b, "cat"});
    const QString cut = times("x", 64) + kEllipsis;
    QCOMPARE(labels, QStringList({"the", cut + "#2", cut + "#3", "cat"}));
}

QTEST_GUILESS_MAIN(TestDisplayLabel)
#include "tst_displaylabel.moc"
