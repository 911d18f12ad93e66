// SPDX-License-Identifier: GPL-3.0-or-later
// HeatmapRenderer's printed cells: narrow cells print their values with
// fewer decimals (down to two significant digits of the largest magnitude)
// before the numbers go, and the decimals come back when the cells widen.

#include "cellsource.h"
#include "heatmaprenderer.h"

#include <QFontMetrics>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <cmath>
#include <limits>

using namespace attnlab;

class TestHeatmapRenderer : public QObject {
    Q_OBJECT
private slots:
    void narrowCellsDropDecimals();
    void weightsKeepTwoSignificantDigits();
    void tooNarrowForAnyNumber();
    void largeFontKeepsTheNumbersSmaller();
    void captionInTheTextColour();
    void largeImageColouredOnTwoThreads_data();
    void largeImageColouredOnTwoThreads();
};

namespace {

// A map of the given values in its first row and zeros below.
std::unique_ptr<HeatmapRenderer> renderer(const std::vector<double>& values, int decimals)
{
    const int cols = int(values.size());
    attn::Matrix m = attn::Matrix::Zero(2, cols);
    for (int c = 0; c < cols; ++c)
        m(0, c) = values[std::size_t(c)];
    auto r = std::make_unique<HeatmapRenderer>();
    r->setCells(matrixCells(m), {}, {});
    r->setColorMap(MapColors::Diverging);
    r->setRange(-30, 30);
    r->setDecimals(decimals);
    return r;
}

// The narrowest map whose cells are at least `cellWidth` pixels wide.
QSize sizeForCells(const HeatmapRenderer& r, int cellWidth)
{
    for (int w = 60; w < 4000; ++w) {
        const QSize size(w, 300);
        if (r.layout(size).cells.width() / r.columnCount() >= cellWidth)
            return size;
    }
    return {};
}

}  // namespace

void TestHeatmapRenderer::narrowCellsDropDecimals()
{
    // The scaled scores of the article's example at d_k 24: -28.9 and 29.6.
    const std::vector<double> v{-28.9, 29.6, 1.75, -0.48, 3.25, 11.1};
    const auto map = renderer(v, 1);
    const HeatmapRenderer& r = *map;
    const QFontMetrics fm(r.font());
    const int pad = 2 * HeatmapLayout::padding(fm.height());
    // Wide cells: one decimal, as asked.
    const QSize wide = sizeForCells(r, fm.horizontalAdvance(QStringLiteral("-28.9")) + pad + 2);
    QVERIFY(r.layout(wide).cellText);
    QCOMPARE(r.cellDecimals(), 1);
    QCOMPARE(r.formatCell(-28.9), QStringLiteral("-28.9"));
    QCOMPARE(r.widestCellText(), QStringLiteral("-28.9"));
    // Cells wide enough for "-29" but not for "-28.9": no decimals.
    const int narrowW = fm.horizontalAdvance(QStringLiteral("-29")) + pad + 1;
    QVERIFY(narrowW < fm.horizontalAdvance(QStringLiteral("-28.9")) + pad);
    const QSize narrow = sizeForCells(r, narrowW);
    QVERIFY(r.layout(narrow).cellText);
    QCOMPARE(r.cellDecimals(), 0);
    QCOMPARE(r.formatCell(-28.9), QStringLiteral("-29"));
    QCOMPARE(r.formatCell(1.75), QStringLiteral("2"));
    QCOMPARE(r.formatCell(-0.48), QStringLiteral("0"));  // never "-0"
    // Hover and tooltips keep the scale's decimals.
    QCOMPARE(r.formatValue(-28.9), QStringLiteral("-28.9"));
    // Wide again: the decimal comes back.
    QVERIFY(r.layout(wide).cellText);
    QCOMPARE(r.cellDecimals(), 1);
}

void TestHeatmapRenderer::weightsKeepTwoSignificantDigits()
{
    // Weights (largest 1.00) go from two decimals to one, never to none:
    // "0" and "1" would say nothing about a row.
    const std::vector<double> w{0.34, 0.06, 1.0, 0.5};
    const auto map = renderer(w, 2);
    const HeatmapRenderer& r = *map;
    const QFontMetrics fm(r.font());
    const int pad = 2 * HeatmapLayout::padding(fm.height());
    const QSize narrow = sizeForCells(r, fm.horizontalAdvance(QStringLiteral("0.3")) + pad + 1);
    QVERIFY(fm.horizontalAdvance(QStringLiteral("0.34")) + pad > r.layout(narrow).cells.width() / 4);
    QVERIFY(r.layout(narrow).cellText);
    QVERIFY(r.layout(narrow).cellText);
    QCOMPARE(r.cellDecimals(), 1);
    QCOMPARE(r.formatCell(0.34), QStringLiteral("0.3"));
    const QSize narrower = sizeForCells(r, fm.horizontalAdvance(QStringLiteral("0")) + pad + 1);
    QVERIFY(!r.layout(narrower).cellText);
    QCOMPARE(r.cellDecimals(), 2);  // no numbers: the scale's decimals stand
}

void TestHeatmapRenderer::tooNarrowForAnyNumber()
{
    const auto map = renderer({-28.9, 29.6}, 1);
    const HeatmapRenderer& r = *map;
    QVERIFY(!r.layout(sizeForCells(r, 4)).cellText);
    QCOMPARE(r.cellDecimals(), 1);
}

// Presentation mode's font, 1.4 times the normal one: cells too narrow for
// "-29" in it print the numbers smaller, down to the smallest size allowed
// (the normal font's), rather than none; without that floor they go.
void TestHeatmapRenderer::largeFontKeepsTheNumbersSmaller()
{
    const auto map = renderer({-28.9, 29.6, 1.75, -0.48}, 1);
    HeatmapRenderer& r = *map;
    const QFont normal = r.font();
    QVERIFY(normal.pointSizeF() > 0);
    QFont large = normal;
    large.setPointSizeF(normal.pointSizeF() * 1.4);
    r.setFont(large);
    const QFontMetrics normalFm(normal), largeFm(large);
    const int pad = 2 * HeatmapLayout::padding(largeFm.height());
    const int cellW = normalFm.horizontalAdvance(QStringLiteral("-29")) + pad + 1;
    QVERIFY(cellW < largeFm.horizontalAdvance(QStringLiteral("-29")) + pad);
    QVERIFY(cellW >= largeFm.height());
    const QSize size = sizeForCells(r, cellW);
    QVERIFY(!r.layout(size).cellText);
    QCOMPARE(r.cellFont().pointSizeF(), large.pointSizeF());

    r.setSmallestCellPointSize(normal.pointSizeF());
    QVERIFY(r.layout(size).cellText);
    QVERIFY(r.cellFont().pointSizeF() < large.pointSizeF());
    QVERIFY(r.cellFont().pointSizeF() >= normal.pointSizeF());
    const int cell = r.layout(size).cells.width() / r.columnCount();
    QVERIFY(QFontMetrics(r.cellFont()).horizontalAdvance(r.widestCellText()) + pad <= cell);
    // Wide cells: the large font itself.
    QVERIFY(r.layout(sizeForCells(r, largeFm.horizontalAdvance(QStringLiteral("-28.9")) + pad + 2)).cellText);
    QCOMPARE(r.cellFont().pointSizeF(), large.pointSizeF());
    QCOMPARE(r.cellDecimals(), 1);
}

void TestHeatmapRenderer::captionInTheTextColour()
{
    // The last cell is dark, so its number is printed in white; the caption
    // after it must still be in the text colour (it was white on the window).
    auto map = renderer({0.0, 0.0, 0.0, 1.0}, 2);
    map->setColorMap(MapColors::Sequential);
    map->setRange(0, 1);
    attn::Matrix m = attn::Matrix::Zero(2, 4);
    m(1, 3) = 1.0;  // the last cell drawn
    map->setCells(matrixCells(m), {}, {});
    map->setScaleCaption(QStringLiteral("Colour: linear 0 \u2026 1"));
    const QSize size(500, 300);
    QImage image(size, QImage::Format_RGB32);
    HeatmapStyle style;
    style.background = QColor(0xef, 0xef, 0xef);
    style.text = Qt::black;
    style.frame = Qt::gray;
    {
        QPainter painter(&image);
        map->paint(painter, size, style);
    }
    const QRect caption = map->layout(size).caption;
    QVERIFY(!caption.isEmpty());
    int dark = 0, light = 0;
    for (int y = caption.top(); y <= caption.bottom(); ++y)
        for (int x = caption.left(); x <= caption.right(); ++x) {
            const int g = qGray(image.pixel(x, y));
            dark += g < 80;
            light += g > 0xf8;
        }
    QVERIFY2(dark > 20, qPrintable(QString::number(dark)));
    QCOMPARE(light, 0);  // nothing lighter than the background
}

void TestHeatmapRenderer::largeImageColouredOnTwoThreads_data()
{
    QTest::addColumn<int>("scale");
    QTest::addColumn<int>("rows");
    QTest::newRow("linear, 400 rows") << int(MapScale::Linear) << 400;
    QTest::newRow("per row, 400 rows") << int(MapScale::PerRow) << 400;
    QTest::newRow("log, 401 rows") << int(MapScale::Log) << 401;  // an odd split
    QTest::newRow("linear, under the two-thread size") << int(MapScale::Linear) << 30;
}

// A map of more than 16,384 cells is coloured in two halves of its rows at
// once: every pixel is still its own cell's colour (cellColor, one cell at
// a time), masked and NaN cells grey, the per-row scale each row's own.
void TestHeatmapRenderer::largeImageColouredOnTwoThreads()
{
    QFETCH(int, scale);
    QFETCH(int, rows);
    const int cols = 400;
    attn::Matrix m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m(r, c) = 1e-3 + (1.0 + std::sin(0.37 * r + 0.11 * c)) * (1.0 + r % 7);
    m(3, 5) = -std::numeric_limits<double>::infinity();  // masked
    m(rows - 1, cols - 1) = -std::numeric_limits<double>::infinity();
    m(rows / 2, 7) = std::numeric_limits<double>::quiet_NaN();
    HeatmapRenderer map;
    map.setCells(matrixCells(m), {}, {});
    map.setColorMap(MapColors::Sequential);
    map.setRange(0.0, 16.0);
    map.setColorScale(MapScale(scale), 1e-2);
    QImage image(cols, rows, QImage::Format_RGB32);
    image.fill(Qt::black);
    {
        QPainter painter(&image);
        map.paintCellImage(painter, QRect(0, 0, cols, rows));
    }
    int wrong = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            wrong += image.pixel(c, r) != map.cellColor(r, c).rgb();
    QCOMPARE(wrong, 0);
    QCOMPARE(image.pixel(5, 3), QColor(0xda, 0xda, 0xda).rgb());
    QCOMPARE(image.pixel(7, rows / 2), QColor(0xda, 0xda, 0xda).rgb());
}

QTEST_MAIN(TestHeatmapRenderer)
#include "tst_heatmaprenderer.moc"
