// SPDX-License-Identifier: GPL-3.0-or-later
// TextWidths gives QFontMetrics::horizontalAdvance's numbers whether the
// text was measured before or not, keeps one table per font (a text's
// width in a larger font is not the smaller font's), survives its table
// being emptied past 16,384 texts, and elides like HeatmapLabelPainter:
// never a text that fits its width exactly.

#include "heatmaplabelpainter.h"
#include "textwidths.h"

#include <QGuiApplication>
#include <QtTest>

using namespace attnlab;

class TestTextWidths : public QObject {
    Q_OBJECT
private slots:
    void equalsTheFontMetrics();
    void tablesAreKeptPerFont();
    void manyTextsStayExact();
    void elidesOnlyWhatIsTooWide();
};

void TestTextWidths::equalsTheFontMetrics()
{
    const QFont font = QGuiApplication::font();
    const QFontMetrics fm(font);
    const QStringList texts{"cinema", "␣watch", "id 22041", "", "Ä\u00e9 ✓ 🙂", "cinema"};
    for (int round = 0; round < 2; ++round) {  // measured, then remembered
        TextWidths widths(font);
        for (const QString& t : texts)
            QCOMPARE(widths.advance(t), fm.horizontalAdvance(t));
    }
}

void TestTextWidths::tablesAreKeptPerFont()
{
    QFont small = QGuiApplication::font();
    small.setPointSizeF(10);
    QFont large = small;
    large.setPointSizeF(30);
    const QString text = QStringLiteral("attention is all you need");
    TextWidths a(small);
    const int smallWidth = a.advance(text);
    TextWidths b(large);
    const int largeWidth = b.advance(text);
    QCOMPARE(smallWidth, QFontMetrics(small).horizontalAdvance(text));
    QCOMPARE(largeWidth, QFontMetrics(large).horizontalAdvance(text));
    QVERIFY(largeWidth > 2 * smallWidth);
    QCOMPARE(TextWidths(small).advance(text), smallWidth);
}

void TestTextWidths::manyTextsStayExact()
{
    QFont font = QGuiApplication::font();
    font.setPointSizeF(11);
    const QFontMetrics fm(font);
    TextWidths widths(font);
    for (int i = 0; i < 20000; i += 7)  // past the table's 16,384: emptied once
        QCOMPARE(widths.advance(QString::number(i) + QStringLiteral(" t")),
                 fm.horizontalAdvance(QString::number(i) + QStringLiteral(" t")));
    QCOMPARE(widths.advance(QStringLiteral("0 t")), fm.horizontalAdvance(QStringLiteral("0 t")));
}

void TestTextWidths::elidesOnlyWhatIsTooWide()
{
    const QFont font = QGuiApplication::font();
    const QFontMetrics fm(font);
    TextWidths widths(font);
    const QString text = QStringLiteral("extraordinarily");
    const int exact = fm.horizontalAdvance(text);
    QCOMPARE(widths.elided(text, exact), text);
    QCOMPARE(widths.elided(text, exact / 2), HeatmapLabelPainter::elided(fm, text, exact / 2));
    QVERIFY(widths.elided(text, exact / 2) != text);
}

QTEST_MAIN(TestTextWidths)
#include "tst_textwidths.moc"
