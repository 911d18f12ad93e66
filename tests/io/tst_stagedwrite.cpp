// SPDX-License-Identifier: GPL-3.0-or-later
// "All files or none": a rename that fails half-way puts back the files it
// had replaced, byte for byte; two sets (an export and a lab) fail together;
// a staging folder left by a killed process goes at the next write, and one
// interrupted by SIGTERM or SIGINT goes at once; links
// in the way are named (a loop is not replaced by a file).

#include "stagedwrite.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace attnlab;

namespace {

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot | QDir::System,
                               QDir::Name);
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

OutputFile textFile(const std::string& name, const std::string& text)
{
    return {name, [text](std::ostream& out) { out << text; }};
}

std::vector<OutputFile> files(const QStringList& names, const QString& prefix)
{
    std::vector<OutputFile> out;
    for (const QString& name : names)
        out.push_back(textFile(name.toStdString(), (prefix + name).toStdString()));
    return out;
}

// Makes the rename onto `victim` fail for the duration of a scope.
struct RenameFault {
    explicit RenameFault(const QString& victim)
    {
        setStagedRenameFaultForTests([victim](const QString& target) { return target.endsWith(victim); });
    }
    ~RenameFault() { setStagedRenameFaultForTests({}); }
};

}  // namespace

class TestStagedWrite : public QObject {
    Q_OBJECT
private slots:
    void failedRenameRestoresTheReplacedFiles();
    void twoSetsFailTogether();
    void everyCheckRunsBeforeTheFirstMove();
    void staleStagingFromAKilledRunIsRemoved();
    void liveStagingIsLeftAlone();
    void interruptedWriteLeavesNothing_data();
    void interruptedWriteLeavesNothing();
    void symbolicLinks();
};

// The third of four renames fails: the two files already moved had replaced
// older ones, which come back exactly; the file that was new is removed;
// nothing of the staging is left.
void TestStagedWrite::failedRenameRestoresTheReplacedFiles()
{
    QTemporaryDir root;
    const QStringList names = {"a.txt", "b.txt", "c.txt"};
    QVERIFY(writeFilesAtomically(root.path(), files(names, "old ")).ok());
    {
        RenameFault fault("c.txt");
        const attn::Status status =
            writeFilesAtomically(root.path(), files({"a.txt", "new.txt", "c.txt", "b.txt"}, "new "));
        QVERIFY(!status.ok());
        QVERIFY2(QString::fromStdString(status.error().message).startsWith("cannot replace '"),
                 status.error().message.c_str());
    }
    QCOMPARE(entries(root.path()), names);
    for (const QString& name : names)
        QCOMPARE(readFile(root.filePath(name)), ("old " + name).toUtf8());
    // Without the fault the same call goes through.
    QVERIFY(writeFilesAtomically(root.path(), files({"a.txt", "new.txt", "c.txt", "b.txt"}, "new ")).ok());
    QCOMPARE(readFile(root.filePath("c.txt")), QByteArray("new c.txt"));
    QCOMPARE(entries(root.path()), (QStringList{"a.txt", "b.txt", "c.txt", "new.txt"}));
}

// An export and a saved lab: the lab's rename fails after the export's
// files moved in; the export is undone and the old files are back.
void TestStagedWrite::twoSetsFailTogether()
{
    QTemporaryDir root;
    const QString out = root.filePath("out"), labs = root.filePath("labs");
    QVERIFY(writeFilesAtomically(out, files({"attention.json"}, "old ")).ok());
    QVERIFY(writeFilesAtomically(labs, files({"lab.attnlab"}, "old ")).ok());
    {
        RenameFault fault("lab.attnlab");
        const attn::Status status =
            writeFileSetsAtomically({{out, files({"attention.json", "weights.csv"}, "new ")},
                                     {labs, files({"lab.attnlab"}, "new ")}});
        QVERIFY(!status.ok());
    }
    QCOMPARE(entries(out), QStringList{"attention.json"});
    QCOMPARE(readFile(QDir(out).filePath("attention.json")), QByteArray("old attention.json"));
    QCOMPARE(readFile(QDir(labs).filePath("lab.attnlab")), QByteArray("old lab.attnlab"));

    // The second set's folder cannot be made (a file is in the way): the
    // first set's new folder is not left behind.
    QFile blocker(root.filePath("blocker"));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    const attn::Status status =
        writeFileSetsAtomically({{root.filePath("fresh/export"), files({"x.txt"}, "")},
                                 {root.filePath("blocker/sub"), files({"y"}, "")}});
    QVERIFY(!status.ok());
    QVERIFY(!QFileInfo::exists(root.filePath("fresh")));
}

// A directory where a file should go is found before anything moves.
void TestStagedWrite::everyCheckRunsBeforeTheFirstMove()
{
    QTemporaryDir root;
    QVERIFY(writeFilesAtomically(root.path(), files({"a.txt"}, "old ")).ok());
    QVERIFY(QDir(root.path()).mkpath("z.txt/inside"));
    int renames = 0;
    setStagedRenameFaultForTests([&renames](const QString&) {
        ++renames;
        return false;
    });
    const attn::Status status = writeFilesAtomically(root.path(), files({"a.txt", "z.txt"}, "new "));
    setStagedRenameFaultForTests({});
    QVERIFY(!status.ok());
    QCOMPARE(QString::fromStdString(status.error().message),
             QStringLiteral("cannot replace '%1': it is a directory").arg(root.filePath("z.txt")));
    QCOMPARE(renames, 0);
    QCOMPARE(readFile(root.filePath("a.txt")), QByteArray("old a.txt"));
    QCOMPARE(entries(root.path()), (QStringList{"a.txt", "z.txt"}));
}

// A child process is killed (SIGKILL) while it writes an export: its
// staging folder stays, with its lock; the next write removes it.
void TestStagedWrite::staleStagingFromAKilledRunIsRemoved()
{
    QTemporaryDir root;
    const pid_t child = ::fork();
    if (child == 0) {
        const OutputFile dying{"big.bin", [](std::ostream& out) {
                                   out << std::string(1 << 20, 'x') << std::flush;
                                   ::raise(SIGKILL);
                               }};
        (void)writeFilesAtomically(root.path(), {textFile("first.txt", "1"), dying});
        ::_exit(0);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFSIGNALED(status));
    const QStringList left = entries(root.path());
    QCOMPARE(left.size(), 1);
    QVERIFY(left.first().startsWith(".attention-lab-"));
    QVERIFY(entries(root.filePath(left.first())).contains(".lock"));

    QVERIFY(writeFilesAtomically(root.path(), files({"next.txt"}, "")).ok());
    QCOMPARE(entries(root.path()), QStringList{"next.txt"});
}

// A staging folder whose lock a running process holds (here: this one) is
// another writer's, and stays.
void TestStagedWrite::liveStagingIsLeftAlone()
{
    QTemporaryDir root;
    const QString live = root.filePath(".attention-lab-live01");
    QVERIFY(QDir().mkpath(live));
    QLockFile lock(QDir(live).filePath(".lock"));
    lock.setStaleLockTime(0);
    QVERIFY(lock.tryLock(0));
    QVERIFY(writeFilesAtomically(root.path(), files({"mine.txt"}, "")).ok());
    QCOMPARE(entries(root.path()), (QStringList{".attention-lab-live01", "mine.txt"}));
}

void TestStagedWrite::interruptedWriteLeavesNothing_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGINT (Ctrl+C)") << int(SIGINT);
}

// A child process gets SIGTERM or SIGINT while it writes an export over an
// older one: it still dies of that signal, its staging folder is gone at
// once, and the older export is as it was.
void TestStagedWrite::interruptedWriteLeavesNothing()
{
    QFETCH(int, signal);
    QTemporaryDir root;
    QVERIFY(writeFilesAtomically(root.path(), files({"a.txt", "b.txt"}, "old ")).ok());
    const pid_t child = ::fork();
    if (child == 0) {
        std::signal(signal, SIG_DFL);  // as in the program; the test library has its own handler
        const OutputFile dying{"b.txt", [signal](std::ostream& out) {
                                   out << std::string(1 << 20, 'x') << std::flush;
                                   ::raise(signal);
                               }};
        (void)writeFilesAtomically(root.path(), {textFile("a.txt", "new"), dying});
        ::_exit(0);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFSIGNALED(status));
    QCOMPARE(WTERMSIG(status), signal);
    QCOMPARE(entries(root.path()), (QStringList{"a.txt", "b.txt"}));
    QCOMPARE(readFile(root.filePath("a.txt")), QByteArray("old a.txt"));
    QCOMPARE(readFile(root.filePath("b.txt")), QByteArray("old b.txt"));
}

void TestStagedWrite::symbolicLinks()
{
    QTemporaryDir root;
    const QString loop = root.filePath("loop.attnlab");
    QVERIFY(QFile::link(loop, loop));
    attn::Status status = writeFileAtomically(loop, QByteArray("lab"));
    QVERIFY(!status.ok());
    QCOMPARE(QString::fromStdString(status.error().message),
             QStringLiteral("cannot write '%1': it is a symbolic link loop").arg(loop));
    QVERIFY(QFileInfo(loop).isSymLink());  // still the link, not a file

    // Through a link to a file: the file is written, the link stays.
    const QString real = root.filePath("real.attnlab"), link = root.filePath("link.attnlab");
    QVERIFY(writeFileAtomically(real, QByteArray("old")).ok());
    QVERIFY(QFile::link(real, link));
    QVERIFY(writeFileAtomically(link, QByteArray("new")).ok());
    QVERIFY(QFileInfo(link).isSymLink());
    QCOMPARE(readFile(real), QByteArray("new"));

    // A dangling link as the export folder, and a looping one.
    const QString dangling = root.filePath("gone");
    QVERIFY(QFile::link(root.filePath("nowhere"), dangling));
    status = writeFilesAtomically(dangling, files({"a.txt"}, ""));
    QVERIFY(!status.ok());
    QVERIFY2(QString::fromStdString(status.error().message).contains("is a symbolic link to"),
             status.error().message.c_str());
    const QString dirLoop = root.filePath("dirloop");
    QVERIFY(QFile::link(dirLoop, dirLoop));
    status = writeFilesAtomically(dirLoop, files({"a.txt"}, ""));
    QVERIFY(!status.ok());
    QVERIFY2(QString::fromStdString(status.error().message).contains("symbolic link loop"),
             status.error().message.c_str());
}

QTEST_APPLESS_MAIN(TestStagedWrite)
#include "tst_stagedwrite.moc"
