// SPDX-License-Identifier: GPL-3.0-or-later
// HeatmapView and its colour maps: geometry, signals, colours of rendered
// pixels, masking, legibility rules, and a 2048 x 2048 render.

#include "colormap.h"
#include "heatmapview.h"
#include <random>
#include "resultcells.h"

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QWheelEvent>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>

#include <cmath>
#include <limits>

using attnlab::HeatmapView;
namespace colormap = attnlab::colormap;

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// (n, n) values in [-1, 1] from a fixed formula, all distinct enough to give
// many colours.
attn::Matrix waveMatrix(int rows, int cols)
{
    attn::Matrix m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m(r, c) = std::sin(0.011 * r + 0.3) * std::cos(0.017 * c - 0.2);
    return m;
}

QStringList numbered(const QString& prefix, int n)
{
    QStringList labels;
    for (int i = 0; i < n; ++i)
        labels << prefix + QString::number(i);
    return labels;
}

QStringList dessert()
{
    return {"Life", "is", "short", "eat", "dessert", "first"};
}

// A neutral grey other than white: no value of either map has this colour.
bool isNeutralGrey(QRgb p)
{
    return qRed(p) == qGreen(p) && qGreen(p) == qBlue(p) && qRed(p) < 250;
}

}  // namespace

class TestHeatmapView : public QObject {
    Q_OBJECT
private slots:
    void resultMapsSampleTheResultsOwnNumbers();
    void setDataRoundTrips();
    void missingLabelsAreNumbered();
    void cellRectAndCellAtAreInverse_data();
    void cellRectAndCellAtAreInverse();
    void clickOnCellEmitsRowClicked_data();
    void clickOnCellEmitsRowClicked();
    void clickOnRowLabelEmitsRowClicked();
    void clickOutsideCellsEmitsNothing();
    void mouseMoveEmitsCellHovered();
    void toolTipGivesLabelsAndValue();
    void toolTipUsesProvider();
    void divergingColors_data();
    void divergingColors();
    void sequentialColors_data();
    void sequentialColors();
    void viewUsesSymmetricDivergingRange();
    void textContrastsWithCell_data();
    void textContrastsWithCell();
    void maskedCellIsHatchedGrey_data();
    void maskedCellIsHatchedGrey();
    void nanIsDrawnMaskedWithoutCrash();
    void cellTextLegibility_data();
    void cellTextLegibility();
    void focusRowIsOutlined();
    void followsPalette();
    void renderImageHonoursDevicePixelRatio();
    void renders2048Matrix();
    void shortMapsShowWholeColumnLabels();
    void perRowScaleColoursEachRowByItsMax();
    void logScaleColoursByDecades();
    void logScaleTicksThinToTheBar();
    void zoomShowsABlockWithFittingLabels();
    void zoomKeepsHoverAndClick();
    void zoomByKeysWheelAndDrag();
    void zoomedPictureReadsOnlyTheBlock();
    void wideVectorStaysLegible();
};

void TestHeatmapView::setDataRoundTrips()
{
    HeatmapView view;
    attn::Matrix m(2, 3);
    m << 0.5, -1.25, kNegInf, 3.0, 0.0, -0.001;
    const QStringList rows{"the", "cat"};
    const QStringList cols{"a", "b", "c"};
    view.setData(m, rows, cols);
    QCOMPARE(view.values().rows(), 2);
    QCOMPARE(view.values().cols(), 3);
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c)
            QCOMPARE(view.values()(r, c), m(r, c));
    QCOMPARE(view.rowLabels(), rows);
    QCOMPARE(view.columnLabels(), cols);

    view.setRange(-0.25, 0.75);
    QCOMPARE(view.rangeLow(), -0.25);
    QCOMPARE(view.rangeHigh(), 0.75);
    view.setTitle("Scores");
    QCOMPARE(view.title(), QString("Scores"));
    view.setColorMap(HeatmapView::ColorMap::Sequential);
    QCOMPARE(view.colorMap(), HeatmapView::ColorMap::Sequential);
    view.setFocusRow(1);
    QCOMPARE(view.focusRow(), 1);
    view.setFocusRow(2);  // no such row
    QCOMPARE(view.focusRow(), -1);
}

void TestHeatmapView::missingLabelsAreNumbered()
{
    HeatmapView view;
    view.setData(attn::Matrix::Zero(3, 2), {"x"}, {"p", "q", "extra"});
    QCOMPARE(view.rowLabels(), QStringList({"x", "1", "2"}));
    QCOMPARE(view.columnLabels(), QStringList({"p", "q"}));
}

void TestHeatmapView::cellRectAndCellAtAreInverse_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<QSize>("size");
    QTest::newRow("6x6 in 800x600") << 6 << 6 << QSize(800, 600);
    QTest::newRow("1x1 at minimum size") << 1 << 1 << QSize(220, 200);
    QTest::newRow("3x7 wide cells") << 3 << 7 << QSize(700, 260);
    QTest::newRow("13x5 uneven pixels") << 13 << 5 << QSize(333, 517);
    QTest::newRow("40x40 small cells") << 40 << 40 << QSize(500, 500);
    QTest::newRow("200x200 image mode, 2 px cells") << 200 << 200 << QSize(640, 600);
}

void TestHeatmapView::cellRectAndCellAtAreInverse()
{
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(QSize, size);
    HeatmapView view;
    view.setTitle("Title");
    view.resize(size);
    view.setData(waveMatrix(rows, cols), numbered("q", rows), numbered("k", cols));

    const QRect area = view.cellsArea();
    QVERIFY(!area.isEmpty());
    QVERIFY(QRect(QPoint(0, 0), size).contains(area));
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const QRect rect = view.cellRect(r, c);
            QVERIFY2(!rect.isEmpty(), qPrintable(QString("cell %1,%2").arg(r).arg(c)));
            QVERIFY(area.contains(rect));
            int row = -1;
            int col = -1;
            QVERIFY(view.cellAt(rect.center(), &row, &col));
            QCOMPARE(row, r);
            QCOMPARE(col, c);
            // The cells tile the area without gaps.
            if (c > 0)
                QCOMPARE(rect.left(), view.cellRect(r, c - 1).right() + 1);
            if (r > 0)
                QCOMPARE(rect.top(), view.cellRect(r - 1, c).bottom() + 1);
        }
    }
    QCOMPARE(view.cellRect(0, 0).topLeft(), area.topLeft());
    QCOMPARE(view.cellRect(rows - 1, cols - 1).bottomRight(), area.bottomRight());
    QVERIFY(!view.cellAt(area.topLeft() - QPoint(1, 1), nullptr, nullptr));
    QVERIFY(!view.cellAt(area.bottomRight() + QPoint(1, 1), nullptr, nullptr));
    QVERIFY(view.cellRect(rows, 0).isNull());
}

void TestHeatmapView::clickOnCellEmitsRowClicked_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::newRow("first cell") << 0 << 0;
    QTest::newRow("middle") << 2 << 3;
    QTest::newRow("last row, first column") << 5 << 0;
    QTest::newRow("last cell") << 5 << 5;
}

void TestHeatmapView::clickOnCellEmitsRowClicked()
{
    QFETCH(int, row);
    QFETCH(int, col);
    HeatmapView view;
    view.resize(600, 500);
    view.setData(waveMatrix(6, 6), dessert(), dessert());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &HeatmapView::rowClicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.cellRect(row, col).center());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), row);
}

void TestHeatmapView::clickOnRowLabelEmitsRowClicked()
{
    HeatmapView view;
    view.resize(600, 500);
    view.setData(waveMatrix(6, 6), dessert(), dessert());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &HeatmapView::rowClicked);
    const QRect cell = view.cellRect(4, 0);
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(cell.left() - 10, cell.center().y()));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 4);
}

void TestHeatmapView::clickOutsideCellsEmitsNothing()
{
    HeatmapView view;
    view.resize(600, 500);
    view.setData(waveMatrix(6, 6), dessert(), dessert());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &HeatmapView::rowClicked);
    const QRect area = view.cellsArea();
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(area.center().x(), area.top() - 3));
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(area.right() + 3, area.center().y()));
    QCOMPARE(spy.count(), 0);
}

void TestHeatmapView::mouseMoveEmitsCellHovered()
{
    HeatmapView view;
    view.resize(600, 500);
    view.setData(waveMatrix(6, 6), dessert(), dessert());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &HeatmapView::cellHovered);
    QTest::mouseMove(&view, view.cellRect(1, 4).center());
    QTRY_COMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 1);
    QCOMPARE(spy.at(0).at(1).toInt(), 4);
    // Moving inside the same cell says nothing new; another cell does.
    QTest::mouseMove(&view, view.cellRect(1, 4).center() + QPoint(1, 1));
    QTest::mouseMove(&view, view.cellRect(3, 2).center());
    QTRY_COMPARE(spy.count(), 2);
    QCOMPARE(spy.at(1).at(0).toInt(), 3);
    QCOMPARE(spy.at(1).at(1).toInt(), 2);
}

void TestHeatmapView::toolTipGivesLabelsAndValue()
{
    HeatmapView view;
    view.resize(600, 500);
    attn::Matrix m(2, 2);
    m << 0.25, kNegInf, -0.5, 1.0;
    view.setData(m, {"Life", "is"}, {"eat", "dessert"});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPoint pos = view.cellRect(1, 0).center();
    QHelpEvent help(QEvent::ToolTip, pos, view.mapToGlobal(pos));
    QApplication::sendEvent(&view, &help);
    QTRY_COMPARE(QToolTip::text(), QString("is, eat: -0.50"));
}

void TestHeatmapView::toolTipUsesProvider()
{
    HeatmapView view;
    view.resize(600, 500);
    view.setData(attn::Matrix::Zero(3, 3), numbered("q", 3), numbered("k", 3));
    view.setToolTipProvider([](int row, int col) { return QString("cell %1/%2").arg(row).arg(col); });
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPoint pos = view.cellRect(2, 1).center();
    QHelpEvent help(QEvent::ToolTip, pos, view.mapToGlobal(pos));
    QApplication::sendEvent(&view, &help);
    QTRY_COMPARE(QToolTip::text(), QString("cell 2/1"));
}

void TestHeatmapView::divergingColors_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<double>("m");
    QTest::addColumn<QColor>("expected");
    QTest::newRow("zero is white") << 0.0 << 1.0 << QColor("#ffffff");
    QTest::newRow("+m is the red end") << 2.0 << 2.0 << QColor("#b2182b");
    QTest::newRow("-m is the blue end") << -2.0 << 2.0 << QColor("#2166ac");
    QTest::newRow("+m/2 is the light red stop") << 0.5 << 1.0 << QColor("#f4a582");
    QTest::newRow("-m/2 is the light blue stop") << -1.5 << 3.0 << QColor("#92c5de");
    // Halfway between white and #f4a582: (255+244)/2, (255+165)/2, (255+130)/2
    // rounded half away from zero.
    QTest::newRow("+m/4 between white and light red") << 0.25 << 1.0 << QColor(250, 210, 193);
    QTest::newRow("above +m clamps to red") << 7.0 << 2.0 << QColor("#b2182b");
    QTest::newRow("below -m clamps to blue") << -1e9 << 2.0 << QColor("#2166ac");
    QTest::newRow("+inf clamps to red")
        << std::numeric_limits<double>::infinity() << 1.0 << QColor("#b2182b");
    QTest::newRow("zero range, positive") << 0.1 << 0.0 << QColor("#b2182b");
    QTest::newRow("zero range, zero") << 0.0 << 0.0 << QColor("#ffffff");
}

void TestHeatmapView::divergingColors()
{
    QFETCH(double, value);
    QFETCH(double, m);
    QFETCH(QColor, expected);
    QCOMPARE(colormap::diverging(value, m), expected);
    QCOMPARE(colormap::divergingRgb(value, m), expected.rgb());
}

void TestHeatmapView::sequentialColors_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<QColor>("expected");
    QTest::newRow("0 is white") << 0.0 << 0.0 << 1.0 << QColor("#ffffff");
    QTest::newRow("1 is the dark end") << 1.0 << 0.0 << 1.0 << QColor("#08306b");
    QTest::newRow("0.5 is the middle stop") << 0.5 << 0.0 << 1.0 << QColor("#6baed6");
    QTest::newRow("0.25 of [0, 0.5] is the middle stop") << 0.25 << 0.0 << 0.5 << QColor("#6baed6");
    // Halfway between #6baed6 and #2171b5: (107+33)/2, (174+113)/2, (214+181)/2.
    QTest::newRow("0.625 between stops") << 0.625 << 0.0 << 1.0 << QColor(70, 144, 198);
    QTest::newRow("above hi clamps") << 1.5 << 0.0 << 1.0 << QColor("#08306b");
    QTest::newRow("below lo clamps") << -0.2 << 0.0 << 1.0 << QColor("#ffffff");
}

void TestHeatmapView::sequentialColors()
{
    QFETCH(double, value);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(QColor, expected);
    QCOMPARE(colormap::sequential(value, lo, hi), expected);
}

void TestHeatmapView::viewUsesSymmetricDivergingRange()
{
    HeatmapView view;
    view.setRange(-0.5, 2.0);  // m = 2
    QCOMPARE(view.colorFor(2.0), QColor("#b2182b"));
    QCOMPARE(view.colorFor(-2.0), QColor("#2166ac"));
    QCOMPARE(view.colorFor(-1.0), QColor("#92c5de"));
    QCOMPARE(view.colorFor(0.0), QColor("#ffffff"));
    view.setColorMap(HeatmapView::ColorMap::Sequential);
    view.setRange(0.0, 2.0);
    QCOMPARE(view.colorFor(1.0), QColor("#6baed6"));
    QCOMPARE(view.colorFor(2.0), QColor("#08306b"));
}

void TestHeatmapView::textContrastsWithCell_data()
{
    QTest::addColumn<QColor>("background");
    QTest::addColumn<QColor>("expected");
    QTest::newRow("white cell") << QColor("#ffffff") << QColor(Qt::black);
    QTest::newRow("deep blue end") << QColor("#08306b") << QColor(Qt::white);
    QTest::newRow("red end") << QColor("#b2182b") << QColor(Qt::white);
    QTest::newRow("blue end") << QColor("#2166ac") << QColor(Qt::white);
    QTest::newRow("light red stop") << QColor("#f4a582") << QColor(Qt::black);
    QTest::newRow("masked grey") << QColor::fromRgb(colormap::kMasked) << QColor(Qt::black);
    QTest::newRow("yellow") << QColor(Qt::yellow) << QColor(Qt::black);
}

void TestHeatmapView::textContrastsWithCell()
{
    QFETCH(QColor, background);
    QFETCH(QColor, expected);
    QCOMPARE(colormap::contrastingText(background), expected);
}

void TestHeatmapView::maskedCellIsHatchedGrey_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>("decimals");
    QTest::addColumn<bool>("textVisible");
    QTest::addColumn<bool>("imageMode");
    QTest::newRow("large cells with text") << QSize(600, 500) << 2 << true << false;
    QTest::newRow("small cells without text") << QSize(220, 200) << 6 << false << false;
}

void TestHeatmapView::maskedCellIsHatchedGrey()
{
    QFETCH(QSize, size);
    QFETCH(int, decimals);
    QFETCH(bool, textVisible);
    QFETCH(bool, imageMode);
    // A causal 4 x 4 map: entries above the diagonal are -inf.
    attn::Matrix m(4, 4);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            m(r, c) = c > r ? kNegInf : 0.3 * r - 0.45 * c + 0.1;
    HeatmapView view;
    view.resize(size);
    view.setDecimals(decimals);
    view.setData(m, numbered("q", 4), numbered("k", 4));
    view.setRange(-1.0, 1.0);
    QCOMPARE(view.cellTextVisible(), textVisible);
    QCOMPARE(view.cellImageMode(), imageMode);
    const QImage image = view.renderImage(size);
    QCOMPARE(image.size(), size);

    const QRect masked = view.cellRect(0, 3);
    const QRgb centre = image.pixel(masked.center());
    QVERIFY2(isNeutralGrey(centre), qPrintable(QColor::fromRgb(centre).name()));
    for (int i = -1000; i <= 1000; ++i)
        QVERIFY(view.colorFor(i / 500.0).rgb() != centre);
    // Both the fill and the hatch lines show inside a masked cell.
    QSet<QRgb> maskedColours;
    for (int y = masked.top(); y <= masked.bottom(); ++y)
        for (int x = masked.left(); x <= masked.right(); ++x)
            maskedColours.insert(image.pixel(x, y));
    QVERIFY(maskedColours.contains(colormap::kMasked));
    QVERIFY(maskedColours.contains(colormap::kMaskedHatch));

    for (int r = 0; r < 4; ++r) {
        const QRect cell = view.cellRect(r, 0);
        // Without text the centre is free; with text sample near a corner.
        const QPoint sample = textVisible ? cell.topLeft() + QPoint(2, 2) : cell.center();
        QCOMPARE(QColor::fromRgb(image.pixel(sample)), view.colorFor(m(r, 0)));
    }
}

void TestHeatmapView::nanIsDrawnMaskedWithoutCrash()
{
    attn::Matrix m = attn::Matrix::Constant(3, 3, 0.5);
    m(1, 1) = std::numeric_limits<double>::quiet_NaN();
    for (const QSize& size : {QSize(600, 500), QSize(220, 200)}) {
        HeatmapView view;
        view.resize(size);
        view.setData(m, numbered("q", 3), numbered("k", 3));
        const QImage image = view.renderImage(size);
        const QRect cell = view.cellRect(1, 1);
        QVERIFY(isNeutralGrey(image.pixel(cell.topLeft() + QPoint(1, 1))));
    }
    // Every cell NaN: nothing to take a text width from, still draws.
    HeatmapView view;
    view.resize(300, 300);
    view.setData(attn::Matrix::Constant(2, 2, std::numeric_limits<double>::quiet_NaN()), {}, {});
    QVERIFY(!view.renderImage(QSize(300, 300)).isNull());
}

void TestHeatmapView::cellTextLegibility_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("textVisible");
    QTest::addColumn<bool>("imageMode");
    QTest::newRow("6x6 in 800x600") << 6 << QSize(800, 600) << true << false;
    QTest::newRow("6x6 at minimum size") << 6 << QSize(220, 200) << false << false;
    QTest::newRow("300x300 in 400x400") << 300 << QSize(400, 400) << false << true;
}

void TestHeatmapView::cellTextLegibility()
{
    QFETCH(int, n);
    QFETCH(QSize, size);
    QFETCH(bool, textVisible);
    QFETCH(bool, imageMode);
    attn::Matrix m = waveMatrix(n, n);
    m(0, 0) = 0.0;  // a white cell, so printed text shows as dark pixels
    HeatmapView view;
    view.resize(size);
    view.setData(m, numbered("t", n), numbered("t", n));
    QCOMPARE(view.cellTextVisible(), textVisible);
    QCOMPARE(view.cellImageMode(), imageMode);

    const QImage image = view.renderImage(size);
    const QRect cell = view.cellRect(0, 0);
    int darkPixels = 0;
    for (int y = cell.top(); y <= cell.bottom(); ++y)
        for (int x = cell.left(); x <= cell.right(); ++x)
            darkPixels += qGray(image.pixel(x, y)) < 128 ? 1 : 0;
    QCOMPARE(darkPixels > 0, textVisible);
}

void TestHeatmapView::focusRowIsOutlined()
{
    HeatmapView view;
    view.resize(600, 500);
    view.setData(attn::Matrix::Zero(6, 6), dessert(), dessert());
    const QImage before = view.renderImage(view.size());
    view.setFocusRow(2);
    const QImage after = view.renderImage(view.size());
    const QRect row = view.cellRect(2, 0).united(view.cellRect(2, 5));
    // The outline runs just outside the row's edges; far rows are untouched.
    const QPoint onTopEdge(row.center().x(), row.top() - 1);
    QVERIFY(before.pixel(onTopEdge) != after.pixel(onTopEdge));
    const QPoint farRow = view.cellRect(5, 3).center();
    QCOMPARE(before.pixel(farRow), after.pixel(farRow));
}

void TestHeatmapView::followsPalette()
{
    HeatmapView view;
    view.resize(400, 300);
    view.setData(waveMatrix(4, 4), numbered("q", 4), numbered("k", 4));
    QPalette dark = view.palette();
    dark.setColor(QPalette::Window, QColor(30, 30, 34));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    view.setPalette(dark);
    const QImage image = view.renderImage(view.size());
    QCOMPARE(image.pixel(1, 1), QColor(30, 30, 34).rgb());
    // Labels are drawn in the light text colour somewhere left of the cells.
    const QRect area = view.cellsArea();
    bool lightText = false;
    for (int y = area.top(); y <= area.bottom() && !lightText; ++y)
        for (int x = 0; x < area.left() && !lightText; ++x)
            lightText = qGray(image.pixel(x, y)) > 150;
    QVERIFY(lightText);
}

void TestHeatmapView::renderImageHonoursDevicePixelRatio()
{
    HeatmapView view;
    view.resize(300, 250);
    view.setData(waveMatrix(5, 5), numbered("q", 5), numbered("k", 5));
    const QImage image = view.renderImage(QSize(300, 250), 2.0);
    QCOMPARE(image.size(), QSize(600, 500));
    QCOMPARE(image.devicePixelRatio(), 2.0);
    // Same layout in logical pixels: a cell centre has the cell's colour.
    const QRect cell = view.cellRect(3, 1);
    const QPoint device = (cell.topLeft() + QPoint(2, 2)) * 2;
    QCOMPARE(QColor::fromRgb(image.pixel(device)), view.colorFor(waveMatrix(5, 5)(3, 1)));
}

void TestHeatmapView::renders2048Matrix()
{
    const int n = 2048;
    HeatmapView view;
    view.resize(800, 800);
    view.setTitle("2048 tokens");
    view.setData(waveMatrix(n, n), numbered("t", n), numbered("t", n));
    view.setRange(-1.0, 1.0);
    QVERIFY(view.cellImageMode());
    QVERIFY(!view.cellTextVisible());
    const QImage image = view.renderImage(QSize(800, 800));
    QCOMPARE(image.size(), QSize(800, 800));
    QSet<QRgb> colours;
    const QRect area = view.cellsArea();
    for (int y = area.top(); y <= area.bottom(); y += 3)
        for (int x = area.left(); x <= area.right(); x += 3)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 200, qPrintable(QString::number(colours.size())));
    // A second render (a repaint) reuses the cell image and gives the same pixels.
    QCOMPARE(view.renderImage(QSize(800, 800)), image);
}

void TestHeatmapView::resultMapsSampleTheResultsOwnNumbers()
{
    // The pipeline's three maps read the session's result: cell by cell,
    // row by row and sampled for the picture (through one shared reading of
    // the scores) they give the result's own numbers, bit for bit.
    std::mt19937 rng(5);
    std::normal_distribution<double> dist(0.0, 1.0);
    attn::Matrix x(37, 6), w(6, 6);
    for (Eigen::Index i = 0; i < x.size(); ++i)
        x.data()[i] = dist(rng);
    for (Eigen::Index i = 0; i < w.size(); ++i)
        w.data()[i] = dist(rng);
    attn::AttentionOptions options;
    options.causal = true;
    auto computed = attn::computeAttention(x, w, w, w, options);
    QVERIFY(computed.ok());
    const auto result = std::make_shared<const attn::AttentionResult>(std::move(computed).value());
    const attn::Matrix want[] = {result->scores, result->scaledMatrix(), result->weightsMatrix()};
    using attnlab::ResultMap;
    const auto cache = std::make_shared<attnlab::ResultSampleCache>();
    const std::vector<int> rowAt = {0, 3, 3, 20, 36};
    const std::vector<int> colAt = {36, 0, 5, 20, 19, 2};
    // The weights first: the first map to draw fills the shared reading.
    for (const ResultMap map : {ResultMap::Weights, ResultMap::Scores, ResultMap::Scaled}) {
        const auto cells = attnlab::resultCells(result, map, cache);
        const attn::Matrix& m = want[int(map)];
        std::vector<double> row(37);
        for (int i = 0; i < 37; ++i) {
            cells->rowValues(i, row.data());
            for (int j = 0; j < 37; ++j) {
                QCOMPARE(cells->value(i, j), m(i, j));
                QCOMPARE(row[std::size_t(j)], m(i, j));
            }
        }
        std::vector<double> sampled(rowAt.size() * colAt.size());
        cells->sample(rowAt, colAt, sampled.data());
        for (std::size_t y = 0; y < rowAt.size(); ++y)
            for (std::size_t c = 0; c < colAt.size(); ++c)
                QCOMPARE(sampled[y * colAt.size() + c], m(rowAt[y], colAt[c]));
    }
    QCOMPARE(int(cache->grids.size()), 1);
    QCOMPARE(cache->grids[0].rowAt, rowAt);
    // A map of another width keeps a grid of its own beside the first.
    const std::vector<int> narrower = {36, 5, 2};
    std::vector<double> sampled(rowAt.size() * narrower.size());
    attnlab::resultCells(result, ResultMap::Weights, cache)->sample(rowAt, narrower, sampled.data());
    for (std::size_t y = 0; y < rowAt.size(); ++y)
        for (std::size_t c = 0; c < narrower.size(); ++c)
            QCOMPARE(sampled[y * narrower.size() + c], want[2](rowAt[y], narrower[c]));
    QCOMPARE(int(cache->grids.size()), 2);
    QCOMPARE(cache->grids[1].colAt, narrower);
}

void TestHeatmapView::shortMapsShowWholeColumnLabels()
{
    // A vector of 24 dimensions in a short, wide map (the focused query's
    // q): rotated labels would have room for one digit and show "…" for
    // 10 to 24; instead every few labels lie flat and whole.
    HeatmapView view;
    attn::Matrix m = attn::Matrix::Zero(1, 24);
    QStringList cols;
    for (int c = 1; c <= 24; ++c)
        cols << QString::number(c);
    view.setData(m, {"is"}, cols);
    // Rotated labels may take a quarter of the height: less than "24" needs.
    view.resize(300, 4 * view.fontMetrics().horizontalAdvance(QStringLiteral("24")) - 4);
    const QStringList shortShown = view.shownColumnLabels();
    QVERIFY2(shortShown.size() >= 2 && shortShown.size() < 24, qPrintable(shortShown.join(' ')));
    for (const QString& label : shortShown)
        QVERIFY2(cols.contains(label), qPrintable(label));  // whole, not elided
    // With room for them, every label is shown.
    view.resize(900, 300);
    QCOMPARE(view.shownColumnLabels(), cols);
}

QTEST_MAIN(TestHeatmapView)
#include "tst_heatmapview.moc"

void TestHeatmapView::perRowScaleColoursEachRowByItsMax()
{
    // Row 0 reaches 0.4, row 1 only 0.02: per row, each row's largest value
    // gets the deep end, half of it the middle of the scale.
    attn::Matrix m(2, 3);
    m << 0.1, 0.2, 0.4,  //
        0.01, 0.02, 0.005;
    HeatmapView view;
    view.resize(400, 300);
    view.setColorMap(HeatmapView::ColorMap::Sequential);
    view.setData(m, {"a", "b"}, {"x", "y", "z"});
    view.setRange(0.0, 1.0);
    QCOMPARE(view.cellColor(1, 1), view.colorFor(0.02));  // linear until asked
    view.setColorScale(HeatmapView::ColorScale::PerRow);
    QCOMPARE(view.colorScale(), HeatmapView::ColorScale::PerRow);
    QCOMPARE(view.cellColor(0, 2).rgb(), colormap::kSequentialHigh);
    QCOMPARE(view.cellColor(1, 1).rgb(), colormap::kSequentialHigh);
    QCOMPARE(view.cellColor(0, 1), colormap::sequential(0.5, 0.0, 1.0));
    QCOMPARE(view.cellColor(1, 2), colormap::sequential(0.25, 0.0, 1.0));
    // The picture shows the same colours, and the bar says "per row".
    const QImage image = view.renderImage(view.size());
    // (Corners: the cells print their numbers in the middle.)
    QCOMPARE(image.pixel(view.cellRect(1, 1).topLeft() + QPoint(1, 1)), colormap::kSequentialHigh);
    QCOMPARE(QColor::fromRgb(image.pixel(view.cellRect(0, 1).topLeft() + QPoint(1, 1))),
             colormap::sequential(0.5, 0.0, 1.0));
    QCOMPARE(view.scaleTickTexts().first(), QStringLiteral("0.00"));
    QCOMPARE(view.scaleTickTexts().last(), QStringLiteral("row max"));
    // A diverging map stays linear whatever is asked.
    view.setColorMap(HeatmapView::ColorMap::Diverging);
    QCOMPARE(view.colorScale(), HeatmapView::ColorScale::Linear);
}

void TestHeatmapView::logScaleColoursByDecades()
{
    attn::Matrix m(1, 5);
    m << 1e-6, 1e-3, 1.0, 1e-9, 0.0;
    HeatmapView view;
    view.resize(500, 500);
    view.setColorMap(HeatmapView::ColorMap::Sequential);
    view.setData(m, {"q"}, {"a", "b", "c", "d", "e"});
    view.setRange(0.0, 1.0);
    view.setColorScale(HeatmapView::ColorScale::Log, 1e-6);
    // 1e-3 is half way (in decades) from 1e-6 to 1; at or below 1e-6 (and 0) white.
    QCOMPARE(view.cellColor(0, 1), colormap::sequential(0.5, 0.0, 1.0));
    QCOMPARE(view.cellColor(0, 2).rgb(), colormap::kSequentialHigh);
    QCOMPARE(view.cellColor(0, 0).rgb(), colormap::kSequentialLow);
    QCOMPARE(view.cellColor(0, 3).rgb(), colormap::kSequentialLow);
    QCOMPARE(view.cellColor(0, 4).rgb(), colormap::kSequentialLow);
    // Under linear, 1e-3 would be all but white.
    QCOMPARE(view.colorFor(1e-3), colormap::sequential(1e-3, 0.0, 1.0));
    QVERIFY(view.colorFor(1e-3) != view.cellColor(0, 1));
}

void TestHeatmapView::logScaleTicksThinToTheBar()
{
    HeatmapView view;
    view.setColorMap(HeatmapView::ColorMap::Sequential);
    view.setData(waveMatrix(40, 40).cwiseAbs(), numbered("t", 40), numbered("t", 40));
    view.setRange(0.0, 1.0);
    view.setColorScale(HeatmapView::ColorScale::Log, 1e-6);
    view.resize(700, 700);
    const QStringList all = {"10\u207b\u2076",
                             "10\u207b\u2075",
                             "10\u207b\u2074",
                             "10\u207b\u00b3",
                             "10\u207b\u00b2",
                             "10\u207b\u00b9",
                             "1"};
    QCOMPARE(view.scaleTickTexts(), all);
    // A short map keeps the ends and no more labels than a line and a half
    // apart fit along its bar.
    view.resize(700, 160);
    const QStringList shortTicks = view.scaleTickTexts();
    QCOMPARE(shortTicks.first(), all.first());
    QCOMPARE(shortTicks.last(), all.last());
    const int lineH = view.fontMetrics().height();
    QVERIFY2(shortTicks.size() < all.size(), qPrintable(shortTicks.join(' ')));
    QVERIFY2((shortTicks.size() - 1) * 1.5 * lineH <= view.cellsArea().height() + 1.5 * lineH,
             qPrintable(shortTicks.join(' ')));
}

void TestHeatmapView::zoomShowsABlockWithFittingLabels()
{
    // 2000 x 2000 cells in 600 px: every label cannot fit, so they are
    // thinned; zoomed to a 10 x 10 block every one of its labels is drawn whole.
    const int n = 2000;
    HeatmapView view;
    view.resize(600, 600);
    view.setData(waveMatrix(n, n), numbered("tok", n), numbered("tok", n));
    QVERIFY(!view.isZoomed());
    QVERIFY(view.shownColumnLabels().size() < 100);
    view.setShownBlock(QRect(1500, 700, 10, 10));
    QVERIFY(view.isZoomed());
    QCOMPARE(view.shownBlock(), QRect(1500, 700, 10, 10));
    QCOMPARE(view.shownColumnLabels(), numbered("tok", 1510).mid(1500));
    QVERIFY(view.cellTextVisible());  // the numbers fit in cells that large
    // The cells of the block fill the cells' area; others are not shown.
    QCOMPARE(view.cellRect(700, 1500).topLeft(), view.cellsArea().topLeft());
    QCOMPARE(view.cellRect(709, 1509).bottomRight(), view.cellsArea().bottomRight());
    QVERIFY(view.cellRect(699, 1500).isNull());
    // The block is kept inside the map and the caption says what is shown.
    view.setShownBlock(QRect(1995, -5, 10, 10));
    QCOMPARE(view.shownBlock(), QRect(1990, 0, 10, 10));
    view.resetZoom();
    QCOMPARE(view.shownBlock(), QRect(0, 0, n, n));
}

void TestHeatmapView::zoomKeepsHoverAndClick()
{
    HeatmapView view;
    view.resize(500, 500);
    view.setData(waveMatrix(300, 300), numbered("t", 300), numbered("t", 300));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setShownBlock(QRect(200, 100, 8, 8));
    const QRect cell = view.cellRect(103, 205);
    QVERIFY(!cell.isEmpty());
    int row = -1, col = -1;
    QVERIFY(view.cellAt(cell.center(), &row, &col));
    QCOMPARE(row, 103);
    QCOMPARE(col, 205);
    QSignalSpy clicked(&view, &HeatmapView::rowClicked);
    QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, cell.center());
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked.first().first().toInt(), 103);
    QHelpEvent help(QEvent::ToolTip, cell.center(), view.mapToGlobal(cell.center()));
    QApplication::sendEvent(&view, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().startsWith(QStringLiteral("t103, t205: ")), qPrintable(QToolTip::text()));
    QToolTip::hideText();
    // Focusing a row outside the block pans to it.
    view.setFocusRow(250);
    QVERIFY(view.shownBlock().contains(QPoint(view.shownBlock().left(), 250)));
}

void TestHeatmapView::zoomByKeysWheelAndDrag()
{
    HeatmapView view;
    view.resize(500, 500);
    view.setData(waveMatrix(400, 400), numbered("t", 400), numbered("t", 400));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTest::keyClick(&view, Qt::Key_Plus);
    QVERIFY(view.isZoomed());
    const QRect once = view.shownBlock();
    QCOMPARE(once.width(), 267);  // 400 / 1.5
    QCOMPARE(once.center().x(), 200);
    QTest::keyClick(&view, Qt::Key_Right);
    QCOMPARE(view.shownBlock().left(), once.left() + once.width() / 8);
    QTest::keyClick(&view, Qt::Key_Down, Qt::ShiftModifier);
    QCOMPARE(view.shownBlock().top(), once.top() + once.height() / 8);
    QTest::keyClick(&view, Qt::Key_0);
    QVERIFY(!view.isZoomed());
    // Ctrl+wheel over a cell zooms in about that cell: it stays under the pointer.
    const QPoint at = view.cellRect(50, 300).center();
    QWheelEvent wheel(at, view.mapToGlobal(at), QPoint(), QPoint(0, 360), Qt::NoButton, Qt::ControlModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &wheel);
    QVERIFY(view.isZoomed());
    QCOMPARE(view.shownBlock().width(), int(std::lround(400 / std::pow(1.25, 3))));
    int row = -1, col = -1;
    QVERIFY(view.cellAt(at, &row, &col));
    QVERIFY2(std::abs(row - 50) <= 1 && std::abs(col - 300) <= 1,
             qPrintable(QStringLiteral("%1 %2").arg(row).arg(col)));
    // A drag moves the block with the pointer and clicks no row.
    QSignalSpy clicked(&view, &HeatmapView::rowClicked);
    const QRect before = view.shownBlock();
    const QPoint start = view.cellsArea().center();
    QTest::mousePress(&view, Qt::LeftButton, Qt::NoModifier, start);
    QMouseEvent move(QEvent::MouseMove, QPointF(start - QPoint(100, 0)),
                     view.mapToGlobal(QPointF(start - QPoint(100, 0))), Qt::NoButton, Qt::LeftButton,
                     Qt::NoModifier);
    QApplication::sendEvent(&view, &move);
    QTest::mouseRelease(&view, Qt::LeftButton, Qt::NoModifier, start - QPoint(100, 0));
    QCOMPARE(clicked.size(), 0);
    QVERIFY2(view.shownBlock().left() > before.left(), qPrintable(QString::number(view.shownBlock().left())));
    QCOMPARE(view.shownBlock().top(), before.top());
    // A plain wheel pans the zoomed map down.
    const QPoint centre = view.cellsArea().center();
    QWheelEvent down(centre, view.mapToGlobal(centre), QPoint(), QPoint(0, -120), Qt::NoButton,
                     Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &down);
    QCOMPARE(view.shownBlock().top(), before.top() + std::max(1, before.height() / 8));
}

namespace {

// Counts the cells read by sample().
class CountingCells : public attnlab::CellSource {
public:
    explicit CountingCells(attn::Matrix m) : m_(std::move(m)) {}
    int rows() const override { return int(m_.rows()); }
    int cols() const override { return int(m_.cols()); }
    double value(int r, int c) const override { return m_(r, c); }
    void sample(const std::vector<int>& rowAt, const std::vector<int>& colAt, double* out) const override
    {
        for (const int r : rowAt)
            for (const int c : colAt) {
                minRow = std::min(minRow, r);
                maxRow = std::max(maxRow, r);
                minCol = std::min(minCol, c);
                maxCol = std::max(maxCol, c);
                *out++ = m_(r, c);
            }
    }
    mutable int minRow = 1 << 30, maxRow = -1, minCol = 1 << 30, maxCol = -1;

private:
    attn::Matrix m_;
};

}  // namespace

void TestHeatmapView::zoomedPictureReadsOnlyTheBlock()
{
    const int n = 3000;
    auto cells = std::make_shared<CountingCells>(waveMatrix(n, n));
    HeatmapView view;
    view.resize(700, 700);
    view.setCells(cells, numbered("t", n), numbered("t", n));
    view.setShownBlock(QRect(1000, 2000, 600, 500));
    QVERIFY(view.cellImageMode());
    const QImage image = view.renderImage(view.size());
    QVERIFY(cells->minRow >= 2000 && cells->maxRow < 2500);
    QVERIFY(cells->minCol >= 1000 && cells->maxCol < 1600);
    // The picture shows the block's own cells.
    const QRect cell = view.cellsArea();
    int row = -1, col = -1;
    QVERIFY(view.cellAt(cell.center(), &row, &col));
    QCOMPARE(QColor::fromRgb(image.pixel(cell.center())), view.colorFor(waveMatrix(n, n)(row, col)));
}

void TestHeatmapView::wideVectorStaysLegible()
{
    // The focused query's q at d_k 1024 in a strip 58 px tall: the cells
    // keep a visible height, the dimension labels are thinned so that they
    // never touch, and the colour bar's ends share one line.
    HeatmapView view;
    attn::Matrix q(1, 1024);
    for (int c = 0; c < 1024; ++c)
        q(0, c) = std::sin(0.1 * c);
    QStringList dims;
    for (int c = 1; c <= 1024; ++c)
        dims << QString::number(c);
    view.setData(q, {"cat"}, dims);
    view.setRange(-1.0, 1.0);
    view.resize(420, 58);
    const int lineH = view.fontMetrics().height();
    QVERIFY2(view.cellsArea().height() >= lineH / 2, qPrintable(QString::number(view.cellsArea().height())));
    const QStringList shown = view.shownColumnLabels();
    QVERIFY(shown.size() >= 2);
    int widths = 0;
    for (const QString& label : shown)
        widths += view.fontMetrics().horizontalAdvance(label);
    QVERIFY2(widths + (shown.size() - 1) * lineH / 2 <= view.cellsArea().width() + lineH,
             qPrintable(shown.join(' ')));
    QCOMPARE(view.scaleTickTexts(), QStringList{QStringLiteral("-1.00 … 1.00")});
    // Zoomed in, the strip shows a block of dimensions, labelled from its first.
    view.setShownBlock(QRect(100, 0, 12, 1));
    const QStringList zoomed = view.shownColumnLabels();
    QVERIFY2(zoomed.size() >= 2 && zoomed.first() == QStringLiteral("101"), qPrintable(zoomed.join(' ')));
    for (const QString& label : zoomed)
        QVERIFY2(dims.mid(100, 12).contains(label), qPrintable(label));
}
