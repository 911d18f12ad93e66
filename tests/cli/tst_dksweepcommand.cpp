// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab --dk-sweep --export-dir OUT --format png as a user runs it
// (QProcess on the built executable): one frame per step of the d_k
// slider from 1 to 1024 (63), named frame_0001.png ..., each the pipeline figure
// of the engine's result at its own d_k under its title; all written or
// none; the usage errors.

#include "attentionsnapshot.h"
#include "dksteps.h"
#include "dksweepframes.h"
#include "runapp.h"
#include "scaling_lab.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using apptest::Run;
using apptest::runApp;
using namespace attnlab;

namespace {

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

const QStringList kLab = {"--sentence", "the cat sat on the mat", "--d-model", "8", "--seed", "7"};
const QSize kSize(160, 100);

}  // namespace

class TestDkSweepCommand : public QObject {
    Q_OBJECT
private slots:
    void writesOneFramePerStep();
    void allOrNone();
    void usageErrors_data();
    void usageErrors();
};

void TestDkSweepCommand::writesOneFramePerStep()
{
    QTemporaryDir scratch;
    const QString out = scratch.filePath(QStringLiteral("new/frames"));  // made, with its parent
    const Run run =
        runApp(kLab + QStringList{"--dk-sweep", "--export-dir", out, "--format", "png", "--size", "160x100"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    // The slider's own steps (its arrow keys', DkSteps): 1 to 1024, 63 of them.
    std::vector<int> dKs{1};
    while (dKs.back() < 1024)
        dKs.push_back(DkSteps::next(dKs.back()));
    QCOMPARE(dKs, attn::defaultScalingLabDks());
    QCOMPARE(int(dKs.size()), 63);
    QVERIFY2(run.out.startsWith("Wrote 63 d_k frame"), run.out.constData());
    QStringList expected;
    for (int i = 1; i <= 63; ++i)
        expected << QStringLiteral("frame_%1.png").arg(i, 4, 10, QLatin1Char('0'));
    QCOMPARE(entries(out), expected);
    for (const QString& name : expected)
        QCOMPARE(QImage(QDir(out).filePath(name)).size(), kSize);

    // Frame i is the engine's result at the i-th d_k, drawn under its title:
    // the same picture as one drawn here from computeSnapshot at that d_k.
    attn::ModelConfig config;
    config.sentence = "the cat sat on the mat";
    config.dModel = 8;
    config.seed = 7;
    for (const int step : {1, 2, 24, 50, 63}) {
        config.dK = dKs[std::size_t(step - 1)];
        const attn::Expected<AttentionSnapshot> snapshot = computeSnapshot(config, attn::AttentionOptions());
        QVERIFY(snapshot.ok());
        const attn::Expected<QByteArray> png = dkSweepFramePng(snapshot.value(), step, 63, kSize, {});
        QVERIFY(png.ok());
        const QImage frame(QDir(out).filePath(expected[step - 1]));
        QVERIFY2(frame == QImage::fromData(png.value()).convertToFormat(frame.format()),
                 qPrintable(QStringLiteral("frame %1 (d_k %2)").arg(step).arg(config.dK)));
    }
    QVERIFY(QImage(QDir(out).filePath(expected[0])) != QImage(QDir(out).filePath(expected[62])));
}

void TestDkSweepCommand::allOrNone()
{
    QTemporaryDir scratch;
    // A folder where frame 50 goes: nothing is written, 49 frames neither.
    const QString out = scratch.filePath(QStringLiteral("out"));
    QVERIFY(QDir(out).mkpath(QStringLiteral("frame_0050.png")));
    const QStringList sweep{"--dk-sweep", "--format", "png", "--size", "160x100", "--export-dir"};
    Run run = runApp(kLab + sweep + QStringList{out});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("attention-lab: "), run.err.constData());
    QCOMPARE(run.err.count('\n'), 1);
    QCOMPARE(entries(out), QStringList{"frame_0050.png"});

    // A folder that cannot be made (a file in the way): one line, nothing made.
    QFile file(scratch.filePath(QStringLiteral("file")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    run = runApp(kLab + sweep + QStringList{scratch.filePath(QStringLiteral("file/frames"))});
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.err.count('\n'), 1);
    QCOMPARE(entries(scratch.path()), (QStringList{"file", "out"}));

    // A folder the user may not write to (root may: then there is nothing to test).
    if (::geteuid() != 0) {
        const QString locked = scratch.filePath(QStringLiteral("locked"));
        QVERIFY(QDir().mkpath(locked));
        QVERIFY(QFile::setPermissions(locked, QFile::ReadOwner | QFile::ExeOwner));
        run = runApp(kLab + sweep + QStringList{locked});
        QFile::setPermissions(locked, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QCOMPARE(run.exitCode, 1);
        QCOMPARE(run.err.count('\n'), 1);
        QCOMPARE(entries(locked), QStringList());
    }
}

void TestDkSweepCommand::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("no folder") << QStringList{"--dk-sweep"} << "--dk-sweep writes PNG frames";
    QTest::newRow("no format") << QStringList{"--dk-sweep", "--export-dir", "OUT"} << "--format png";
    QTest::newRow("json") << QStringList{"--dk-sweep", "--export-dir", "OUT", "--format", "json"}
                          << "--format png";
    QTest::newRow("heads") << QStringList{"--heads", "2",        "--dk-sweep", "--export-dir",
                                          "OUT",     "--format", "png"}
                           << "one head";
}

void TestDkSweepCommand::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QTemporaryDir scratch;
    arguments.replaceInStrings(QStringLiteral("OUT"), scratch.filePath(QStringLiteral("out")));
    const Run run = runApp(arguments);
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err.count('\n'), 1);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
    QCOMPARE(entries(scratch.path()), QStringList());
}

QTEST_MAIN(TestDkSweepCommand)
#include "tst_dksweepcommand.moc"
