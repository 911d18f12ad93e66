// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile command lines on the real program (QProcess on the built
// executable): numbers with signs, blanks, other characters or more digits
// than 64 bits hold, values of a hundred thousand characters, symbolic links
// that cannot be followed as --export-dir, an empty argument and options
// given twice. Each run ends in time with its exit status and exactly one
// line on stderr, and leaves the scratch folder as it was.

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QImageReader>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
    bool finished = false;  // ended by itself, not by a signal or the time limit
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Every run here is refused at once or writes a small export: 30 s is far
// more than any of them takes, and bounds a hang.
Run runApp(const QStringList& arguments, const QString& workingDirectory)
{
    QProcess process;
    process.setWorkingDirectory(workingDirectory);
    process.start(QStringLiteral(ATTNLAB_EXECUTABLE), arguments);
    Run run;
    run.finished = process.waitForFinished(30000) && process.exitStatus() == QProcess::NormalExit;
    if (!run.finished)
        process.kill();
    process.waitForFinished(5000);
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

// Every entry under `dir`, links as links (not followed), with their targets.
QStringList tree(const QString& dir)
{
    QStringList names;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QFileInfo info(path);
        names << QDir(dir).relativeFilePath(path) + (info.isSymLink() ? " -> " + info.symLinkTarget() : "");
    }
    names.sort();
    return names;
}

QString repeated(QChar c, int count)
{
    return QString(count, c);
}

}  // namespace

class TestHostileArguments : public QObject {
    Q_OBJECT
private slots:
    void refused_data();
    void refused();
    void longValueIsElided();
    void pictureSizeIsTheOneAsked();
    void pathologicalTokenExport_data();
    void pathologicalTokenExport();
};

void TestHostileArguments::refused_data()
{
    // LINK... are made in the scratch folder (the run's working directory);
    // "out" is where an export would go. The message is the whole line.
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("line");

    const QString dk = QStringLiteral("--d-k must be a whole number from 1 to 1024, not '%1'");
    for (const char* value : {"+8", " 8", "8 ", "8x", "0x8", "8.0", "8e0", "1,024", "-0", "", "٨"})
        QTest::newRow(qPrintable(QStringLiteral("d_k '%1'").arg(QString::fromUtf8(value))))
            << QStringList{"--d-k", QString::fromUtf8(value), "--export-dir", "out"} << 2
            << dk.arg(QString::fromUtf8(value));
    QTest::newRow("d_model overflows 64 bits")
        << QStringList{"--d-model", "18446744073709551617", "--export-dir", "out"} << 2
        << "--d-model must be a whole number from 1 to 2048, not '18446744073709551617'";
    QTest::newRow("d_v wraps a 32-bit int to 8")
        << QStringList{"--d-v", "4294967304", "--export-dir", "out"} << 2
        << "--d-v must be a whole number from 1 to 1024, not '4294967304'";
    QTest::newRow("seed one past 2^64 - 1")
        << QStringList{"--seed", "18446744073709551616", "--export-dir", "out"} << 2
        << "--seed must be a whole number from 0 to 18446744073709551615, not '18446744073709551616'";
    QTest::newRow("seed with a sign")
        << QStringList{"--seed", "+1", "--export-dir", "out"} << 2
        << "--seed must be a whole number from 0 to 18446744073709551615, not '+1'";

    const QString size =
        QStringLiteral("--size needs WIDTHxHEIGHT in pixels, each 100 to 16384 (e.g. 1600x900), not '%1'");
    for (const char* value : {"4294967496x300", "300x4294967496", " 200x 200", "+200x200", "200x+200",
                              "200x200x200", "200X200", "200x", "x200", "200", "0200.0x200"})
        QTest::newRow(qPrintable(QStringLiteral("size '%1'").arg(QLatin1String(value))))
            << QStringList{"--size", QLatin1String(value), "--format", "png", "--export-dir", "out"} << 2
            << size.arg(QLatin1String(value));

    QTest::newRow("lab: n_keys 1e3") << QStringList{"--scaling-lab", "--n-keys", "1e3", "--export-dir", "out"}
                                     << 2 << "--n-keys must be a whole number from 2 to 1024, not '1e3'";
    QTest::newRow("lab: samples overflow")
        << QStringList{"--scaling-lab", "--samples", "99999999999999999999", "--export-dir", "out"} << 2
        << "--samples must be a whole number from 1 to 1000000, not '99999999999999999999'";
    QTest::newRow("lab: seed blank") << QStringList{
        "--scaling-lab", "--seed", "7 ", "--export-dir",
        "out"} << 2 << "--seed must be a whole number from 0 to 18446744073709551615, not '7 '";

    // Links: said what they are, before anything is computed or written.
    QTest::newRow("broken link") << QStringList{"--export-dir", "LINK_BROKEN"} << 1
                                 << "cannot create the directory 'LINK_BROKEN': it is a broken symbolic "
                                    "link (to 'SCRATCH/missing', which does not exist)";
    QTest::newRow("link loop") << QStringList{"--export-dir", "LINK_LOOP"} << 1
                               << "cannot create the directory 'LINK_LOOP': it is a symbolic link loop";
    QTest::newRow("two links in a loop") << QStringList{
        "--export-dir", "LINK_A"} << 1 << "cannot create the directory 'LINK_A': it is a symbolic link loop";
    QTest::newRow("below a broken link")
        << QStringList{"--export-dir", "LINK_BROKEN/run/1"} << 1
        << "cannot create the directory 'LINK_BROKEN/run/1': 'SCRATCH/LINK_BROKEN' is a broken symbolic "
           "link (to 'SCRATCH/missing', which does not exist)";
    QTest::newRow("below a loop") << QStringList{"--export-dir", "LINK_LOOP/run", "--format", "png"} << 1
                                  << "cannot create the directory 'LINK_LOOP/run': 'SCRATCH/LINK_LOOP' is a "
                                     "symbolic link loop";
    QTest::newRow("lab: broken link")
        << QStringList{"--scaling-lab", "--samples", "1", "--export-dir", "LINK_BROKEN"} << 1
        << "cannot create the directory 'LINK_BROKEN': it is a broken symbolic link (to 'SCRATCH/missing', "
           "which does not exist)";

    QTest::newRow("empty argument") << QStringList{""} << 2
                                    << "an argument is empty (''); give a lab file to open, or leave it out";
    QTest::newRow("empty argument with an export")
        << QStringList{"--export-dir", "out", ""} << 2
        << "an argument is empty (''); give a lab file to open, or leave it out";

    QTest::newRow("open twice") << QStringList{"--open", "a.attnlab", "--open", "b.attnlab"} << 2
                                << "--open is given twice ('a.attnlab' and 'b.attnlab'); give it once";
    QTest::newRow("d_k twice") << QStringList{"--d-k", "4", "--export-dir", "out", "--d-k=8"} << 2
                               << "--d-k is given twice ('4' and '8'); give it once";
    QTest::newRow("export dir twice") << QStringList{"--export-dir", "out", "--export-dir", "out2"} << 2
                                      << "--export-dir is given twice ('out' and 'out2'); give it once";
    QTest::newRow("lab: samples twice")
        << QStringList{"--scaling-lab", "--samples", "1", "--samples", "2", "--export-dir", "out"} << 2
        << "--samples is given twice ('1' and '2'); give it once";
    QTest::newRow("format list of a thousand characters")
        << QStringList{"--format", repeated('j', 1000), "--export-dir", "out"} << 2
        << "unknown export format '" + repeated('j', 40)
               + "…' (1000 characters); use json, csv, npy, png, svg or pdf, e.g. json,csv";
    QTest::newRow("file name longer than the system takes")
        << QStringList{"--open", repeated('f', 5000)} << 2
        << "--open: the file name '" + repeated('f', 40)
               + "…' (5000 characters) is longer than the system takes (4095 bytes)";
}

void TestHostileArguments::refused()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, line);

    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const QString root = QFileInfo(scratch.path()).canonicalFilePath();
    QVERIFY(QFile::link(root + "/missing", root + "/LINK_BROKEN"));
    QVERIFY(QFile::link("LINK_LOOP", root + "/LINK_LOOP"));
    QVERIFY(QFile::link("LINK_B", root + "/LINK_A"));
    QVERIFY(QFile::link("LINK_A", root + "/LINK_B"));
    const QStringList before = tree(root);

    const Run run = runApp(arguments, root);
    QVERIFY2(run.finished, run.err.constData());
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.out.isEmpty(), run.out.constData());
    const QString expected = "attention-lab: " + QString(line).replace("SCRATCH", root) + '\n';
    QCOMPARE(QString::fromUtf8(run.err), expected);
    // Nothing written, no link replaced or followed.
    QCOMPARE(tree(root), before);
}

// A value of 100,000 digits (the most Linux passes in one argument is 128 KiB)
// is echoed as its first 40 characters and its length.
void TestHostileArguments::longValueIsElided()
{
    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const Run run = runApp({"--d-k=" + repeated('9', 100000), "--export-dir", "out"}, scratch.path());
    QVERIFY(run.finished);
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(QString::fromUtf8(run.err), "attention-lab: --d-k must be a whole number from 1 to 1024, not '"
                                             + repeated('9', 40) + "…' (100000 characters)\n");
    QCOMPARE(tree(scratch.path()), QStringList());
}

// The size accepted is the size drawn (a wrapped int once gave 200 pixels).
void TestHostileArguments::pictureSizeIsTheOneAsked()
{
    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const Run run = runApp({"--export-dir", "out", "--format", "png", "--size", "321x123"}, scratch.path());
    QVERIFY2(run.finished && run.exitCode == 0, run.err.constData());
    QVERIFY2(run.err.isEmpty(), run.err.constData());
    QCOMPARE(QImageReader(scratch.filePath("out/weights.png")).size(), QSize(321, 123));
    QCOMPARE(QImageReader(scratch.filePath("out/pipeline.png")).size(), QSize(321, 123));
}

void TestHostileArguments::pathologicalTokenExport_data()
{
    // Linux passes at most 128 KiB in one argument: 120,000 letters, and
    // 60,000 two-byte marks.
    QTest::addColumn<QString>("token");
    QTest::addColumn<QString>("tooLong");       // a run no label may hold
    QTest::addColumn<QString>("tooLongTitle");  // nor the title (200 clusters of the sentence)
    QTest::newRow("120,000 letters") << repeated('x', 120000) << repeated('x', 65) << repeated('x', 201);
    QTest::newRow("a and 60,000 combining marks")
        << "a" + repeated(QChar(0x0301), 60000) << repeated(QChar(0x0301), 32) << repeated(QChar(0x0301), 32);
}

// The pictures of a sentence holding one pathological token: in time, with
// the token cut in every label and title (it took 12 s at 60,000 marks).
void TestHostileArguments::pathologicalTokenExport()
{
    QFETCH(QString, token);
    QFETCH(QString, tooLong);
    QFETCH(QString, tooLongTitle);
    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const Run run =
        runApp({"--sentence", "the " + token + " sat", "--export-dir", "out", "--format", "svg,png,pdf"},
               scratch.path());
    QVERIFY2(run.finished && run.exitCode == 0, run.err.constData());
    QVERIFY2(run.err.isEmpty(), run.err.constData());
    QCOMPARE(int(QDir(scratch.filePath("out")).entryList(QDir::Files).size()), 27);
    for (const char* name : {"weights.svg", "pipeline.svg", "scaling_comparison.svg", "Q.svg"}) {
        QFile svg(scratch.filePath(QStringLiteral("out/") + QLatin1String(name)));
        if (!svg.exists())
            continue;
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(svg.readAll());
        QVERIFY2(text.size() < 1000000, name);
        QVERIFY2(
            !text.contains(QLatin1String(name) == QLatin1String("pipeline.svg") ? tooLongTitle : tooLong),
            name);
        QVERIFY2(text.contains(QStringLiteral("\u2026")), name);
    }
}

QTEST_GUILESS_MAIN(TestHostileArguments)
#include "tst_hostilearguments.moc"
