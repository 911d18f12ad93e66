// SPDX-License-Identifier: GPL-3.0-or-later
// A GPT-2 head shown in the window's pipeline (real widgets, offscreen):
// the tiny reference checkpoint, the lesson sentence; a click on layer 2,
// head 3 makes it the lab's head (the Model tab stays in front), equal to
// attn::gpt2Head, the notice saying what X is, d_k = head_dim in the
// parameters, X's last column labelled the bias; the Model tab's button
// shows the pipeline; Enter on the keyboard-selected tile shows another
// head; a new sentence typed follows the model in one undo step; undo
// back to the lab's own matrices.
#include "gpt2folder.h"
#include "modelsession.h"
#include "documentcontroller.h"
#include "guitest.h"
#include "heatmapview.h"
#include "mainwindow.h"
#include "matrixtablemodel.h"
#include "modelcontroller.h"
#include "modelgridview.h"
#include "modelpanel.h"
#include "noticebar.h"
#include "pipelineview.h"
#include "session.h"
#include "testdata.h"
#include "undorecorder.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QDockWidget>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace attnlab;

namespace {

bool typeSentence(MainWindow& window, const QString& sentence)
{
    ModelSession* session = window.models()->session();
    QSignalSpy changed(session, &ModelSession::resultChanged);
    QLineEdit* edit = guitest::find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    if (!edit)
        return false;
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, sentence);
    return QTest::qWaitFor([&] { return !changed.isEmpty() && !session->isComputing(); }, 10000)
           && session->sentence() == sentence;
}

double relDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    const double size = std::max(1.0, b.size() ? b.cwiseAbs().maxCoeff() : 0.0);
    return testdata::maxAbsDiff(a, b) / size;
}

bool isModelsHead(const Session& lab, const ModelSession& gpt2, int layer, int head)
{
    const attn::Expected<attn::AttentionResult> r =
        attn::gpt2Head(*attnlab::gpt2Weights(*gpt2.model()), *gpt2.result(), layer, head);
    return r && relDiff(lab.published()->shown()->scores, r->scores) <= 1e-12
           && testdata::maxAbsDiff(lab.published()->shown()->weightsMatrix(), r->weightsMatrix()) <= 1e-12
           && relDiff(lab.published()->shown()->context, r->context) <= 1e-12;
}

}  // namespace

class TestWindowBorrow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void clickShowsTheHead();

private:
    QTemporaryDir settingsDir_;
};

void TestWindowBorrow::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestWindowBorrow::clickShowsTheHead()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* gpt2 = models->session();
    Session* lab = window->session();
    QUndoStack* stack = window->documents()->recorder()->stack();
    QSignalSpy opened(gpt2, &ModelSession::modelOpened);
    models->openModel(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2"));
    QVERIFY(opened.wait(10000));
    const QString sentence = QStringLiteral("Jane is going to the cinema to watch a new");
    QVERIFY(typeSentence(*window, sentence));
    QVERIFY(!lab->inputs().borrowed.active());
    const int steps = stack->count();
    ModelPanel* panel = models->panel();
    QTRY_VERIFY(panel->isVisible());

    ModelGridView* grid = panel->grid();
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->tileRect(1, 2).center());
    QVERIFY(lab->inputs().borrowed.active());
    QCOMPARE(lab->inputs().borrowed.layer, 1);
    QCOMPARE(lab->inputs().borrowed.head, 2);
    QVERIFY(isModelsHead(*lab, *gpt2, 1, 2));
    QCOMPARE(lab->published()->tokenCount(), 10);
    QCOMPARE(stack->count(), steps + 1);
    QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Show GPT-2 layer 2, head 3"));
    QCOMPARE(guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"))->currentPage(),
             panel);  // browsing the grid goes on
    QVERIFY2(guitest::find<NoticeBar>(*window, QStringLiteral("noticeBar"))
                 ->text()
                 .startsWith(QStringLiteral("GPT-2 layer 2, head 3 of tiny-gpt2 — X is layer 2's LayerNorm "
                                            "output with a column of ones")),
             qPrintable(guitest::find<NoticeBar>(*window, QStringLiteral("noticeBar"))->text()));
    QCOMPARE(guitest::find<QSpinBox>(*window, QStringLiteral("dKSpin"))->value(), 4);
    QVERIFY(guitest::find<QLabel>(*window, QStringLiteral("initNoteLabel")));
    QCOMPARE(guitest::find<QLabel>(*window, QStringLiteral("initNoteLabel"))->text(),
             QStringLiteral("GPT-2's trained weights, not a draw from the seed."));
    MatrixTableModel* x = guitest::find<MatrixTableModel>(*window, QStringLiteral("matrixModelX"));
    // The lab's docks step aside on the Model tab; a hidden table catches up
    // when it is shown (View > Matrices).
    auto* matricesDock = guitest::find<QDockWidget>(*window, QStringLiteral("matricesDock"));
    QVERIFY(matricesDock && !matricesDock->isVisible());
    matricesDock->toggleViewAction()->trigger();
    matricesDock->raise();
    QTRY_VERIFY(matricesDock->isVisible());
    QTRY_COMPARE(x->columnCount(), 17);
    QCOMPARE(x->headerData(16, Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("bias"));
    QCOMPARE(x->headerData(15, Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("16"));
    QCOMPARE(guitest::find<MatrixTableModel>(*window, QStringLiteral("matrixModelWq"))
                 ->headerData(16, Qt::Vertical, Qt::DisplayRole)
                 .toString(),
             QStringLiteral("bias"));

    QPushButton* show = guitest::find<QPushButton>(*panel, QStringLiteral("modelShowButton"));
    QCOMPARE(show->text(), QStringLiteral("Show layer 2 head 3 in the pipeline"));
    QVERIFY(show->isEnabled());
    show->click();
    QCOMPARE(guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"))
                 ->currentPage()
                 ->isAncestorOf(guitest::find<HeatmapView>(*window, QStringLiteral("rawScoresMap"))),
             true);
    QCOMPARE(stack->count(), steps + 2);  // the same head again, a step that does nothing
    guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"))->showPage(panel);

    // The keyboard: Up selects layer 1, head 3; Enter shows it.
    grid->setFocus();
    QTest::keyClick(grid, Qt::Key_Up);
    QCOMPARE(lab->inputs().borrowed.layer, 1);
    QTest::keyClick(grid, Qt::Key_Return);
    QCOMPARE(lab->inputs().borrowed.layer, 0);
    QCOMPARE(lab->inputs().borrowed.head, 2);
    QVERIFY(isModelsHead(*lab, *gpt2, 0, 2));
    const int shown = stack->count();

    // A new sentence: the same head of the model's pass over it, one step.
    QVERIFY(typeSentence(*window, QStringLiteral("Jane is going to the cinema")));
    QTRY_VERIFY(!lab->inputs().awaitingBorrow);
    QVERIFY(lab->inputs().borrowed.active());
    QCOMPARE(lab->published()->tokenCount(), 6);
    QCOMPARE(lab->inputs().borrowed.head, 2);
    QVERIFY(isModelsHead(*lab, *gpt2, 0, 2));
    QCOMPARE(stack->count(), shown + 1);
    QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Edit the sentence"));

    // Undo back to before the first click: the lab's own matrices.
    while (stack->index() > steps)
        stack->undo();
    QVERIFY(!lab->inputs().borrowed.active());
    QCOMPARE(lab->inputs().config.dModel, 16);
    QVERIFY(guitest::find<NoticeBar>(*window, QStringLiteral("noticeBar"))->text().isEmpty()
            || !guitest::find<NoticeBar>(*window, QStringLiteral("noticeBar"))->isVisible());
}

QTEST_MAIN(TestWindowBorrow)
#include "tst_windowborrow.moc"
