// SPDX-License-Identifier: GPL-3.0-or-later
// Undo and redo in the main window, driven through the real widgets: every
// kind of change (a table cell, typing the sentence, a d_k slider drag, a
// parameter, regenerate, an import) is undone to the exact state before it,
// checked against the engine run on the restored matrices.

#include "mainwindow.h"

#include "attention.h"
#include "documentcontroller.h"
#include "labdocument.h"
#include "matrixtablemodel.h"
#include "model.h"
#include "npy.h"
#include "parameterpanel.h"
#include "undorecorder.h"
#include "guitest.h"

#include <QAction>
#include <QCheckBox>
#include <QLineEdit>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <fstream>

using namespace attnlab;

namespace {

bool sameMatrix(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

// The session shows exactly `want`: parameters, matrices, and the attention
// the engine computes from those matrices.
void verifyState(const Session& s, const LabState& want)
{
    QCOMPARE(s.inputs().config.sentence, want.config.sentence);
    QCOMPARE(s.inputs().config.seed, want.config.seed);
    QCOMPARE(s.inputs().config.dModel, want.config.dModel);
    QCOMPARE(s.inputs().config.dK, want.config.dK);
    QCOMPARE(s.inputs().config.dV, want.config.dV);
    QCOMPARE(s.inputs().config.init, want.config.init);
    QCOMPARE(s.inputs().options.causal, want.options.causal);
    QCOMPARE(s.inputs().options.scale, want.options.scale);
    QVERIFY(s.problem().isEmpty());
    QVERIFY(sameMatrix(s.inputs().matrix(MatrixId::X), want.X));
    QVERIFY(sameMatrix(s.inputs().matrix(MatrixId::Wq), want.Wq));
    QVERIFY(sameMatrix(s.inputs().matrix(MatrixId::Wk), want.Wk));
    QVERIFY(sameMatrix(s.inputs().matrix(MatrixId::Wv), want.Wv));
    const attn::Expected<attn::AttentionResult> r =
        attn::computeAttention(want.X, want.Wq, want.Wk, want.Wv, want.options);
    QVERIFY(r.ok());
    QVERIFY(sameMatrix(s.published()->shown()->weightsMatrix(), r.value().weightsMatrix()));
    QVERIFY(sameMatrix(s.published()->shown()->context, r.value().context));
}

}  // namespace

class TestUndo : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cellEditIsOneStep();
    void typingTheSentenceIsOneStep();
    void dKSliderDragIsOneStep();
    void sliderDragBackToStartLeavesNoStep();
    void parametersAndRegenerate();
    void importIsUndone();
    void shortcutsAndCleanState();

private:
    QTemporaryDir dir_;
};

void TestUndo::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(dir_, QStringLiteral("Attention Lab undo test")));
}

void TestUndo::init()
{
    QSettings().clear();
}

void TestUndo::cellEditIsOneStep()
{
    MainWindow window;
    QUndoStack* stack = window.documents()->undoStack();
    const LabState before = window.session()->inputs().state();
    QCOMPARE(stack->count(), 0);
    MatrixTableModel* wk = guitest::find<MatrixTableModel>(window, QStringLiteral("matrixModelWk"));
    QVERIFY(wk->setData(wk->index(2, 5), QStringLiteral("1.25")));
    QCOMPARE(window.session()->inputs().matrix(MatrixId::Wk)(2, 5), 1.25);
    LabState after = window.session()->inputs().state();
    QCOMPARE(stack->count(), 1);
    QCOMPARE(stack->undoText(), QStringLiteral("Edit W_k(3, 6)"));
    // A refused edit is no step.
    QVERIFY(!wk->setData(wk->index(0, 0), QStringLiteral("not a number")));
    QCOMPARE(stack->count(), 1);

    stack->undo();
    verifyState(*window.session(), before);
    QCOMPARE(window.session()->inputs().editedCells, 0);
    QCOMPARE(wk->data(wk->index(2, 5), Qt::EditRole).toDouble(), before.Wk(2, 5));
    stack->redo();
    verifyState(*window.session(), after);
    QCOMPARE(window.session()->inputs().editedCells, 1);
}

void TestUndo::typingTheSentenceIsOneStep()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QUndoStack* stack = window.documents()->undoStack();
    const LabState before = window.session()->inputs().state();
    QLineEdit* edit = guitest::find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    edit->setFocus();
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("the cat sat"));
    QCOMPARE(window.session()->inputs().config.sentence, std::string("the cat sat"));
    QCOMPARE(stack->count(), 1);
    const LabState typed = window.session()->inputs().state();

    // Return ends the run: the next keystrokes are a step of their own.
    QTest::keyClick(edit, Qt::Key_Return);
    QTest::keyClicks(edit, QStringLiteral(" down"));
    QCOMPARE(stack->count(), 2);
    QCOMPARE(window.session()->inputs().config.sentence, std::string("the cat sat down"));

    stack->undo();
    verifyState(*window.session(), typed);
    QCOMPARE(edit->text(), QStringLiteral("the cat sat"));
    stack->undo();
    verifyState(*window.session(), before);
    QCOMPARE(edit->text(), QString::fromLatin1(attn::kArticleSentence));
    QCOMPARE(window.session()->published()->tokenCount(), 6);
    stack->redo();
    verifyState(*window.session(), typed);
    QCOMPARE(edit->text(), QStringLiteral("the cat sat"));

    // Typing after an undo starts a new step instead of growing the old one.
    stack->undo();
    edit->setFocus();
    edit->end(false);
    QTest::keyClicks(edit, QStringLiteral("!"));
    QCOMPARE(stack->count(), 1);
    QCOMPARE(stack->index(), 1);
    stack->undo();
    verifyState(*window.session(), before);
}

void TestUndo::dKSliderDragIsOneStep()
{
    MainWindow window;
    QUndoStack* stack = window.documents()->undoStack();
    const LabState before = window.session()->inputs().state();
    QSlider* slider = window.findChild<QSlider*>(QStringLiteral("dKSlider"));
    slider->setSliderDown(true);  // sliderPressed
    QVERIFY(window.documents()->recorder()->inGesture());
    const int start = slider->value();
    for (int step = 1; step <= 6; ++step)
        slider->setValue(start + step * std::max(1, (slider->maximum() - start) / 8));
    slider->setSliderDown(false);  // sliderReleased
    QVERIFY(!window.documents()->recorder()->inGesture());
    const int dK = window.session()->inputs().config.dK;
    QVERIFY(dK > before.config.dK);
    QCOMPARE(stack->count(), 1);
    QCOMPARE(stack->undoText(), QStringLiteral("d_k = %1").arg(dK));
    const LabState dragged = window.session()->inputs().state();
    QCOMPARE(dragged.Wq.cols(), dK);

    stack->undo();
    verifyState(*window.session(), before);
    QCOMPARE(window.session()->published()->dK(), 24);
    stack->redo();
    verifyState(*window.session(), dragged);

    // Two separate drags are two steps.
    slider->setSliderDown(true);
    slider->setValue(slider->minimum());
    slider->setSliderDown(false);
    QCOMPARE(stack->count(), 2);
}

void TestUndo::sliderDragBackToStartLeavesNoStep()
{
    MainWindow window;
    QSlider* slider = window.findChild<QSlider*>(QStringLiteral("dKSlider"));
    const int start = slider->value();
    slider->setSliderDown(true);
    slider->setValue(slider->maximum());
    QCOMPARE(window.documents()->undoStack()->count(), 1);
    slider->setValue(start);
    slider->setSliderDown(false);
    QCOMPARE(window.session()->inputs().config.dK, 24);
    QCOMPARE(window.documents()->undoStack()->count(), 0);
}

void TestUndo::parametersAndRegenerate()
{
    MainWindow window;
    QUndoStack* stack = window.documents()->undoStack();
    const LabState s0 = window.session()->inputs().state();

    window.findChild<QSpinBox*>(QStringLiteral("seedSpin"))->setValue(7);
    const LabState s1 = window.session()->inputs().state();
    QCOMPARE(s1.config.seed, std::uint64_t(7));
    window.findChild<QCheckBox*>(QStringLiteral("causalCheck"))->setChecked(true);
    const LabState s2 = window.session()->inputs().state();
    QVERIFY(window.session()->setMatrixCell(MatrixId::X, 0, 0, -3.5));
    const LabState s3 = window.session()->inputs().state();
    window.findChild<QAction*>(QStringLiteral("regenerateAction"))->trigger();
    const LabState s4 = window.session()->inputs().state();
    QCOMPARE(s4.X(0, 0), s2.X(0, 0));
    QCOMPARE(stack->count(), 4);
    QCOMPARE(stack->undoText(), QStringLiteral("Regenerate from the seed"));

    // The reset asks as New does (the lab has unsaved changes); after
    // Discard it is a step too. Cancel leaves everything.
    int asked = 0;
    LabDocument::UnsavedAnswer answer = LabDocument::UnsavedAnswer::Cancel;
    window.documents()->document()->setUnsavedPrompt([&](const QString&) {
        ++asked;
        return answer;
    });
    window.findChild<QAction*>(QStringLiteral("resetAction"))->trigger();
    QCOMPARE(asked, 1);
    QCOMPARE(stack->count(), 4);
    verifyState(*window.session(), s4);
    answer = LabDocument::UnsavedAnswer::Discard;
    window.findChild<QAction*>(QStringLiteral("resetAction"))->trigger();
    QCOMPARE(asked, 2);
    QCOMPARE(stack->count(), 5);
    verifyState(*window.session(), s0);

    const LabState* states[] = {&s4, &s3, &s2, &s1, &s0};
    for (const LabState* want : states) {
        stack->undo();
        verifyState(*window.session(), *want);
    }
    QVERIFY(!stack->canUndo());
    QVERIFY(!window.findChild<QCheckBox*>(QStringLiteral("causalCheck"))->isChecked());
    QCOMPARE(window.findChild<QSpinBox*>(QStringLiteral("seedSpin"))->value(), 123);
    for (const LabState* want : {&s1, &s2, &s3, &s4}) {
        stack->redo();
        verifyState(*window.session(), *want);
    }
    QCOMPARE(window.session()->inputs().editedCells, 0);
    stack->undo();
    QCOMPARE(window.session()->inputs().editedCells, 1);
}

void TestUndo::importIsUndone()
{
    MainWindow window;
    QUndoStack* stack = window.documents()->undoStack();
    const LabState before = window.session()->inputs().state();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    // PyTorch's nn.Linear(d_model, d_k).weight is (d_k, d_model).
    attn::Matrix torchWeight(24, 16);
    for (int i = 0; i < 24; ++i)
        for (int j = 0; j < 16; ++j)
            torchWeight(i, j) = 0.01 * (i - j) + 0.5;
    const QString path = dir.filePath(QStringLiteral("query.npy"));
    {
        std::ofstream out(path.toStdString(), std::ios::binary);
        writeNpy(out, torchWeight);
    }
    const attn::Status refused = window.documents()->importMatrix(MatrixId::Wq, path, false);
    QVERIFY(!refused);
    const QString message = QString::fromStdString(refused.error().message);
    // The rows must be d_model's 16; the width is free (it would set d_k).
    QVERIFY2(message.contains(QStringLiteral("(24, 16)")) && message.contains(QStringLiteral("(16, any)"))
                 && message.contains(QStringLiteral("tick Transpose")),
             qPrintable(message));
    QCOMPARE(stack->count(), 0);
    // X is (6, 16): the weight file does not fit it either way.
    QVERIFY(!window.documents()->importMatrix(MatrixId::X, path, true));

    QVERIFY(window.documents()->importMatrix(MatrixId::Wq, path, true));
    QVERIFY(sameMatrix(window.session()->inputs().matrix(MatrixId::Wq), torchWeight.transpose()));
    QCOMPARE(stack->count(), 1);
    QCOMPARE(stack->undoText(), QStringLiteral("Import W_q from query.npy"));
    QCOMPARE(window.session()->inputs().editedCells, 16 * 24);
    const LabState imported = window.session()->inputs().state();
    stack->undo();
    verifyState(*window.session(), before);
    stack->redo();
    verifyState(*window.session(), imported);
}

void TestUndo::shortcutsAndCleanState()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* undo = window.findChild<QAction*>(QStringLiteral("undoAction"));
    auto* redo = window.findChild<QAction*>(QStringLiteral("redoAction"));
    QVERIFY(undo && redo);
    QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
    QVERIFY(redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
    QVERIFY(!undo->isEnabled());
    QVERIFY(!window.isWindowModified());
    window.session()->setDV(5);
    QVERIFY(undo->isEnabled());
    QVERIFY(window.isWindowModified());
    QTest::keySequence(&window, QKeySequence(Qt::CTRL | Qt::Key_Z));
    QCOMPARE(window.session()->inputs().config.dV, 28);
    QVERIFY(!window.isWindowModified());
    QTest::keySequence(&window, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    QCOMPARE(window.session()->inputs().config.dV, 5);
    QCOMPARE(window.session()->published()->shown()->context.cols(), 5);
}

QTEST_MAIN(TestUndo)
#include "tst_undo.moc"
