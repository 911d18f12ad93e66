// SPDX-License-Identifier: GPL-3.0-or-later
// The head grid and the heads panel as the user meets them: a click on a
// tile or the arrow keys and Enter pick that head, tooltips and accessible
// text name the heads, the concatenation and the output projection show
// the engine's matrices (the output only when there is one), and the panel
// stays readable at 1024 x 700 with 64 heads.

#include "colormap.h"
#include "headgridview.h"
#include "headresults.h"
#include "headspanel.h"
#include "heatmapview.h"
#include "presentation.h"
#include "guitest.h"

#include <QApplication>
#include <QComboBox>
#include <QFontMetrics>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

using namespace attnlab;

class TestHeadGridView : public QObject {
    Q_OBJECT
private slots:
    void clickPicksTheHead();
    void keyboardPicksTheHead();
    void toolTipsAndAccessibleText();
    void kindChoiceChangesTheTiles();
    void panelShowsConcatAndOutput();
    void panelAtWindowSizeWith64Heads();
};

namespace {

QPoint centre(const QRect& r)
{
    return r.center();
}

}  // namespace

void TestHeadGridView::clickPicksTheHead()
{
    for (const int h : {1, 3, 8}) {
        const headresults::Run run = headresults::article(h);
        HeadGridView grid;
        grid.resize(640, 480);
        grid.setResult(run.result, run.tokens, 0);
        QCOMPARE(grid.tileCount(), h + 1);
        QSignalSpy spy(&grid, &HeadGridView::headActivated);
        for (int i = h - 1; i >= 0; --i) {
            QTest::mouseClick(&grid, Qt::LeftButton, {}, centre(grid.tileMapRect(i)));
            QCOMPARE(spy.count(), 1);
            QCOMPARE(spy.takeFirst().at(0).toInt(), i);
            QCOMPARE(grid.selectedHead(), i);
        }
        // Captions are part of the tile too.
        QTest::mouseClick(&grid, Qt::LeftButton, {}, grid.tileRect(h - 1).topLeft() + QPoint(2, 2));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), h - 1);
        // The average is no head; between tiles nothing happens.
        QTest::mouseClick(&grid, Qt::LeftButton, {}, centre(grid.tileMapRect(h)));
        QTest::mouseClick(&grid, Qt::LeftButton, {}, QPoint(1, 1));
        QCOMPARE(spy.count(), 0);
        QCOMPARE(grid.selectedHead(), h - 1);
    }
}

void TestHeadGridView::keyboardPicksTheHead()
{
    const headresults::Run run = headresults::article(8);
    HeadGridView grid;
    grid.resize(800, 500);
    grid.setResult(run.result, run.tokens, 2);
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    grid.setFocus();
    QVERIFY(grid.hasFocus());
    QCOMPARE(grid.cursorTile(), 2);  // the cursor starts on the selected head
    QSignalSpy spy(&grid, &HeadGridView::headActivated);
    QTest::keyClick(&grid, Qt::Key_Right);
    QCOMPARE(grid.cursorTile(), 3);
    QCOMPARE(spy.count(), 0);  // moving the cursor picks nothing
    QTest::keyClick(&grid, Qt::Key_Return);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toInt(), 3);
    QCOMPARE(grid.selectedHead(), 3);
    // Down goes one row on: the tile below in the layout's columns.
    const int columns = grid.renderer().layout(grid.size()).columns;
    QVERIFY(columns > 1 && columns < 9);
    QTest::keyClick(&grid, Qt::Key_Left);
    QTest::keyClick(&grid, Qt::Key_Down);
    QCOMPARE(grid.cursorTile(), 2 + columns);
    QVERIFY(grid.tileRect(2 + columns).top() > grid.tileRect(2).bottom());
    QCOMPARE(grid.tileRect(2 + columns).left(), grid.tileRect(2).left());
    QTest::keyClick(&grid, Qt::Key_Space);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toInt(), 2 + columns);
    // Up from the first row stays; Home and End reach the ends; Enter on
    // the average picks nothing.
    QTest::keyClick(&grid, Qt::Key_Home);
    QTest::keyClick(&grid, Qt::Key_Up);
    QCOMPARE(grid.cursorTile(), 0);
    QTest::keyClick(&grid, Qt::Key_Left);
    QCOMPARE(grid.cursorTile(), 0);
    QTest::keyClick(&grid, Qt::Key_End);
    QCOMPARE(grid.cursorTile(), 8);
    QTest::keyClick(&grid, Qt::Key_Enter);
    QCOMPARE(spy.count(), 0);
    QTest::keyClick(&grid, Qt::Key_Left);
    QTest::keyClick(&grid, Qt::Key_Enter);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toInt(), 7);
}

void TestHeadGridView::toolTipsAndAccessibleText()
{
    const headresults::Run run = headresults::article(3);
    HeadGridView grid;
    grid.resize(600, 420);
    grid.setResult(run.result, run.tokens, 1);
    QCOMPARE(grid.accessibleName(), QStringLiteral("Head grid"));
    QVERIFY2(grid.accessibleDescription().contains(QStringLiteral("3 heads")),
             qPrintable(grid.accessibleDescription()));
    QVERIFY(grid.accessibleDescription().contains(QStringLiteral("Head 2 is selected")));
    // Cell (query 2, key 4) of head 3, its number as the tooltips print numbers.
    const QRect map = grid.tileMapRect(2);
    const QPoint p(map.left() + int(4.5 * map.width() / 6), map.top() + int(2.5 * map.height() / 6));
    const QString tip = grid.toolTipAt(p);
    QVERIFY2(tip.startsWith(QStringLiteral("head 3\n")), qPrintable(tip));
    QVERIFY2(
        tip.contains(QStringLiteral("query \"%1\" (3), key \"%2\" (5)").arg(run.tokens[2], run.tokens[4])),
        qPrintable(tip));
    const double w = run.result->heads[2].weights(2, 4);
    QVERIFY2(tip.contains(QStringLiteral("attention weights: ") + formatForDisplay(w)), qPrintable(tip));
    const QRect avg = grid.tileMapRect(3);
    const QString avgTip = grid.toolTipAt(avg.topLeft() + QPoint(1, 1));
    QVERIFY2(avgTip.startsWith(QStringLiteral("average of 3 heads\n")), qPrintable(avgTip));
    QVERIFY(avgTip.contains(QStringLiteral("mean weight: ")
                            + formatForDisplay(run.result->weightsAverage(0, 0))));
    QVERIFY(grid.toolTipAt(QPoint(0, 0)).isEmpty());
}

void TestHeadGridView::kindChoiceChangesTheTiles()
{
    const headresults::Run run = headresults::article(3);
    HeadsPanel panel;
    panel.resize(1000, 650);
    panel.setResult(run.result, run.tokens, 0);
    auto* kind = panel.findChild<QComboBox*>(QStringLiteral("headKind"));
    QVERIFY(kind);
    QCOMPARE(panel.grid()->kind(), HeadMapKind::Weights);
    kind->setCurrentIndex(1);
    QCOMPARE(panel.grid()->kind(), HeadMapKind::Scores);
    QCOMPARE(panel.grid()->renderer().value(1, 3, 2), run.result->heads[1].scores(3, 2));
    kind->setCurrentIndex(2);
    QCOMPARE(panel.grid()->renderer().value(1, 3, 2), run.result->heads[1].scaled(3, 2));
    QVERIFY(panel.grid()->accessibleDescription().contains(QStringLiteral("scaled scores")));
    panel.setKind(HeadMapKind::Weights);
    QCOMPARE(kind->currentIndex(), 0);
    QCOMPARE(panel.grid()->renderer().value(1, 3, 2), run.result->heads[1].weights(3, 2));
    // The weights' colour scale follows the pipeline's choice: log 10⁻⁴ … 1
    // at six tokens, the tile's colour that of its weight on it.
    panel.setWeightsScaleMode(WeightsScaleMode::Log);
    QCOMPARE(panel.grid()->renderer().tileMap(0).colorScale(), MapScale::Log);
    const double w = run.result->heads[0].weights(1, 2);
    QCOMPARE(panel.grid()->renderer().cellColor(0, 1, 2),
             QColor(colormap::sequentialLogRgb(w, chooseWeightsScale(WeightsScaleMode::Log, 6).logLow, 1.0)));
    QSignalSpy spy(&panel, &HeadsPanel::headActivated);
    QTest::mouseClick(panel.grid(), Qt::LeftButton, {}, panel.grid()->tileMapRect(2).center());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toInt(), 2);
}

void TestHeadGridView::panelShowsConcatAndOutput()
{
    const headresults::Run plain = headresults::article(3);
    HeadsPanel panel;
    panel.resize(1024, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setResult(plain.result, plain.tokens, 0);
    auto* concat = guitest::find<HeatmapView>(panel, QStringLiteral("concatMap"));
    QCOMPARE(concat->values(), plain.result->concat);
    QCOMPARE(concat->columnCount(), 3 * 28);
    QCOMPARE(concat->columnLabels().value(28), QStringLiteral("h2:1"));
    QVERIFY(concat->title().startsWith(QStringLiteral("concat = [Z_1 | … | Z_3]")));
    QVERIFY(!panel.outputView()->isVisible());

    const headresults::Run projected = headresults::article(3, true);
    QVERIFY(projected.result->hasOutput());
    panel.setResult(projected.result, projected.tokens, 1);
    QVERIFY(panel.outputView()->isVisible());
    QCOMPARE(panel.outputView()->values(), projected.result->output);
    QVERIFY(panel.outputView()->title().startsWith(QStringLiteral("output = concat · W_o")));
    QCOMPARE(panel.selectedHead(), 1);
    // Back to one head: nothing to show.
    panel.setResult(nullptr, {}, -1);
    QCOMPARE(panel.grid()->tileCount(), 0);
    QCOMPARE(concat->rowCount(), 0);
    QVERIFY(!panel.outputView()->isVisible());
}

void TestHeadGridView::panelAtWindowSizeWith64Heads()
{
    const headresults::Run run = headresults::sized(12, 64, 16, 4, 2);
    HeadsPanel panel;
    panel.resize(1024, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setResult(run.result, run.tokens, 5);
    QCoreApplication::processEvents();
    HeadGridView* grid = panel.grid();
    QCOMPARE(grid->tileCount(), 65);
    const QRect inside(QPoint(0, 0), grid->size());
    const QFontMetrics fm(grid->font());
    for (int i = 0; i < 65; ++i) {
        const QRect map = grid->tileMapRect(i);
        QVERIFY(inside.contains(grid->tileRect(i)));
        // Tiles shrink but stay maps one can point at: at least 2 px a token.
        QVERIFY2(map.width() >= 2 * 12, qPrintable(QString::number(map.width())));
        // Captions fit their tiles (shortened, never overflowing).
        QVERIFY(fm.horizontalAdvance(grid->renderer().tileCaption(i, map.width())) <= map.width());
    }
    QVERIFY(!grid->renderer().tileCaption(63, grid->tileMapRect(63).width()).isEmpty());
    const QImage shot = panel.grab().toImage();
    QVERIFY(!shot.isNull());
    shot.save(QStringLiteral("/tmp/g16/headspanel_h64.png"));
    const headresults::Run three = headresults::article(3, true);
    panel.setResult(three.result, three.tokens, 1);
    QCoreApplication::processEvents();
    panel.grab().toImage().save(QStringLiteral("/tmp/g16/headspanel_h3.png"));
}

QTEST_MAIN(TestHeadGridView)
#include "tst_headgridview.moc"
