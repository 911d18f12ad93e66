// SPDX-License-Identifier: GPL-3.0-or-later
// readInputFile, the readers' one way in: the cap holds for regular files (by
// size), pipes and FIFOs (while reading), a FIFO with no writer returns at
// once, devices and folders are refused unread; and the readers that use it
// (.npy, CSV, lab) read a pipe like a file. Given a stop flag (a scheduler
// job's), a pipe's read still reads, and gives up once the flag is set while
// a writer holds the pipe without writing.

#include "inputfile.h"
#include "labfile.h"
#include "matrixio.h"
#include "npy.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// A FIFO at `path` holding `bytes` from a writer that has closed. A reader
// of ours is kept open meanwhile (the returned descriptor), or the kernel
// would drop the bytes; at most a pipe buffer (64 KiB).
int fifoHolding(const QString& path, const QByteArray& bytes)
{
    const QByteArray name = QFile::encodeName(path);
    if (::mkfifo(name.constData(), 0600) != 0)
        return -1;
    const int keep = ::open(name.constData(), O_RDONLY | O_NONBLOCK);
    const int writer = ::open(name.constData(), O_WRONLY | O_NONBLOCK);
    if (keep < 0 || writer < 0)
        return -1;
    const bool written = ::write(writer, bytes.constData(), std::size_t(bytes.size())) == bytes.size();
    ::close(writer);
    if (!written) {
        ::close(keep);
        return -1;
    }
    return keep;
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

}  // namespace

class TestInputFile : public QObject {
    Q_OBJECT
private slots:
    void regularFileWithinAndOverTheCap()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.txt");
        QVERIFY(writeFile(path, QByteArray(1000, 'x')));
        const auto read = attnlab::readInputFile(path, 1000, "test file");
        QVERIFY(read);
        QCOMPARE(read->size(), 1000);
        const auto over = attnlab::readInputFile(path, 999, "test file");
        QVERIFY(!over);
        QCOMPARE(over.error().message,
                 std::string("a.txt: 1000 bytes is larger than any test file can be (at most 999 bytes)"));
    }

    // No size to ask for: the cap is checked as the bytes come.
    void pipeOverTheCapRefusedWhileReading()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("p.npy");
        const int keep = fifoHolding(path, QByteArray(5000, 'x'));
        QVERIFY(keep >= 0);
        const auto over = attnlab::readInputFile(path, 4096, "test file");
        ::close(keep);
        QVERIFY(!over);
        QCOMPARE(over.error().message,
                 std::string("p.npy: more than 4 KiB came through the pipe; that is larger "
                             "than any test file can be (at most 4 KiB)"));
    }

    // Once it would block forever, waiting in open() for a writer.
    void fifoWithoutWriterReturnsAtOnce()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("X.npy");
        QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
        const auto read = attnlab::readNpyFile(path);
        QVERIFY(!read);
        QCOMPARE(read.error().message,
                 std::string("X.npy: nothing came through the pipe (no program was writing to it)"));
    }

    // A writer that holds the FIFO open and never writes: without a flag the
    // read would wait for it forever; with one it ends, Cancelled by its
    // kind, soon after the flag is set (and not before).
    void stopFlagEndsAWaitingPipeRead()
    {
        for (const char* file : {"X.npy", "X.csv"}) {
            QTemporaryDir dir;
            const QString path = dir.filePath(QString::fromLatin1(file));
            const QByteArray name = QFile::encodeName(path);
            QVERIFY(::mkfifo(name.constData(), 0600) == 0);
            const int writer = ::open(name.constData(), O_RDWR);  // a writer that does not write
            QVERIFY(writer >= 0);
            std::atomic<bool> stop{false};
            const auto start = std::chrono::steady_clock::now();
            std::thread setter([&stop] {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                stop = true;
            });
            const auto read = attnlab::readMatrixFile(path, &stop);
            const auto took = std::chrono::steady_clock::now() - start;
            setter.join();
            ::close(writer);
            QVERIFY(!read);
            QVERIFY2(attn::isCancelled(read), read.error().message.c_str());
            QVERIFY(took >= std::chrono::milliseconds(100));
            QVERIFY(took < std::chrono::seconds(5));
        }
    }

    // With a flag that is never set a pipe reads as without one: bytes that
    // come late, bytes already there, and no writer at all.
    void pipeReadWithAStopFlag()
    {
        attn::Matrix m(2, 3);
        m << 1.0, -2.5, 0.125, 3e-5, 7.0, -0.0;
        const std::string npy = attnlab::npyBytes(m);
        const std::atomic<bool> stop{false};
        {
            QTemporaryDir dir;
            const QString path = dir.filePath("X.npy");
            const QByteArray name = QFile::encodeName(path);
            QVERIFY(::mkfifo(name.constData(), 0600) == 0);
            const int writer = ::open(name.constData(), O_RDWR);
            QVERIFY(writer >= 0);
            bool written = false;
            std::thread late([writer, &npy, &written] {
                std::this_thread::sleep_for(std::chrono::milliseconds(60));
                written = ::write(writer, npy.data(), npy.size()) == ssize_t(npy.size());
                ::close(writer);
            });
            const auto read = attnlab::readMatrixFile(path, &stop);
            late.join();
            QVERIFY(written);
            QVERIFY2(read, read ? "" : read.error().message.c_str());
            QVERIFY(read.value() == m);
        }
        {
            QTemporaryDir dir;
            const QString path = dir.filePath("X.npy");
            const int keep = fifoHolding(path, QByteArray(npy.data(), qsizetype(npy.size())));
            QVERIFY(keep >= 0);
            const auto read = attnlab::readMatrixFile(path, &stop);
            ::close(keep);
            QVERIFY2(read, read ? "" : read.error().message.c_str());
            QVERIFY(read.value() == m);
        }
        {
            QTemporaryDir dir;
            const QString path = dir.filePath("X.npy");
            QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
            const auto read = attnlab::readMatrixFile(path, &stop);
            QVERIFY(!read);
            QVERIFY(!attn::isCancelled(read));
            QCOMPARE(read.error().message,
                     std::string("X.npy: nothing came through the pipe (no program was writing to it)"));
        }
    }

    // /dev/zero has size 0 and never ends; a terminal waits for typing.
    void devicesAndFoldersRefusedUnread()
    {
        const auto zero = attnlab::readMatrixFile(QStringLiteral("/dev/zero"));
        QVERIFY(!zero);
        QCOMPARE(zero.error().message,
                 std::string("zero: a device, not a file; only regular files and pipes can be read"));
        const auto lab = attnlab::readLabFile(QStringLiteral("/dev/zero"));
        QVERIFY(!lab);
        QCOMPARE(lab.error().message, zero.error().message);
        QTemporaryDir dir;
        const auto folder = attnlab::readInputFile(dir.path(), 100, "test file");
        QVERIFY(!folder);
        QVERIFY2(folder.error().message.find(": a folder, not a file;") != std::string::npos,
                 folder.error().message.c_str());
    }

    // A valid .npy through a pipe was refused as "the file has -128 bytes"
    // (its size asked of a pipe); now read as from a file.
    void npyThroughAPipeIsRead()
    {
        attn::Matrix m(2, 3);
        m << 1.0, -2.5, 0.125, 3e-5, 7.0, -0.0;
        QTemporaryDir dir;
        const QString path = dir.filePath("X.npy");
        const std::string bytes = attnlab::npyBytes(m);
        const int keep = fifoHolding(path, QByteArray(bytes.data(), qsizetype(bytes.size())));
        QVERIFY(keep >= 0);
        const auto read = attnlab::readMatrixFile(path);
        ::close(keep);
        QVERIFY2(read, read ? "" : read.error().message.c_str());
        QVERIFY(read.value() == m);
    }

    void csvThroughAPipeIsRead()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("X.csv");
        const int keep = fifoHolding(path, "token,0,1\na,0.5,-1\nb,2,1e-3\n");
        QVERIFY(keep >= 0);
        const auto read = attnlab::readMatrixFile(path);
        ::close(keep);
        QVERIFY2(read, read ? "" : read.error().message.c_str());
        attn::Matrix m(2, 2);
        m << 0.5, -1, 2, 1e-3;
        QVERIFY(read.value() == m);
    }

    // Each reader's own cap, on sparse files just past it: refused from the
    // size, unread (a sparse file costs no disk).
    void readersCapsFromTheSize()
    {
        QTemporaryDir dir;
        const auto sparse = [&dir](const QString& name, qint64 size) {
            QFile file(dir.filePath(name));
            return file.open(QIODevice::WriteOnly) && file.resize(size) ? file.fileName() : QString();
        };
        const QString lab = sparse("big.attnlab", (432LL << 20) + 1);
        const QString csv = sparse("big.csv", (133LL << 20));
        const QString npy = sparse("big.npy", (33LL << 20));
        QVERIFY(!lab.isEmpty() && !csv.isEmpty() && !npy.isEmpty());
        const auto readLab = attnlab::readLabFile(lab);
        QVERIFY(!readLab);
        QCOMPARE(readLab.error().message,
                 std::string(
                     "big.attnlab: more than 432 MiB is larger than any lab file can be (at most 432 MiB)"));
        const auto readCsv = attnlab::readMatrixFile(csv);
        QVERIFY(!readCsv);
        QCOMPARE(readCsv.error().message,
                 std::string("big.csv: 133 MiB is larger than any CSV matrix can be (at most 132 MiB)"));
        const auto readNpy = attnlab::readMatrixFile(npy);
        QVERIFY(!readNpy);
        QCOMPARE(readNpy.error().message,
                 std::string("big.npy: 33 MiB is larger than any .npy matrix can be (at most 32 MiB)"));
    }

    // The presets are Qt resources, which only QFile can open.
    void qtResourceRead()
    {
        const auto read =
            attnlab::readInputFile(QStringLiteral(":/inputfile/tst_inputfile.cpp"), 1 << 20, "test file");
        QVERIFY2(read, read ? "" : read.error().message.c_str());
        QVERIFY(read->startsWith("// SPDX-License-Identifier: GPL-3.0-or-later\n// readInputFile"));
        const auto over =
            attnlab::readInputFile(QStringLiteral(":/inputfile/tst_inputfile.cpp"), 100, "test file");
        QVERIFY(!over);
        QVERIFY2(over.error().message.rfind("tst_inputfile.cpp: ", 0) == 0, over.error().message.c_str());
    }

    void byteSizeInWords()
    {
        QCOMPARE(attnlab::byteSizeText(1), std::string("1 byte"));
        QCOMPARE(attnlab::byteSizeText(1023), std::string("1023 bytes"));
        QCOMPARE(attnlab::byteSizeText(1536), std::string("2 KiB"));
        QCOMPARE(attnlab::byteSizeText(240LL << 20), std::string("240 MiB"));
        QCOMPARE(attnlab::byteSizeText((32LL << 20) + 65548), std::string("32 MiB"));
    }
};

QTEST_APPLESS_MAIN(TestInputFile)
#include "tst_inputfile.moc"
