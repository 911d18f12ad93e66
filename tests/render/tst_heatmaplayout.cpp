// SPDX-License-Identifier: GPL-3.0-or-later
// HeatmapLayout on plain inputs: a 16-pixel line (pad 4, margin 8), "M" 10
// pixels wide, row labels 30 and column labels 20 pixels wide, colour-bar
// numbers 24 pixels wide. Every expected rectangle is worked out by hand
// from the rules in heatmaplayout.cpp; the comments give the sums.

#include "heatmaplayout.h"
#include "heatmapnavigation.h"

#include <QTest>

using attnlab::draggedBlock;
using attnlab::HeatmapLayout;
using attnlab::HeatmapLayoutInput;
using attnlab::keyPan;
using attnlab::wheelPan;
using attnlab::zoomedBlock;

namespace {

HeatmapLayoutInput input(QSize size, int rows, int cols)
{
    HeatmapLayoutInput in;
    in.size = size;
    in.rows = rows;
    in.cols = cols;
    in.lineHeight = 16;
    in.emWidth = 10;
    in.widestRowLabel = 30;
    in.widestColumnLabel = 20;
    in.widestTickText = 24;
    in.endsTextWidth = 60;
    in.widestCellText = [] { return 28; };
    return in;
}

}  // namespace

class TestHeatmapLayout : public QObject {
    Q_OBJECT
private slots:
    void smallMapPrintsValues();
    void cellGeometry();
    void titleCentredOverTheCells();
    void manyCellsDrawAnImageAndThinTheLabels();
    void longColumnLabelsLieFlatOverEveryFewCells();
    void shortStripPutsTheScaleEndsOnOneLine();
    void captionGetsItsLineClearOfTheFocusOutline();
    void longCaptionWrapsOntoASecondLine();
    void emptyMapHasOnlyATitle();
    void smallerNumbersFitShorterCells();
    void compactLayoutGivesTheCellsTheWidth();
    void compactMapsShareTheirRows();
    void zoomKeepsTheAnchorCellInPlace();
    void dragWheelAndKeysPanByHandWorkedSteps();
};

void TestHeatmapLayout::smallMapPrintsValues()
{
    int cellTextAsked = 0;
    HeatmapLayoutInput in = input({400, 300}, 4, 4);
    in.widestCellText = [&cellTextAsked] {
        ++cellTextAsked;
        return 28;
    };
    const HeatmapLayout l = HeatmapLayout::compute(in);
    // Scale: gap 16 + bar 12 + tick 4 + 8 + numbers 24 = 64. Row labels
    // 30 + gap (4 + outline 4) = 38. Cells at most 400 - 16 - 38 - 64 = 282
    // wide; flat column labels 16 + 8 = 24 tall, so 300 - 8 - 24 - 8 = 260 high.
    QCOMPARE(l.cells, QRect(46, 32, 282, 260));
    QCOMPARE(l.rowLabels, QRect(8, 32, 38, 260));
    QCOMPARE(l.columnLabels, QRect(46, 8, 282, 24));
    QCOMPARE(l.scaleBar, QRect(344, 32, 12, 260));  // 46 + 282 + 16
    QCOMPARE(l.tickTextLeft, 368);                  // 344 + 12 + 4 + 8
    QCOMPARE(l.rowLabelWidth, 30);
    QCOMPARE(l.labelGap, 8);
    QVERIFY(!l.rotatedColumns);
    QCOMPARE(l.rowLabelStep, 1);
    QCOMPARE(l.columnLabelStep, 1);
    // 70 x 65 cells hold "0.00"-wide text (28 + 2 pad) and are drawn one by one.
    QVERIFY(l.cellText);
    QVERIFY(!l.imageMode);
    QCOMPARE(cellTextAsked, 1);
    QCOMPARE(l.scaleTicks, 5);  // 260 >= 6 lines
    QVERIFY(!l.endsOnOneLine);
    QVERIFY(l.caption.isNull());
    QVERIFY(l.title.isNull());
}

void TestHeatmapLayout::cellGeometry()
{
    const HeatmapLayout l = HeatmapLayout::compute(input({400, 300}, 4, 4));
    // Column 2 spans [46 + round(2 * 282 / 4), 46 + round(3 * 282 / 4)) =
    // [187, 258); row 1 spans [32 + 65, 32 + 130).
    QCOMPARE(l.cellRect(1, 2), QRect(187, 97, 71, 65));
    QCOMPARE(l.cellRect(0, 0), QRect(46, 32, 71, 65));
    QCOMPARE(l.rowAt(96), 0);
    QCOMPARE(l.rowAt(97), 1);
    QCOMPARE(l.rowAt(291), 3);
    QCOMPARE(l.rowAt(292), -1);
    QCOMPARE(l.columnAt(45), -1);
    QCOMPARE(l.columnAt(186), 1);
    QCOMPARE(l.columnAt(187), 2);
}

void TestHeatmapLayout::titleCentredOverTheCells()
{
    HeatmapLayoutInput in = input({400, 300}, 4, 4);
    in.hasTitle = true;
    in.titleWidth = 100;
    in.titleHeight = 18;
    const HeatmapLayout l = HeatmapLayout::compute(in);
    // Below the title (8 + 18 + 4 = 30) and the labels (24): 300 - 30 - 24 - 8 = 238.
    QCOMPARE(l.cells, QRect(46, 54, 282, 238));
    // Centre of the cells (46 + 327) / 2 = 186, less half the title's 100.
    QCOMPARE(l.title, QRect(136, 8, 100, 18));
}

void TestHeatmapLayout::manyCellsDrawAnImageAndThinTheLabels()
{
    int cellTextAsked = 0;
    HeatmapLayoutInput in = input({400, 300}, 100, 100);
    in.widestCellText = [&cellTextAsked] {
        ++cellTextAsked;
        return 28;
    };
    const HeatmapLayout l = HeatmapLayout::compute(in);
    // 2.82-pixel columns cannot hold a 20-pixel label flat: rotated, 20 + 8
    // tall, cells 300 - 8 - 28 - 8 = 256 high (2.56 a row).
    QVERIFY(l.rotatedColumns);
    QCOMPARE(l.columnLabelWidth, 20);
    QCOMPARE(l.cells, QRect(46, 36, 282, 256));
    // Under 8 pixels a cell: one image, no text, the widest text never measured.
    QVERIFY(l.imageMode);
    QVERIFY(!l.cellText);
    QCOMPARE(cellTextAsked, 0);
    // Labels 1.5 lines (24 px) apart: ceil(24 / 2.56) = 10 rows, ceil(24 / 2.82) = 9 columns.
    QCOMPARE(l.rowLabelStep, 10);
    QCOMPARE(l.columnLabelStep, 9);
    // Row 50 starts at 36 + round(50 * 256 / 100) = 164.
    QCOMPARE(l.cellRect(50, 0).top(), 164);
}

void TestHeatmapLayout::longColumnLabelsLieFlatOverEveryFewCells()
{
    HeatmapLayoutInput in = input({400, 120}, 2, 40);
    in.widestColumnLabel = 40;
    const HeatmapLayout l = HeatmapLayout::compute(in);
    // Rotated they would be elided to a quarter of the height (30 < 40);
    // flat over every ceil((40 + 8) / 7.05) = 7 cells they are whole.
    QVERIFY(!l.rotatedColumns);
    QCOMPARE(l.columnLabelStep, 7);
    QCOMPARE(l.columnLabelWidth, 40);
    // Cells 7.05 wide and at most a line (16) tall: 282 x 32 under 24 of labels.
    QCOMPARE(l.cells, QRect(46, 32, 282, 32));
    QCOMPARE(l.rowLabelStep, 1);
    QVERIFY(l.imageMode);       // 7 pixels wide
    QCOMPARE(l.scaleTicks, 2);  // under three lines
    QVERIFY(!l.endsOnOneLine);
}

void TestHeatmapLayout::shortStripPutsTheScaleEndsOnOneLine()
{
    const HeatmapLayout l = HeatmapLayout::compute(input({400, 60}, 1, 64));
    // The bar would be under two lines: "low … high" (60) on one line, so the
    // scale takes 16 + 12 + 4 + 8 + 60 = 100 and the cells 400 - 16 - 38 - 100 = 246.
    QVERIFY(l.endsOnOneLine);
    QCOMPARE(l.cells, QRect(46, 32, 246, 16));
    QCOMPARE(l.scaleBar, QRect(308, 32, 12, 16));
    QCOMPARE(l.tickTextLeft, 332);
    QCOMPARE(l.columnLabelStep, 8);  // ceil((20 + 8) / 3.84)
}

void TestHeatmapLayout::captionGetsItsLineClearOfTheFocusOutline()
{
    HeatmapLayoutInput in = input({400, 300}, 4, 4);
    in.hasCaption = true;
    in.captionWidth = 300;
    const HeatmapLayout l = HeatmapLayout::compute(in);
    // One line and a gap of 5 (the 4-pixel focus outline and a pixel):
    // cells 300 - 8 - 24 - 21 - 8 = 239 high, the caption right under them,
    // ending at the bottom margin.
    QCOMPARE(l.captionLines, 1);
    QCOMPARE(l.cells, QRect(46, 32, 282, 239));
    QCOMPARE(l.caption, QRect(8, 276, 384, 16));
    QVERIFY(l.caption.top() > l.cells.bottom() + HeatmapLayout::kFocusOutline);
    QCOMPARE(l.caption.bottom() + 1, 300 - 8);
}

void TestHeatmapLayout::longCaptionWrapsOntoASecondLine()
{
    HeatmapLayoutInput in = input({400, 300}, 4, 4);
    in.hasCaption = true;
    in.captionWidth = 500;  // wider than the 384 between the margins
    const HeatmapLayout l = HeatmapLayout::compute(in);
    QCOMPARE(l.captionLines, 2);
    // Two lines: 300 - 8 - 24 - (32 + 5) - 8 = 223.
    QCOMPARE(l.cells, QRect(46, 32, 282, 223));
    QCOMPARE(l.caption, QRect(8, 260, 384, 32));
    QCOMPARE(l.caption.bottom() + 1, 300 - 8);
}

void TestHeatmapLayout::emptyMapHasOnlyATitle()
{
    HeatmapLayoutInput in = input({400, 300}, 0, 0);
    in.hasTitle = true;
    in.titleWidth = 100;
    in.titleHeight = 18;
    const HeatmapLayout l = HeatmapLayout::compute(in);
    QCOMPARE(l.title, QRect(8, 8, 384, 18));
    QVERIFY(l.cells.isNull());
    QVERIFY(l.cellRect(0, 0).isNull());
    QCOMPARE(l.rowAt(100), -1);
}

// Presentation mode: the numbers in a smaller font than the labels need
// cells a line of their own font tall, with their own font's padding.
void TestHeatmapLayout::smallerNumbersFitShorterCells()
{
    HeatmapLayoutInput in = input({400, 300}, 16, 4);
    in.widestCellText = [] { return 20; };
    // Cells 260 / 16 = 16.25 high (below 16 + 2), at most twice as wide:
    // 4 x 32.5 = 130 of the 282, centred.
    QVERIFY(!HeatmapLayout::compute(in).cellText);
    // A 12-pixel line needs 14, and 20 + 2 x 3 = 26 of the width.
    in.cellLineHeight = 12;
    const HeatmapLayout l = HeatmapLayout::compute(in);
    QVERIFY(l.cellText);
    QCOMPARE(l.cells, QRect(122, 32, 130, 260));  // the geometry is the same
}

// The compact layout (a row of maps on a projector): the colour bar under
// the cells, the column labels read upwards, a margin of 5 (the focus
// outline and a pixel), label gaps of 4 + 2.
void TestHeatmapLayout::compactLayoutGivesTheCellsTheWidth()
{
    HeatmapLayoutInput in = input({300, 300}, 5, 7);
    // Usual layout: 300 - 16 - 38 - 64 = 182 for 7 columns, 26 each, under
    // the 28 + 2 x 4 the numbers need.
    QVERIFY(!HeatmapLayout::compute(in).cellText);
    in.compact = true;
    const HeatmapLayout l = HeatmapLayout::compute(in);
    QVERIFY(l.compact);
    // Row labels 30 + 6; column labels 20 + 6 tall, read upwards. Under the
    // cells a gap of 5, the bar 8, ticks 4, numbers 16, a pad of 4 and two
    // caption lines: 69. Cells 300 - 10 - 36 = 254 wide, 300 - 5 - 26 - 69 - 5
    // = 195 high: 36.3 x 39 each.
    QCOMPARE(l.rowLabels, QRect(5, 31, 36, 195));
    QCOMPARE(l.columnLabels, QRect(41, 5, 254, 26));
    QVERIFY(l.rotatedColumns);
    QCOMPARE(l.cells, QRect(41, 31, 254, 195));
    QCOMPARE(l.scaleBar, QRect(41, 231, 254, 8));  // 31 + 195 + 5
    QCOMPARE(l.tickTextLeft, 243);                 // the numbers' top: 231 + 8 + 4
    // 36 pixels hold 28 + 2 x 2.
    QVERIFY(l.cellText);
    QCOMPARE(l.rowLabelStep, 1);
    QCOMPARE(l.columnLabelStep, 1);
    // Five numbers of 24 + 8 side by side: 160 <= 254 + 24.
    QCOMPARE(l.scaleTicks, 5);
    QVERIFY(!l.endsOnOneLine);
    QCOMPARE(l.captionLines, 0);
    QVERIFY(l.caption.isNull());
}

// Maps of one height in a row, one with the row labels and a caption of two
// lines, the others without either: the rows lie at the same heights.
void TestHeatmapLayout::compactMapsShareTheirRows()
{
    HeatmapLayoutInput first = input({300, 300}, 5, 7);
    first.compact = true;
    HeatmapLayoutInput other = first;
    other.compactRowLabels = false;
    other.hasCaption = true;
    other.captionWidth = 400;  // wider than the 290 between the margins
    const HeatmapLayout a = HeatmapLayout::compute(first);
    const HeatmapLayout b = HeatmapLayout::compute(other);
    QCOMPARE(b.rowLabelWidth, 0);
    QCOMPARE(b.rowLabelStep, 0);
    QCOMPARE(b.cells, QRect(5, 31, 290, 195));
    for (int r = 0; r < 5; ++r) {
        QCOMPARE(b.cellRect(r, 0).top(), a.cellRect(r, 0).top());
        QCOMPARE(b.cellRect(r, 0).height(), a.cellRect(r, 0).height());
    }
    // The caption in its two lines kept under the bar's numbers: 243 + 16 + 4.
    QCOMPARE(b.captionLines, 2);
    QCOMPARE(b.caption, QRect(5, 263, 290, 32));
    QCOMPARE(b.caption.bottom() + 1, 300 - 5);
}

void TestHeatmapLayout::zoomKeepsTheAnchorCellInPlace()
{
    // 10 x 10 cells at 2x about cell (2, 2): sides 5; the anchor sat at
    // (2 + 0.5) / 10 = 0.25 of the block, so the new block starts at
    // round(2.5 - 0.25 * 5) = round(1.25) = 1.
    QCOMPARE(zoomedBlock(QRect(0, 0, 10, 10), 10, 10, 2.0, 2, 2), QRect(1, 1, 5, 5));
    // About the centre by default: (5 + 0.5) / 10 of the block -> round(5.5 - 2.75) = 3.
    QCOMPARE(zoomedBlock(QRect(0, 0, 10, 10), 10, 10, 2.0), QRect(3, 3, 5, 5));
    // Out to at most the map, in to at least one cell; a bad factor changes nothing.
    QCOMPARE(zoomedBlock(QRect(3, 3, 5, 5), 10, 10, 0.1).size(), QSize(10, 10));
    QCOMPARE(zoomedBlock(QRect(0, 0, 4, 6), 6, 4, 100.0).size(), QSize(1, 1));
    QCOMPARE(zoomedBlock(QRect(3, 3, 5, 5), 10, 10, 0.0), QRect(3, 3, 5, 5));
    QCOMPARE(zoomedBlock(QRect(3, 3, 5, 5), 0, 10, 2.0), QRect(3, 3, 5, 5));
}

void TestHeatmapLayout::dragWheelAndKeysPanByHandWorkedSteps()
{
    // 8 x 4 cells shown over 160 x 40 px: 20 px a column, 10 px a row; a
    // drag of (+45, -21) px moves the block round(2.25) = 2 columns left
    // and round(2.1) = 2 rows down.
    QCOMPARE(draggedBlock(QRect(10, 10, 8, 4), QPoint(45, -21), QSize(160, 40)), QRect(8, 12, 8, 4));
    // A notch (120) down moves an eighth of 16 rows = 2 rows; Shift moves 2 of 16 columns.
    const QRect block(0, 0, 16, 16);
    QCOMPARE(wheelPan(block, QPoint(0, -120), false), QPoint(0, 2));
    QCOMPARE(wheelPan(block, QPoint(0, 120), true), QPoint(-2, 0));
    // A sideways wheel pans the columns; a small block still moves a cell per
    // notch, and a fraction of a notch at least one cell.
    QCOMPARE(wheelPan(block, QPoint(-240, 0), false), QPoint(4, 0));
    QCOMPARE(wheelPan(QRect(0, 0, 3, 3), QPoint(0, -120), false), QPoint(0, 1));
    QCOMPARE(wheelPan(block, QPoint(0, 15), false), QPoint(0, -1));
    // Keys: an eighth of 40 columns / 24 rows, Page Up/Down the height.
    const QRect wide(0, 0, 40, 24);
    QCOMPARE(keyPan(wide, Qt::Key_Left, false), QPoint(-5, 0));
    QCOMPARE(keyPan(wide, Qt::Key_Right, true), QPoint(5, 0));
    QCOMPARE(keyPan(wide, Qt::Key_Down, true), QPoint(0, 3));
    QCOMPARE(keyPan(wide, Qt::Key_Down, false), QPoint());  // the focused query moves instead
    QCOMPARE(keyPan(wide, Qt::Key_PageUp, false), QPoint(0, -24));
    QCOMPARE(keyPan(wide, Qt::Key_A, false), QPoint());
}

QTEST_APPLESS_MAIN(TestHeatmapLayout)
#include "tst_heatmaplayout.moc"
