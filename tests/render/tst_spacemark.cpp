// SPDX-License-Identifier: GPL-3.0-or-later
// The visible-space mark drawn as a bracket (spacemark.h), against the
// font's own "␣" at the sizes of the Model tab's RoPE page: drawn into
// images, the bracket's ink is most of the glyph's advance wide and at
// least 3 px high where the glyph's is a few pixels; the text beside it is
// the same pixels as drawText's, placed and clipped in a box as drawText
// does. Then the renderers that draw token labels, each drawing "␣the"
// into an image: the mark is the bracket, on the letters' baseline, where
// the font's glyph hangs below it.

#include "cellsource.h"
#include "headlinesrenderer.h"
#include "heatmaprenderer.h"
#include "nexttokenrenderer.h"
#include "spacemark.h"
#include "spacemarkink.h"
#include "tiletokenlabels.h"
#include "tinygpt2run.h"

#include <QFont>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace attnlab;
using namespace spacemarkink;

namespace {

QFont labelFont()
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(13);
    return font;
}

HeatmapStyle plainStyle(bool screen = false)
{
    HeatmapStyle style;
    style.background = Qt::white;
    style.text = Qt::black;
    style.frame = Qt::gray;
    style.screen = screen;
    return style;
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
    void heatmapLabels_data();
    void heatmapLabels();
    void nextTokenLabels();
    void tileLabels();
    void headLinesLabels();
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

void TestSpaceMark::heatmapLabels_data()
{
    QTest::addColumn<bool>("screen");
    QTest::newRow("exported picture") << false;
    QTest::newRow("on screen (cached glyphs)") << true;
}

void TestSpaceMark::heatmapLabels()
{
    // HeatmapLabelPainter: the rows' labels right of the map, the columns'
    // above it (upright where they fit), on screen and in pictures.
    QFETCH(bool, screen);
    const QFont font = labelFont();
    HeatmapRenderer map;
    map.setFont(font);
    const QStringList tokens{QStringLiteral("␣the"), QStringLiteral("␣cat")};
    map.setCells(matrixCells(attn::Matrix::Constant(2, 2, 0.5)), tokens, tokens);
    map.setRange(0, 1);
    const QSize size(360, 260);
    QImage image(size, QImage::Format_RGB32);
    {
        QPainter painter(&image);
        map.paint(painter, size, plainStyle(screen));
    }
    const HeatmapLayout& l = map.layout(size);
    QVERIFY(l.rowLabelStep == 1 && l.columnLabelStep == 1 && !l.rotatedColumns);
    for (int r = 0; r < 2; ++r) {
        const QRect cell = map.cellRect(size, r, 0);
        VERIFY_BRACKET(image, QRect(l.rowLabels.left(), cell.top(), l.rowLabels.width(), cell.height()),
                       font);
    }
    for (int c = 0; c < 2; ++c) {
        const QRect cell = map.cellRect(size, 0, c);
        VERIFY_BRACKET(image, QRect(cell.left(), l.columnLabels.top(), cell.width(), l.columnLabels.height()),
                       font);
    }
}

void TestSpaceMark::nextTokenLabels()
{
    const QFont font = labelFont();
    NextTokenRenderer panel;
    panel.setFont(font);
    panel.setPrediction({{464, 3.0, 0.5}, {3797, 2.0, 0.2}}, {QStringLiteral("␣the"), QStringLiteral("␣cat")},
                        1.0, QStringLiteral("␣on"));
    const QSize size(500, 200);
    QImage image(size, QImage::Format_RGB32);
    {
        QPainter painter(&image);
        panel.paint(painter, size, plainStyle(), Qt::lightGray);
    }
    const NextTokenRenderer::Layout& l = panel.layout(size);
    QCOMPARE(int(l.labels.size()), 2);
    for (const QRect& label : l.labels)
        VERIFY_BRACKET(image, label, font);
}

void TestSpaceMark::tileLabels()
{
    // A grid tile's queries left of its map, its keys above (Heads tab, model grid).
    const QFont font = labelFont();
    QImage image(260, 200, QImage::Format_RGB32);
    image.fill(Qt::white);
    const QRect map(100, 40, 150, 150), rows(10, 40, 86, 150), columns(100, 10, 150, 26);
    const QStringList tokens{QStringLiteral("␣the"), QStringLiteral("␣cat"), QStringLiteral("␣sat")};
    {
        QPainter painter(&image);
        paintTileTokenLabels(painter, font, plainStyle(), map, rows, columns, tokens);
    }
    for (int i = 0; i < 3; ++i) {
        VERIFY_BRACKET(image, QRect(rows.left(), map.top() + 50 * i, rows.width(), 50), font);
        VERIFY_BRACKET(image, QRect(map.left() + 50 * i, columns.top(), 50, columns.height()), font);
    }
}

void TestSpaceMark::headLinesLabels()
{
    // BertViz's head view on the tiny checkpoint's real tokens: "␣is" (1) and
    // "␣the" (4), the query on the left, the key on the right.
    const tinygpt2::Run run = tinygpt2::run();
    QCOMPARE(run.tokens.value(1), QStringLiteral("␣is"));
    QCOMPARE(run.tokens.value(4), QStringLiteral("␣the"));
    const QFont font = labelFont();
    HeadLinesRenderer view;
    view.setFont(font);
    view.setResult(run.result, run.tokens);
    const QSize size(600, 400);
    QImage image(size, QImage::Format_RGB32);
    {
        QPainter painter(&image);
        view.paint(painter, size, plainStyle(), Qt::red);
    }
    const HeadLinesLayout& l = view.layout(size);
    QCOMPARE(l.labelStep, 1);
    const int line = QFontMetrics(font).height();
    for (const int i : {1, 4})
        for (const QRect& column : {l.queries, l.keys}) {
            const int y = int(std::lround(l.rowCentre(i) - line / 2.0));
            VERIFY_BRACKET(image, QRect(column.left(), y, column.width(), line), font);
        }
}

QTEST_MAIN(TestSpaceMark)
#include "tst_spacemark.moc"
