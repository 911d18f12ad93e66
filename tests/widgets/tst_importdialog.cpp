// SPDX-License-Identifier: GPL-3.0-or-later
// The import dialog reads its path only once the path stops changing, never
// blocks the window on a FIFO (read on the dialog's own lane, the window
// kept responsive, the read stopped and joined when the dialog goes), and says "Fits" only for what the
// import then takes, naming the CSV's own row and column when it refuses.

#include "guitest.h"
#include "documentcontroller.h"
#include "importdialog.h"
#include "mainwindow.h"
#include "npy.h"
#include "session.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace attnlab;

namespace {

bool okEnabled(const ImportDialog& dialog)
{
    return dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled();
}

attn::Matrix sampleX(const Session& session)
{
    const attn::Matrix& current = session.inputs().matrix(MatrixId::X);
    attn::Matrix m(current.rows(), current.cols());
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            m(i, j) = 0.5 * double(i) - 0.25 * double(j);
    return m;
}

}  // namespace

class TestImportDialog : public QObject {
    Q_OBJECT
private slots:
    void typedPathReadOnceSettled();
    void fifoWithoutWriterDoesNotBlock();
    void fifoReadOffTheGuiThread();
    void closedWhileReadingStopsTheRead();
    void refusalNamesTheCsvCell();
    void fileLabelIsAMnemonic();
    void moduleImportMessageReads();
};

// Each keystroke used to read the path typed so far; now one verdict comes
// after the last keystroke, none before.
void TestImportDialog::typedPathReadOnceSettled()
{
    MainWindow window;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("X.npy"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    const std::string bytes = npyBytes(sampleX(*window.session()));
    file.write(bytes.data(), qint64(bytes.size()));
    file.close();

    ImportDialog dialog(window.session(), &window);
    dialog.setTarget(MatrixId::X);
    QSignalSpy verdict(&dialog, &ImportDialog::verdictChanged);
    auto* edit = guitest::find<QLineEdit>(dialog, QStringLiteral("importPathEdit"));
    QTest::keyClicks(edit, path);
    QCOMPARE(verdict.count(), 0);
    QVERIFY(!okEnabled(dialog));
    QVERIFY(verdict.wait());
    QCOMPARE(verdict.count(), 1);
    QVERIFY2(dialog.message().startsWith(QStringLiteral("Fits: 6 × 16 entries replace X.")),
             qPrintable(dialog.message()));
    QVERIFY(okEnabled(dialog));
}

// A FIFO with no writer: its read returns at once with the readers' message.
void TestImportDialog::fifoWithoutWriterDoesNotBlock()
{
    MainWindow window;
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("X.npy"));
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
    ImportDialog dialog(window.session(), &window);
    QSignalSpy verdict(&dialog, &ImportDialog::verdictChanged);
    dialog.setPath(fifo);
    QVERIFY(verdict.count() == 1 || verdict.wait());
    QCOMPARE(dialog.message(),
             QStringLiteral("X.npy: nothing came through the pipe (no program was writing to it)"));
    QVERIFY(!okEnabled(dialog));
}

// A FIFO whose writer has not written yet blocked the window in the read;
// now the dialog says it is reading, the event loop runs, and the matrix is
// taken when the writer is done.
void TestImportDialog::fifoReadOffTheGuiThread()
{
    MainWindow window;
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("X.npy"));
    const QByteArray name = QFile::encodeName(fifo);
    QVERIFY(::mkfifo(name.constData(), 0600) == 0);
    const int writer = ::open(name.constData(), O_RDWR);  // a writer that does not write yet
    QVERIFY(writer >= 0);
    ImportDialog dialog(window.session(), &window);
    dialog.setTarget(MatrixId::X);
    QSignalSpy verdict(&dialog, &ImportDialog::verdictChanged);
    dialog.setPath(fifo);
    QVERIFY(dialog.reading());
    QCOMPARE(dialog.message(), QStringLiteral("Reading X.npy…"));
    QVERIFY(!okEnabled(dialog));
    // The window answers meanwhile: a queued call runs.
    bool ran = false;
    QMetaObject::invokeMethod(
        &dialog, [&ran] { ran = true; }, Qt::QueuedConnection);
    QTRY_VERIFY_WITH_TIMEOUT(ran, 2000);
    QCOMPARE(verdict.count(), 0);

    const attn::Matrix X = sampleX(*window.session());
    const std::string bytes = npyBytes(X);
    QCOMPARE(::write(writer, bytes.data(), bytes.size()), ssize_t(bytes.size()));
    ::close(writer);
    QVERIFY(verdict.wait());
    QVERIFY(!dialog.reading());
    QVERIFY2(okEnabled(dialog), qPrintable(dialog.message()));
    const attn::Expected<attn::Matrix> read = dialog.matrix();
    QVERIFY(read);
    QVERIFY(read.value() == X);
}

// The read used to run on a detached thread that outlived the dialog while
// the writer kept silent. Now the dialog's end stops the read (it polls its
// stop flag) and joins its lane at once, the writer still silent; a newer
// path stops a read waiting for an older one likewise.
void TestImportDialog::closedWhileReadingStopsTheRead()
{
    MainWindow window;
    QTemporaryDir dir;
    const QByteArray first = QFile::encodeName(dir.filePath(QStringLiteral("A.npy")));
    const QByteArray second = QFile::encodeName(dir.filePath(QStringLiteral("B.npy")));
    QVERIFY(::mkfifo(first.constData(), 0600) == 0);
    QVERIFY(::mkfifo(second.constData(), 0600) == 0);
    const int writerA = ::open(first.constData(), O_RDWR);  // writers that never write
    const int writerB = ::open(second.constData(), O_RDWR);
    QVERIFY(writerA >= 0 && writerB >= 0);
    auto* dialog = new ImportDialog(window.session(), &window);
    dialog->setPath(QFile::decodeName(first));
    QVERIFY(dialog->reading());
    dialog->setPath(QFile::decodeName(second));  // stops A's read, reads B
    QVERIFY(dialog->reading());
    QTest::qWait(50);
    const auto start = std::chrono::steady_clock::now();
    delete dialog;
    const auto took = std::chrono::steady_clock::now() - start;
    QVERIFY2(took < std::chrono::seconds(2), "the dialog waited for a silent writer");
    ::close(writerA);
    ::close(writerB);
}

// Once "Fits" and then refused by the import as "X row 1, column 2": the
// matrix's cell, not the file's. Now the reader refuses it, as both use it.
void TestImportDialog::refusalNamesTheCsvCell()
{
    MainWindow window;
    const attn::Matrix X = sampleX(*window.session());
    std::string text = "token";
    for (Eigen::Index j = 0; j < X.cols(); ++j)
        text += "," + std::to_string(j);
    text += "\n";
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
        text += "t" + std::to_string(i);
        for (Eigen::Index j = 0; j < X.cols(); ++j)
            text += i == 0 && j == 1 ? std::string(",2e30") : "," + std::to_string(X(i, j));
        text += "\n";
    }
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("X.csv"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text.data(), qint64(text.size()));
    file.close();
    ImportDialog dialog(window.session(), &window);
    dialog.setTarget(MatrixId::X);
    dialog.setPath(path);
    const QString expected =
        QStringLiteral("X.csv: CSV row 2, column 3: 2e+30 is too large: at most 1e+30 in magnitude");
    QCOMPARE(dialog.message(), expected);
    QVERIFY(!okEnabled(dialog));
    const attn::Status imported = window.documents()->importMatrix(MatrixId::X, path, false);
    QVERIFY(!imported);
    QCOMPARE(QString::fromStdString(imported.error().message), expected);
}

// "&File:" labels the path (Alt+F), not a literal "&" beside a layout.
void TestImportDialog::fileLabelIsAMnemonic()
{
    MainWindow window;
    ImportDialog dialog(window.session(), &window);
    auto* label = guitest::find<QLabel>(dialog, QStringLiteral("importFileLabel"));
    auto* edit = guitest::find<QLineEdit>(dialog, QStringLiteral("importPathEdit"));
    QCOMPARE(label->buddy(), edit);
    QCOMPARE(label->text(), QStringLiteral("&File:"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    guitest::find<QLineEdit>(dialog, QStringLiteral("importPathEdit"))->clearFocus();
    QTest::keyClick(&dialog, Qt::Key_F, Qt::AltModifier);
    QVERIFY(edit->hasFocus());
}

// Each number where it belongs: the heads, head_dim = d_model / heads, the folder.
void TestImportDialog::moduleImportMessageReads()
{
    QCOMPARE(DocumentController::mhaImportedText(4, 16, QStringLiteral("mha")),
             QStringLiteral("Imported the module's 4 heads (head_dim 4 each) from the folder “mha”."));
    QCOMPARE(DocumentController::mhaImportedText(2, 16, QStringLiteral("4")),
             QStringLiteral("Imported the module's 2 heads (head_dim 8 each) from the folder “4”."));
    QCOMPARE(DocumentController::mhaImportedText(1, 6, QStringLiteral("state")),
             QStringLiteral("Imported the module's one head (head_dim 6) from the folder “state”."));
}

QTEST_MAIN(TestImportDialog)
#include "tst_importdialog.moc"
