// SPDX-License-Identifier: GPL-3.0-or-later
// The real program given files that are not regular files or that would cost
// more than their size: /dev/zero, a FIFO nobody writes to, a valid .npy and
// an endless stream through a pipe (its standard input), 20 MB of nested
// empty arrays as a lab. Each run ends within a bound (no hang), exits 2
// with one line naming the file and what is wrong, and writes nothing; the
// valid pipe is read and saved.

#include "labfile.h"
#include "npy.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray err;
};

// The program with `arguments`, `input` on its standard input (a pipe), at
// most 20 s: a hang fails the test instead of stalling it.
Run runApp(const QStringList& arguments, const QByteArray& input = {})
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(ATTNLAB_EXE), arguments);
    Run run;
    if (!process.waitForStarted(5000))
        return run;
    if (!input.isEmpty())
        process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(20000)) {
        process.kill();
        process.waitForFinished(5000);
        run.err = "(killed after 20 s)";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    run.err = process.readAllStandardError();
    return run;
}

}  // namespace

class TestHostileFiles : public QObject {
    Q_OBJECT
private slots:
    void refusedWithOneLine_data();
    void refusedWithOneLine();
    void npyThroughAPipeIsRead();
};

void TestHostileFiles::refusedWithOneLine_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("message");
    QTest::newRow("--x /dev/zero")
        << QStringList{"--x", "/dev/zero"} << QByteArray()
        << "attention-lab: --x: zero: a device, not a file; only regular files and "
           "pipes can be read\n";
    QTest::newRow("--open /dev/zero")
        << QStringList{"--open", "/dev/zero"} << QByteArray()
        << "attention-lab: --open: zero: a device, not a file; only regular files "
           "and pipes can be read\n";
    QTest::newRow("--x FIFO without writer")
        << QStringList{"--x", "FIFO"} << QByteArray()
        << "attention-lab: --x: fifo.npy: nothing came through the pipe (no program was writing to it)\n";
    QTest::newRow("--open FIFO without writer")
        << QStringList{"--open", "FIFO"} << QByteArray()
        << "attention-lab: --open: fifo.npy: nothing came through the pipe (no program was writing to it)\n";
    // 40 MiB of zeros on standard input: cut at the 32 MiB cap (+ header) while reading.
    QTest::newRow("--x endless pipe")
        << QStringList{"--x", "/dev/stdin"} << QByteArray(40 << 20, '\0')
        << "attention-lab: --x: stdin: more than 32 MiB came through the pipe; that is larger than any .npy "
           "matrix can be (at most 32 MiB)\n";
    QByteArray nested = "[";
    while (nested.size() < (20 << 20))
        nested += "[],";
    nested += "[]]";
    QTest::newRow("--open 20 MB of nested empty arrays")
        << QStringList{"--open", "/dev/stdin"} << nested
        << "attention-lab: --open: stdin: not a readable lab file: line 1, column 1572863: more than 524288 "
           "values, "
           "more than any file this program reads can hold\n";
}

void TestHostileFiles::refusedWithOneLine()
{
    QFETCH(QStringList, arguments);
    QFETCH(QByteArray, input);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString fifo = dir.filePath(QStringLiteral("fifo.npy"));
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
    arguments.replaceInStrings(QStringLiteral("FIFO"), fifo);
    const QString saved = dir.filePath(QStringLiteral("out.attnlab"));
    const Run run = runApp(arguments + QStringList{"--save", saved}, input);
    QVERIFY2(run.exitCode == 2, run.err.constData());
    QCOMPARE(QString::fromUtf8(run.err), message);
    QVERIFY(!QFile::exists(saved));
}

// Once refused with "the file has -128 bytes": a pipe's size asked for.
void TestHostileFiles::npyThroughAPipeIsRead()
{
    attn::Matrix X(6, 16);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 16; ++j)
            X(i, j) = 0.25 * i - 0.125 * j;
    const std::string bytes = attnlab::npyBytes(X);
    QTemporaryDir dir;
    const QString saved = dir.filePath(QStringLiteral("out.attnlab"));
    const Run run =
        runApp({"--x", "/dev/stdin", "--save", saved}, QByteArray(bytes.data(), qsizetype(bytes.size())));
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const auto lab = attnlab::readLabFile(saved);
    QVERIFY2(lab, lab ? "" : lab.error().message.c_str());
    QVERIFY(lab->X == X);
}

QTEST_GUILESS_MAIN(TestHostileFiles)
#include "tst_hostilefiles.moc"
