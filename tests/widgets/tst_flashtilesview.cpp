// SPDX-License-Identifier: GPL-3.0-or-later
// The Flash tiles tab (flashtilesview.h) driven by its controls' names: it
// walks the session's shown head, its buttons and keys move the walk, the
// blocks' spin boxes remake it, and the end line shows the difference the
// walk computed, which is core's flashAttention on the head against the
// lab's context, computed here.
#include "flashtilesview.h"

#include "flash_tiles.h"
#include "flashwalk.h"
#include "guitest.h"
#include "session.h"

#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QtTest>

using namespace attnlab;
using guitest::find;

class TestFlashTilesView : public QObject {
    Q_OBJECT
private slots:
    void walksTheLabsHead();
};

void TestFlashTilesView::walksTheLabsHead()
{
    Session session;
    FlashTilesView view(&session);
    view.resize(1000, 420);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    FlashWalk* walk = view.walk();
    QVERIFY(walk->ready());
    QCOMPARE(walk->result(), session.shownResult());
    auto* text = find<QLabel>(view, QStringLiteral("flashStepText"));
    QVERIFY2(text->text().startsWith(QStringLiteral("Step 1 of 6: queries 0")), qPrintable(text->text()));

    QTest::mouseClick(find<QPushButton>(view, QStringLiteral("flashStep")), Qt::LeftButton);
    QCOMPARE(walk->current(), 1);
    QVERIFY2(text->text().startsWith(QStringLiteral("Step 2 of 6")), qPrintable(text->text()));
    QTest::mouseClick(find<QPushButton>(view, QStringLiteral("flashBack")), Qt::LeftButton);
    QCOMPARE(walk->current(), 0);
    // Keys on the map.
    QWidget* canvas = find<QWidget>(view, QStringLiteral("flashTilesCanvas"));
    canvas->setFocus();
    QTest::keyClick(canvas, Qt::Key_End);
    QCOMPARE(walk->current(), 5);
    QTest::keyClick(canvas, Qt::Key_Left);
    QCOMPARE(walk->current(), 4);
    QTest::keyClick(canvas, Qt::Key_Home);
    QCOMPARE(walk->current(), 0);

    // At the end the line shows the difference, computed here from core's pass.
    QTest::mouseClick(find<QPushButton>(view, QStringLiteral("flashLast")), Qt::LeftButton);
    const std::shared_ptr<const attn::AttentionResult> head = session.shownResult();
    const attn::Expected<attn::Matrix> tiled =
        attn::flashAttention(head->Q, head->K, head->V, head->divisor, attn::AttentionMask::none(), 2, 3);
    QVERIFY(tiled);
    const double difference = attn::maxAbsDifference(tiled.value(), head->context);
    QVERIFY(difference < 1e-12);
    QCOMPARE(find<QLabel>(view, QStringLiteral("flashEndText"))->text(),
             QStringLiteral("O / l equals the lab's context: largest difference %1")
                 .arg(FlashWalk::differenceText(difference)));
    QVERIFY(
        find<QLabel>(view, QStringLiteral("flashMemoryText"))->text().contains(QStringLiteral("288 bytes")));

    // Play from the end starts again; the button follows.
    auto* play = find<QPushButton>(view, QStringLiteral("flashPlay"));
    QTest::mouseClick(play, Qt::LeftButton);
    QVERIFY(walk->playing());
    QCOMPARE(walk->current(), 0);
    QVERIFY(play->isChecked());
    QTest::mouseClick(play, Qt::LeftButton);
    QVERIFY(!walk->playing());

    // The blocks: 3 x 2 tiles, 2 x 3 steps.
    auto* rows = find<QSpinBox>(view, QStringLiteral("flashBlockRows"));
    auto* cols = find<QSpinBox>(view, QStringLiteral("flashBlockCols"));
    QCOMPARE(rows->maximum(), 6);
    rows->setValue(3);
    cols->setValue(2);
    QCOMPARE(walk->blockRows(), 3);
    QCOMPARE(walk->blockCols(), 2);
    QCOMPARE(walk->stepCount(), 6);
    QCOMPARE(walk->keyBlocks(), 3);

    // The lab changes: the view follows, keeping its blocks and the step.
    walk->setCurrent(2);
    session.setCausal(true);
    QCOMPARE(walk->result(), session.shownResult());
    QCOMPARE(walk->mask(), attn::AttentionMask::causal());
    QCOMPARE(walk->current(), 2);
    QVERIFY(walk->tileSkipped(0, 2));
    view.grab();  // paints with skipped tiles
}

QTEST_MAIN(TestFlashTilesView)
#include "tst_flashtilesview.moc"
