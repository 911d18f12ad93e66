// SPDX-License-Identifier: GPL-3.0-or-later
// Headless runs of the real program print nothing on stderr: without
// XDG_RUNTIME_DIR (cron, containers, ssh) Qt would warn
// "QStandardPaths: XDG_RUNTIME_DIR not set"; the program gives it a private
// directory first (runtimedir.h).

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
};

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

QTEST_GUILESS_MAIN(TestHeadless)
#include "tst_headless.moc"
