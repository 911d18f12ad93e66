// SPDX-License-Identifier: GPL-3.0-or-later
// Replays every seed and every crash input kept in tests/fuzz/corpus through
// the fuzz targets' own checks, in the ordinary (GCC) build: a regression
// aborts the test.

#include "fuzztargets.h"

#include <QDir>
#include <QFile>
#include <QtTest>

class TestFuzzCorpus : public QObject {
    Q_OBJECT
private slots:
    void replay_data();
    void replay();
};

void TestFuzzCorpus::replay_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("path");
    const QDir root(QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fuzz/corpus"));
    int count = 0;
    for (const char* name :
         {"tokenizer", "csv", "npy", "labfile", "json", "gpt2tokenizer", "safetensors", "tokenizerjson"}) {
        const QString target = QString::fromLatin1(name);
        const QDir dir(root.filePath(target));
        const QStringList files = dir.entryList(QDir::Files, QDir::Name);
        QVERIFY2(!files.isEmpty(), qPrintable(dir.path() + " has no seeds"));
        for (const QString& f : files) {
            QTest::newRow(qPrintable(target + "/" + f)) << target << dir.filePath(f);
            ++count;
        }
    }
    QVERIFY(count >= 12);
}

void TestFuzzCorpus::replay()
{
    QFETCH(QString, target);
    QFETCH(QString, path);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.constData());
    const std::size_t size = std::size_t(bytes.size());
    if (target == "tokenizer")
        QCOMPARE(fuzzTokenizer(data, size), 0);
    else if (target == "csv")
        QCOMPARE(fuzzCsv(data, size), 0);
    else if (target == "npy")
        QCOMPARE(fuzzNpy(data, size), 0);
    else if (target == "json")
        QCOMPARE(fuzzJson(data, size), 0);
    else if (target == "gpt2tokenizer")
        QCOMPARE(fuzzGpt2Tokenizer(data, size), 0);
    else if (target == "safetensors")
        QCOMPARE(fuzzSafetensors(data, size), 0);
    else if (target == "tokenizerjson")
        QCOMPARE(fuzzTokenizerJson(data, size), 0);
    else
        QCOMPARE(fuzzLabFile(data, size), 0);
}

QTEST_APPLESS_MAIN(TestFuzzCorpus)
#include "tst_fuzzcorpus.moc"
