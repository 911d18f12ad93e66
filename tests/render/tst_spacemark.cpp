// SPDX-License-Identifier: GPL-3.0-or-later
// The visible-space mark drawn as a bracket (spacemark.h), against the
// font's own "␣" at the sizes of the Model tab's RoPE page: drawn into
// images, the bracket's ink is most of the glyph's advance wide and at
// least 3 px high where the glyph's is a few pixels; the text beside it is
// the same pixels as drawText's, placed and clipped in a box as drawText
// does.

#include "spacemark.h"

#include <QFont>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace attnlab;

namespace {

struct Ink {
    int left = -1, right = -1, top = -1, bottom = -1;
    int width() const { return left < 0 ? 0 : right - left + 1; }
    int height() const { return top < 0 ? 0 : bottom - top + 1; }
};

Ink inkOf(const QImage& image, const QRect& region)
{
    Ink ink;
    const QRect r = region.intersected(image.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            if (qGray(image.pixel(x, y)) < 160) {
                ink.left = ink.left < 0 ? x : std::min(ink.left, x);
                ink.right = std::max(ink.right, x);
                ink.top = ink.top < 0 ? y : std::min(ink.top, y);
                ink.bottom = std::max(ink.bottom, y);
            }
    return ink;
}

Ink inkOf(const QImage& image)
{
    return inkOf(image, image.rect());
}

QImage drawn(const QFont& font, const QString& label, bool marked)
{
    QImage image(120, 40, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setFont(font);
    painter.setPen(Qt::black);
    const QFontMetricsF fm(font);
    if (marked)
        drawSpaceMarkedText(painter, fm, 10, 28, label);
    else
        painter.drawText(QPointF(10, 28), label);
    return image;
}

}  // namespace

class TestSpaceMark : public QObject {
    Q_OBJECT
private slots:
    void legible_data();
    void legible();
    void textUnchanged();
    void placedAsDrawText_data();
    void placedAsDrawText();
};

void TestSpaceMark::legible_data()
{
    QTest::addColumn<int>("pixels");
    QTest::newRow("12 px (9 pt)") << 12;
    QTest::newRow("10 px") << 10;
    QTest::newRow("18 px (a picture's)") << 18;
}

void TestSpaceMark::legible()
{
    QFETCH(int, pixels);
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(pixels);
    const QFontMetricsF fm(font);
    const double advance = fm.horizontalAdvance(QChar(0x2423));
    const Ink glyph = inkOf(drawn(font, QStringLiteral("␣"), false));
    const Ink bracket = inkOf(drawn(font, QStringLiteral("␣"), true));
    // The font's glyph hangs below the baseline (row 28).
    QVERIFY(glyph.bottom > 28);
    QVERIFY2(bracket.width() >= 0.7 * advance,
             qPrintable(QStringLiteral("%1 of %2").arg(bracket.width()).arg(advance)));
    QVERIFY(bracket.height() >= 3);
    QVERIFY(bracket.width() > glyph.width());
    QVERIFY(bracket.height() >= glyph.height());
    // Within its advance, on the baseline (row 28) and no higher than the x-height.
    QVERIFY(bracket.left >= 10 && bracket.right < 10 + advance + 1);
    QVERIFY(bracket.bottom <= 28 && bracket.bottom >= 26);
    QVERIFY(bracket.top >= 28 - fm.xHeight() - 1);
}

void TestSpaceMark::textUnchanged()
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(12);
    const QFontMetricsF fm(font);
    // "␣cat": the letters where drawText puts them, after the mark's advance.
    const QImage marked = drawn(font, QStringLiteral("␣cat"), true);
    QImage plain(120, 40, QImage::Format_RGB32);
    plain.fill(Qt::white);
    {
        QPainter painter(&plain);
        painter.setFont(font);
        painter.setPen(Qt::black);
        painter.drawText(QPointF(10 + fm.horizontalAdvance(QChar(0x2423)), 28), QStringLiteral("cat"));
    }
    const int from = 10 + int(std::ceil(fm.horizontalAdvance(QChar(0x2423))));
    QCOMPARE(marked.copy(from, 0, 120 - from, 40), plain.copy(from, 0, 120 - from, 40));
    // No "␣" at all: the text as drawText draws it.
    QCOMPARE(drawn(font, QStringLiteral("The"), true), drawn(font, QStringLiteral("The"), false));
}

void TestSpaceMark::placedAsDrawText_data()
{
    QTest::addColumn<int>("flags");
    QTest::addColumn<QRectF>("box");
    QTest::newRow("right, centred") << int(Qt::AlignRight | Qt::AlignVCenter) << QRectF(5, 3, 60, 20);
    QTest::newRow("left, centred, half pixels")
        << int(Qt::AlignLeft | Qt::AlignVCenter) << QRectF(5.5, 3.5, 60, 21);
    QTest::newRow("centre, bottom") << int(Qt::AlignHCenter | Qt::AlignBottom) << QRectF(5, 3, 61, 20);
    QTest::newRow("centre") << int(Qt::AlignCenter) << QRectF(5, 4, 40.5, 17);
    // Lower than the line, narrower than the text: drawText clips to the box.
    QTest::newRow("clipped, short box") << int(Qt::AlignLeft | Qt::AlignVCenter) << QRectF(5, 3, 60, 11);
    QTest::newRow("clipped, narrow box") << int(Qt::AlignRight | Qt::AlignVCenter) << QRectF(5, 3, 30, 20);
    QTest::newRow("unclipped, narrow box")
        << int(Qt::AlignRight | Qt::AlignVCenter | Qt::TextDontClip) << QRectF(20, 3, 30, 11);
}

void TestSpaceMark::placedAsDrawText()
{
    QFETCH(int, flags);
    QFETCH(QRectF, box);
    // A label without the mark, through drawTokenText and through
    // drawSpaceMarkedLabel: drawText's pixels, so a column of labels, some
    // marked, keeps one baseline and one edge.
    for (const int pixels : {10, 13}) {
        QFont font(QStringLiteral("DejaVu Sans"));
        font.setPixelSize(pixels);
        const auto image = [&](int how) {
            QImage im(100, 30, QImage::Format_RGB32);
            im.fill(Qt::white);
            QPainter painter(&im);
            painter.setFont(font);
            painter.setPen(Qt::black);
            const QString label = QStringLiteral("Wonderful");
            if (how == 0)
                painter.drawText(box, flags, label);
            else if (how == 1)
                drawTokenText(painter, box, flags, label);
            else
                drawSpaceMarkedLabel(painter, QFontMetricsF(font), box, label, flags);
            return im;
        };
        const QImage expected = image(0);
        QVERIFY(inkOf(expected).width() > 0);
        QCOMPARE(image(1), expected);
        QCOMPARE(image(2), expected);
    }
}

QTEST_MAIN(TestSpaceMark)
#include "tst_spacemark.moc"
