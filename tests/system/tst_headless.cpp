// SPDX-License-Identifier: GPL-3.0-or-later
// Headless runs of the real program print nothing on stderr: without
// XDG_RUNTIME_DIR (cron, containers, ssh) Qt would warn
// "QStandardPaths: XDG_RUNTIME_DIR not set"; the program gives it a private
// directory first (runtimedir.h). Where it cannot (no usable temporary
// folder, an unsuitable XDG_RUNTIME_DIR) an error is still exactly one line,
// and a display that cannot be reached does not stop an export: runs without
// a window draw offscreen.

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <pwd.h>
#include <unistd.h>

class TestHeadless : public QObject {
    Q_OBJECT
private slots:
    void noWarningsWithoutRuntimeDir_data();
    void noWarningsWithoutRuntimeDir();
    void unreachableDisplay_data();
    void unreachableDisplay();
    void oneLineWithoutUsableRuntimeDir_data();
    void oneLineWithoutUsableRuntimeDir();
};

namespace {

struct Run {
    bool finished = false;
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runApp(const QStringList& arguments, const QProcessEnvironment& env)
{
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(ATTNLAB_EXECUTABLE), arguments);
    Run run;
    // A small export takes about a second; a hang or a crash fails here.
    run.finished = process.waitForFinished(30000) && process.exitStatus() == QProcess::NormalExit;
    if (!run.finished)
        process.kill();
    process.waitForFinished(5000);
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

}  // namespace

void TestHeadless::noWarningsWithoutRuntimeDir_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("numbers and pictures")
        << QStringList{"--export-dir", "OUT", "--format", "json,png", "--size", "400x300"};
    QTest::newRow("numbers only") << QStringList{"--export-dir", "OUT", "--format", "json,csv"};
    QTest::newRow("d_k lab") << QStringList{"--scaling-lab", "--samples", "50",      "--export-dir",
                                            "OUT",           "--format",  "json,png"};
}

void TestHeadless::noWarningsWithoutRuntimeDir()
{
    QFETCH(QStringList, arguments);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString out = tmp.filePath("out");
    arguments.replaceInStrings(QRegularExpression("^OUT$"), out);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("XDG_RUNTIME_DIR"));
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));     // the program picks offscreen itself
    env.insert(QStringLiteral("TMPDIR"), tmp.path());  // where the fallback directory goes
    env.insert(QStringLiteral("HOME"), tmp.filePath("home"));
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(ATTNLAB_EXECUTABLE), arguments);
    QVERIFY(process.waitForFinished(120000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    const QByteArray err = process.readAllStandardError();
    QVERIFY2(process.exitCode() == 0, err.constData());
    QVERIFY2(err.isEmpty(), err.constData());
    QVERIFY(!QDir(out).isEmpty());
    // Qt's own fallback name, made private to this user.
    const struct passwd* entry = ::getpwuid(::geteuid());
    QVERIFY(entry);
    const QFileInfo runtime(tmp.filePath(QStringLiteral("runtime-") + entry->pw_name));
    QVERIFY(runtime.isDir());
    QCOMPARE(runtime.permissions()
                 & (QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup | QFile::ReadOther
                    | QFile::WriteOther | QFile::ExeOther),
             QFile::Permissions());
}

void TestHeadless::unreachableDisplay_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("files");
    QTest::newRow("pictures") << QStringList{"--export-dir", "OUT",    "--format",
                                             "png,svg",      "--size", "400x300"}
                              << 18;
    QTest::newRow("d_k lab plots") << QStringList{"--scaling-lab", "--samples", "20",      "--export-dir",
                                                  "OUT",           "--format",  "json,png"}
                                   << 5;
}

// DISPLAY=:99 with no X server there (and a desktop's platform and theme
// asked for): Qt's xcb plugin would abort the run (exit 134).
void TestHeadless::unreachableDisplay()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, files);
    if (QFileInfo::exists(QStringLiteral("/tmp/.X11-unix/X99")))
        QSKIP("an X server answers on :99 here");
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString out = tmp.filePath("out");
    arguments.replaceInStrings(QRegularExpression("^OUT$"), out);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DISPLAY"), QStringLiteral(":99"));
    env.insert(QStringLiteral("WAYLAND_DISPLAY"), QStringLiteral("wayland-99"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
    env.insert(QStringLiteral("QT_QPA_PLATFORMTHEME"), QStringLiteral("gtk3"));
    const Run run = runApp(arguments, env);
    QVERIFY2(run.finished, run.err.constData());
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.err.isEmpty(), run.err.constData());
    QCOMPARE(int(QDir(out).entryList(QDir::Files).size()), files);

    // An error there is the program's one line.
    const Run bad = runApp({"--export-dir", out + "2", "--format", "png", "--d-k", "0"}, env);
    QVERIFY(bad.finished);
    QCOMPARE(bad.exitCode, 2);
    QCOMPARE(bad.err, QByteArray("attention-lab: --d-k must be a whole number from 1 to 1024, not '0'\n"));
    QVERIFY(!QFileInfo::exists(out + "2"));
}

void TestHeadless::oneLineWithoutUsableRuntimeDir_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("line");
    QTest::newRow("usage error, pictures")
        << QStringList{"--export-dir", "OUT", "--format", "png", "--seed", "x"} << 2
        << "--seed must be a whole number from 0 to 18446744073709551615, not 'x'";
    QTest::newRow("runtime error, pictures")
        << QStringList{"--export-dir", "/proc/attention-lab/out", "--format", "json,png"} << 1
        << "cannot create the directory '/proc/attention-lab/out': No such file or directory";
    QTest::newRow("runtime error, numbers")
        << QStringList{"--export-dir", "/proc/attention-lab/out", "--format", "json"} << 1
        << "cannot create the directory '/proc/attention-lab/out': No such file or directory";
    QTest::newRow("d_k lab plots")
        << QStringList{"--scaling-lab", "--samples", "20", "--export-dir", "/proc/attention-lab/out"} << 1
        << "cannot create the directory '/proc/attention-lab/out': No such file or directory";
    QTest::newRow("window option error")
        << QStringList{"--d-k", "2000"} << 2 << "--d-k must be a whole number from 1 to 1024, not '2000'";
}

// No runtime directory can be made (TMPDIR=/proc: nothing can be created
// there), or XDG_RUNTIME_DIR names one readable by others: Qt warns about
// either, and that warning used to come before every error.
void TestHeadless::oneLineWithoutUsableRuntimeDir()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, line);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString out = tmp.filePath("out");
    arguments.replaceInStrings(QRegularExpression("^OUT$"), out);
    QVERIFY(QDir(tmp.path()).mkdir("shared"));
    QVERIFY(QFile::setPermissions(tmp.filePath("shared"), QFile::ReadOwner | QFile::WriteOwner
                                                              | QFile::ExeOwner | QFile::ReadOther
                                                              | QFile::ExeOther));
    QProcessEnvironment unset = QProcessEnvironment::systemEnvironment();
    unset.remove(QStringLiteral("XDG_RUNTIME_DIR"));
    unset.remove(QStringLiteral("DISPLAY"));
    unset.remove(QStringLiteral("WAYLAND_DISPLAY"));
    unset.insert(QStringLiteral("TMPDIR"), QStringLiteral("/proc"));
    QProcessEnvironment shared = unset;
    shared.insert(QStringLiteral("XDG_RUNTIME_DIR"), tmp.filePath("shared"));
    for (const QProcessEnvironment& env : {unset, shared}) {
        const Run run = runApp(arguments, env);
        QVERIFY2(run.finished, run.err.constData());
        QCOMPARE(run.exitCode, exitCode);
        QVERIFY2(run.out.isEmpty(), run.out.constData());
        QCOMPARE(QString::fromUtf8(run.err), "attention-lab: " + line + '\n');
        QVERIFY(!QFileInfo::exists(out));
    }
}

QTEST_GUILESS_MAIN(TestHeadless)
#include "tst_headless.moc"
