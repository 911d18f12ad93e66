// SPDX-License-Identifier: GPL-3.0-or-later
// The user's matrices (imported or typed) survive the changes they do not
// depend on, and are grown or cut visibly by those that change their shape:
// through the session, and through the real import dialog, parameter spin
// box, notice bar and undo of the window.

#include "mainwindow.h"

#include "documentcontroller.h"
#include "guitest.h"
#include "importdialog.h"
#include "model.h"
#include "noticebar.h"
#include "npy.h"
#include "session.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest>

#include <fstream>

using namespace attnlab;

namespace {

// Entries no seed draws: 0.25 (i + 1) - 0.125 j + offset.
attn::Matrix userMatrix(int rows, int cols, double offset = 0.0)
{
    attn::Matrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = 0.25 * (i + 1) - 0.125 * j + offset;
    return m;
}

bool same(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

attn::Model drawn(const attn::ModelConfig& config)
{
    attn::Expected<attn::Model> m = attn::buildModel(config);
    if (!m)
        qFatal("%s", m.error().message.c_str());
    return std::move(m).value();
}

QString writeNpyFile(const QTemporaryDir& dir, const QString& name, const attn::Matrix& m)
{
    const QString path = dir.filePath(name);
    std::ofstream out(path.toStdString(), std::ios::binary);
    writeNpy(out, m);
    return path;
}

}  // namespace

class TestKeptMatrices : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void matricesSurviveChangesTheyDoNotDependOn();
    void growingKeepsUserColumnsAndDrawsTheRest();
    void cuttingDropsOnlyWhatNoLongerFitsAndSaysSo();
    void seedChangeKeepsTypedCells();
    void sentenceChangeKeepsRowsByToken();
    void importOfAnotherWidthSetsTheDimension();
    void importXThenDkThenWThroughTheWindow();
    void noticeBarShowsACutUntilDismissed();

private:
    QTemporaryDir settings_;
};

void TestKeptMatrices::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settings_, QStringLiteral("tst_keptmatrices")));
}

void TestKeptMatrices::matricesSurviveChangesTheyDoNotDependOn()
{
    Session session;
    const attn::Matrix X = userMatrix(6, 16);
    const attn::Matrix Wv = userMatrix(16, 28, 1.0);
    QVERIFY(session.setMatrix(MatrixId::X, X));
    QVERIFY(session.setMatrix(MatrixId::Wv, Wv));
    QSignalSpy notices(&session, &Session::matrixNotice);

    // X and W_v do not depend on d_k: kept exactly, and nothing to say.
    session.setDK(32);
    QVERIFY(session.problem().isEmpty());
    QCOMPARE(session.published()->shown()->Q.cols(), 32);
    QVERIFY(same(session.inputs().matrix(MatrixId::X), X));
    QVERIFY(same(session.inputs().matrix(MatrixId::Wv), Wv));
    attn::ModelConfig c;
    c.dK = 32;
    QVERIFY(same(session.inputs().matrix(MatrixId::Wq), drawn(c).Wq));  // not the user's: the draw
    QCOMPARE(notices.count(), 0);

    // W_q typed by hand does not depend on d_v.
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 2, 3, 4.5));
    const attn::Matrix Wq = session.inputs().matrix(MatrixId::Wq);
    session.setDV(5);
    QVERIFY(same(session.inputs().matrix(MatrixId::X), X));
    QVERIFY(same(session.inputs().matrix(MatrixId::Wq), Wq));
    QCOMPARE(session.inputs().matrix(MatrixId::Wv).cols(), 5);
    QVERIFY(same(session.inputs().matrix(MatrixId::Wv), Wv.leftCols(5)));

    // Scale and mask keep everything.
    session.setScaleMode(attn::ScaleMode::None);
    session.setCausal(true);
    QVERIFY(same(session.inputs().matrix(MatrixId::X), X));
    QVERIFY(same(session.inputs().matrix(MatrixId::Wq), Wq));
    QCOMPARE(session.inputs().editedCells, 6 * 16 + 16 * 5 + 1);
}

void TestKeptMatrices::growingKeepsUserColumnsAndDrawsTheRest()
{
    Session session;
    const attn::Matrix Wq = userMatrix(16, 24);
    QVERIFY(session.setMatrix(MatrixId::Wq, Wq));
    QSignalSpy notices(&session, &Session::matrixNotice);
    session.setDK(32);
    const attn::Matrix& now = session.inputs().matrix(MatrixId::Wq);
    QCOMPARE(now.cols(), 32);
    QVERIFY(same(now.leftCols(24), Wq));
    attn::ModelConfig c;
    c.dK = 32;
    const attn::Model draw = drawn(c);
    QVERIFY(same(now.rightCols(8), draw.Wq.rightCols(8)));
    QVERIFY(same(session.inputs().matrix(MatrixId::Wk), draw.Wk));
    QCOMPARE(notices.count(), 1);
    const QString text = notices.first().first().toString();
    QVERIFY2(text.contains(QStringLiteral("d_k 24 → 32"))
                 && text.contains(QStringLiteral("W_q keeps your 384 cells")),
             qPrintable(text));
    // Back to 24: every cell of the user's is there again, none dropped.
    session.setDK(24);
    QVERIFY(same(session.inputs().matrix(MatrixId::Wq), Wq));
    QCOMPARE(session.inputs().editedCells, 16 * 24);
}

void TestKeptMatrices::cuttingDropsOnlyWhatNoLongerFitsAndSaysSo()
{
    Session session;
    const attn::Matrix Wk = userMatrix(16, 24, -2.0);
    QVERIFY(session.setMatrix(MatrixId::Wk, Wk));
    QSignalSpy notices(&session, &Session::matrixNotice);
    session.setDK(10);
    QVERIFY(same(session.inputs().matrix(MatrixId::Wk), Wk.leftCols(10)));
    QCOMPARE(session.inputs().editedCells, 16 * 10);
    QCOMPARE(notices.count(), 1);
    const QString text = notices.first().first().toString();
    QVERIFY2(
        text.contains(QStringLiteral("W_k keeps 160 of your 384 cells; 224 no longer fit and were dropped"))
            && text.contains(QStringLiteral("Undo")),
        qPrintable(text));

    // d_model cuts the rows of every weight matrix and the columns of X.
    const attn::Matrix X = userMatrix(6, 16, 0.5);
    QVERIFY(session.setMatrix(MatrixId::X, X));
    session.setDModel(12);
    QVERIFY(same(session.inputs().matrix(MatrixId::X), X.leftCols(12)));
    QVERIFY(same(session.inputs().matrix(MatrixId::Wk), Wk.topLeftCorner(12, 10)));
}

void TestKeptMatrices::seedChangeKeepsTypedCells()
{
    Session session;
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 3, 4, 7.0));
    QSignalSpy notices(&session, &Session::matrixNotice);
    session.setSeed(7);
    attn::ModelConfig c;
    c.seed = 7;
    attn::Matrix want = drawn(c).Wq;
    want(3, 4) = 7.0;
    QVERIFY(same(session.inputs().matrix(MatrixId::Wq), want));
    QCOMPARE(session.inputs().editedCells, 1);
    QCOMPARE(notices.count(), 1);
    QVERIFY(notices.first().first().toString().contains(
        QStringLiteral("W_q keeps your 1 cells over the new draw")));
    // Regenerate draws afresh and says nothing of the user's is left.
    session.regenerate();
    QVERIFY(same(session.inputs().matrix(MatrixId::Wq), drawn(c).Wq));
    QCOMPARE(session.inputs().editedCells, 0);
    QCOMPARE(notices.count(), 2);
    QVERIFY(notices.last().first().toString().isEmpty());
}

void TestKeptMatrices::sentenceChangeKeepsRowsByToken()
{
    Session session;
    session.setInit(attn::InitMode::UnitVariance);
    session.setSentence(QStringLiteral("to be or not to be"));
    const attn::Matrix X = userMatrix(6, 16);
    QVERIFY(session.setMatrix(MatrixId::X, X));
    // "to be or not to be" -> "to be or maybe not to be": the user's rows
    // follow their tokens (the second "to" keeps the second "to"'s row).
    session.setSentence(QStringLiteral("to be or maybe not to be"));
    QCOMPARE(session.published()->tokenCount(), 7);
    const attn::Matrix& now = session.inputs().matrix(MatrixId::X);
    const int from[7] = {0, 1, 2, -1, 3, 4, 5};
    attn::ModelConfig c = session.inputs().config;
    const attn::Model draw = drawn(c);
    for (int i = 0; i < 7; ++i) {
        if (from[i] < 0)
            QVERIFY(same(now.row(i), draw.X.row(i)));
        else
            QVERIFY2(same(now.row(i), X.row(from[i])), qPrintable(QString::number(i)));
    }
    QCOMPARE(session.inputs().editedCells, 6 * 16);
}

void TestKeptMatrices::importOfAnotherWidthSetsTheDimension()
{
    Session session;
    const attn::Matrix X = userMatrix(6, 16);
    QVERIFY(session.setMatrix(MatrixId::X, X));
    QSignalSpy notices(&session, &Session::matrixNotice);
    QSignalSpy parameters(&session, &Session::parametersChanged);
    const attn::Matrix Wq = userMatrix(16, 8, 3.0);
    QVERIFY(session.setMatrix(MatrixId::Wq, Wq));
    QCOMPARE(session.inputs().config.dK, 8);
    QVERIFY(parameters.count() >= 1);
    QVERIFY(same(session.inputs().matrix(MatrixId::X), X));
    QVERIFY(same(session.inputs().matrix(MatrixId::Wq), Wq));
    attn::ModelConfig c;
    c.dK = 8;
    QVERIFY(same(session.inputs().matrix(MatrixId::Wk), drawn(c).Wk));
    QCOMPARE(session.published()->shown()->Q.cols(), 8);
    QCOMPARE(notices.count(), 1);
    QVERIFY2(notices.first().first().toString().contains(QStringLiteral("d_k is now 8 (was 24)")),
             qPrintable(notices.first().first().toString()));
    // Rows that do not fit are refused, nothing changed.
    QVERIFY(!session.setMatrix(MatrixId::Wv, userMatrix(12, 28)));
    QVERIFY(!session.setMatrix(MatrixId::X, userMatrix(5, 16)));
    QCOMPARE(session.inputs().config.dK, 8);
    QVERIFY(same(session.inputs().matrix(MatrixId::X), X));
}

void TestKeptMatrices::importXThenDkThenWThroughTheWindow()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    Session* session = window.session();
    const attn::Matrix X = userMatrix(6, 16);
    const attn::Matrix Wq = userMatrix(16, 12, 1.0);
    const QString xPath = writeNpyFile(dir, QStringLiteral("x.npy"), X);
    const QString wPath = writeNpyFile(dir, QStringLiteral("wq.npy"), Wq);

    // Import X through the dialog's widgets.
    {
        ImportDialog dialog(session, &window);
        dialog.setTarget(MatrixId::X);
        auto* path = guitest::find<QLineEdit>(dialog, QStringLiteral("importPathEdit"));
        path->setFocus();
        // The file is read once the typed path settles.
        QSignalSpy verdict(&dialog, &ImportDialog::verdictChanged);
        QTest::keyClicks(path, xPath);
        QVERIFY(verdict.wait());
        QVERIFY(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
        QVERIFY(window.documents()->importMatrix(dialog.target(), dialog.path(), dialog.transpose()));
    }
    QVERIFY(same(session->inputs().matrix(MatrixId::X), X));

    // d_k 24 -> 32 in the spin box, typed.
    QSpinBox* dK = guitest::find<QSpinBox>(window, QStringLiteral("dKSpin"));
    dK->setFocus();
    dK->selectAll();
    QTest::keyClicks(dK, QStringLiteral("32"));
    QTest::keyClick(dK, Qt::Key_Enter);
    QCOMPARE(session->inputs().config.dK, 32);
    QVERIFY(same(session->inputs().matrix(MatrixId::X), X));

    // A W_q 12 wide: the dialog does not refuse it, says d_k becomes 12.
    {
        ImportDialog dialog(session, &window);
        dialog.setTarget(MatrixId::Wq);
        dialog.setPath(wPath);
        auto* message = guitest::find<QLabel>(dialog, QStringLiteral("importMessageLabel"));
        QVERIFY2(message->text().contains(QStringLiteral("d_k becomes 12 (now 32)")),
                 qPrintable(message->text()));
        QVERIFY(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
        QVERIFY(window.documents()->importMatrix(dialog.target(), dialog.path(), dialog.transpose()));
    }
    QCOMPARE(session->inputs().config.dK, 12);
    QCOMPARE(dK->value(), 12);
    QVERIFY(same(session->inputs().matrix(MatrixId::X), X));
    QVERIFY(same(session->inputs().matrix(MatrixId::Wq), Wq));
    auto* notice = guitest::find<NoticeBar>(window, QStringLiteral("noticeBar"));
    QVERIFY(notice->isVisible());
    QVERIFY(notice->text().contains(QStringLiteral("d_k is now 12")));

    // Undo walks back: d_k 32 with X, then d_k 24 with X, then the draw.
    QUndoStack* stack = window.documents()->undoStack();
    stack->undo();
    QCOMPARE(session->inputs().config.dK, 32);
    QCOMPARE(dK->value(), 32);
    QVERIFY(same(session->inputs().matrix(MatrixId::X), X));
    QVERIFY(!notice->isVisible());
    stack->undo();
    QCOMPARE(session->inputs().config.dK, 24);
    QVERIFY(same(session->inputs().matrix(MatrixId::X), X));
    stack->undo();
    QVERIFY(same(session->inputs().matrix(MatrixId::X), drawn(attn::ModelConfig()).X));
    stack->redo();
    stack->redo();
    stack->redo();
    QCOMPARE(session->inputs().config.dK, 12);
    QVERIFY(same(session->inputs().matrix(MatrixId::X), X));
    QVERIFY(same(session->inputs().matrix(MatrixId::Wq), Wq));
}

void TestKeptMatrices::noticeBarShowsACutUntilDismissed()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* notice = guitest::find<NoticeBar>(window, QStringLiteral("noticeBar"));
    QVERIFY(!notice->isVisible());
    const attn::Matrix Wq = userMatrix(16, 24);
    QVERIFY(window.documents()->importMatrix(MatrixId::Wq, writeNpyFile(dir, QStringLiteral("wq.npy"), Wq),
                                             false));
    QSpinBox* dK = guitest::find<QSpinBox>(window, QStringLiteral("dKSpin"));
    dK->setValue(20);
    QVERIFY(notice->isVisible());
    QVERIFY2(notice->text().contains(QStringLiteral("W_q keeps 320 of your 384 cells; 64 no longer fit")),
             qPrintable(notice->text()));
    // Another change that keeps everything leaves the notice up.
    window.session()->setCausal(true);
    QVERIFY(notice->isVisible());
    QTest::mouseClick(guitest::find<QToolButton>(window, QStringLiteral("noticeDismissButton")),
                      Qt::LeftButton);
    QVERIFY(!notice->isVisible());
    // Undo of the cut brings the 64 cells back.
    window.documents()->undoStack()->undo();  // the mask
    window.documents()->undoStack()->undo();  // d_k
    QVERIFY(same(window.session()->inputs().matrix(MatrixId::Wq), Wq));
}

QTEST_MAIN(TestKeptMatrices)
#include "tst_keptmatrices.moc"
