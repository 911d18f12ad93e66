// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab --mask MASK as a user runs it (QProcess on the built
// executable): attention.json says the mask; its scaled scores are null
// exactly where the mask's formula hides a key, its weights 0 there and a
// softmax of the visible scaled scores elsewhere, its context those
// weights times V (within 1e-12, from the file's own numbers); --mask causal
// writes what --causal writes, byte for byte; the lab file keeps the mask
// and reopens to the same numbers; flash.json tiles the same mask; the
// usage errors (exit 2, one line, nothing written). With --model DIR (the
// reference checkpoints tiny-gpt2 and tiny-llama): model_attention.json
// says the mask, every head's scores are null exactly where it hides a key
// and its weights 0 there, and layer 0 (whose input no mask changes) has
// the reference.json scores, softmaxed over the keys the mask leaves.

#include "runapp.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <vector>

using apptest::readJsonFile;
using apptest::Run;
using apptest::runApp;

namespace {

const QStringList kLab = {
    "--sentence", "the cat sat on the mat while it rained", "--d-model", "8", "--d-k", "5", "--seed", "11"};
constexpr int kTokens = 9;

// The formulas, apart from the program's.
bool hides(const QString& mask, int i, int j)
{
    if (mask == "none")
        return false;
    if (mask == "causal")
        return j > i;
    if (mask.startsWith("sliding:")) {
        const int w = mask.mid(8).toInt();
        return !(i - w < j && j <= i);
    }
    // sink:S,window:W
    const QStringList parts = mask.mid(5).split(",window:");
    const int s = parts[0].toInt(), w = parts[1].toInt();
    return !(j <= i && (j < s || i - w < j));
}

QByteArray readBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool close(double got, double want)
{
    return std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want));
}

// attention.json's maps against the mask's formula and a plain softmax.
void checkAttentionJson(const QJsonObject& json, const QString& mask)
{
    QCOMPARE(json["mask"].toString(), mask);
    QCOMPARE(json["causal"].toBool(), mask != "none");
    const QJsonArray scores = json["scores"].toArray(), scaled = json["scaled_scores"].toArray(),
                     weights = json["weights"].toArray(), V = json["V"].toArray(),
                     context = json["context"].toArray();
    const double divisor = json["scale_divisor"].toDouble();
    QCOMPARE(scores.size(), kTokens);
    for (int i = 0; i < kTokens; ++i) {
        const QJsonArray s = scores[i].toArray(), sc = scaled[i].toArray(), w = weights[i].toArray();
        double largest = -INFINITY;
        for (int j = 0; j < kTokens; ++j)
            if (!hides(mask, i, j))
                largest = std::max(largest, s[j].toDouble() / divisor);
        double sum = 0.0;
        for (int j = 0; j < kTokens; ++j)
            if (!hides(mask, i, j))
                sum += std::exp(s[j].toDouble() / divisor - largest);
        std::vector<double> z(std::size_t(V[0].toArray().size()), 0.0);
        for (int j = 0; j < kTokens; ++j) {
            if (hides(mask, i, j)) {
                QVERIFY2(sc[j].isNull(), qPrintable(QStringLiteral("%1 (%2, %3)").arg(mask).arg(i).arg(j)));
                QCOMPARE(w[j].toDouble(-1.0), 0.0);
                continue;
            }
            QCOMPARE(sc[j].toDouble(), s[j].toDouble() / divisor);
            const double want = std::exp(s[j].toDouble() / divisor - largest) / sum;
            QVERIFY2(close(w[j].toDouble(), want), qPrintable(mask));
            for (std::size_t c = 0; c < z.size(); ++c)
                z[c] += want * V[j].toArray()[int(c)].toDouble();
        }
        for (std::size_t c = 0; c < z.size(); ++c)
            QVERIFY2(close(context[i].toArray()[int(c)].toDouble(), z[c]), qPrintable(mask));
    }
}

}  // namespace

class TestMaskCommand : public QObject {
    Q_OBJECT
private slots:
    void attentionJsonSaysAndAppliesTheMask_data();
    void attentionJsonSaysAndAppliesTheMask();
    void maskCausalIsCausal();
    void labFileKeepsTheMask();
    void labFileMaskErrors_data();
    void labFileMaskErrors();
    void flashTilesTakeTheMask();
    void usageErrors_data();
    void usageErrors();
    void modelWhatIf_data();
    void modelWhatIf();
    void modelUsageErrors();
};

void TestMaskCommand::attentionJsonSaysAndAppliesTheMask_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("mask");
    QTest::newRow("no mask") << QStringList{} << "none";
    QTest::newRow("none") << QStringList{"--mask", "none"} << "none";
    QTest::newRow("causal") << QStringList{"--mask", "causal"} << "causal";
    QTest::newRow("--causal") << QStringList{"--causal"} << "causal";
    QTest::newRow("sliding:1") << QStringList{"--mask", "sliding:1"} << "sliding:1";
    QTest::newRow("sliding:3") << QStringList{"--mask", "sliding:3", "--scale", "none"} << "sliding:3";
    QTest::newRow("--causal --mask causal") << QStringList{"--causal", "--mask", "causal"} << "causal";
    QTest::newRow("sink:2,window:3") << QStringList{"--mask", "sink:2,window:3"} << "sink:2,window:3";
    QTest::newRow("sink:0,window:2") << QStringList{"--mask", "sink:0,window:2", "--scale", "0.5"}
                                     << "sink:0,window:2";
    QTest::newRow("sink:1,window:1") << QStringList{"--mask=sink:1,window:1"} << "sink:1,window:1";
}

void TestMaskCommand::attentionJsonSaysAndAppliesTheMask()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, mask);
    QTemporaryDir dir;
    const Run run = runApp(kLab + extra + QStringList{"--export-dir", dir.filePath("out")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    checkAttentionJson(readJsonFile(dir.filePath("out/attention.json")), mask);
}

void TestMaskCommand::maskCausalIsCausal()
{
    QTemporaryDir dir;
    QCOMPARE(runApp(kLab + QStringList{"--causal", "--export-dir", dir.filePath("a")}).exitCode, 0);
    QCOMPARE(runApp(kLab + QStringList{"--mask", "causal", "--export-dir", dir.filePath("b")}).exitCode, 0);
    // A window as wide as the sentence sees what causal sees.
    QCOMPARE(runApp(kLab + QStringList{"--mask", "sliding:9", "--export-dir", dir.filePath("c")}).exitCode,
             0);
    const QByteArray a = readBytes(dir.filePath("a/attention.json"));
    QVERIFY(!a.isEmpty());
    QCOMPARE(readBytes(dir.filePath("b/attention.json")), a);
    QByteArray c = readBytes(dir.filePath("c/attention.json"));
    c.replace("\"mask\": \"sliding:9\"", "\"mask\": \"causal\"");
    QCOMPARE(c, a);
    for (const char* name : {"weights.csv", "scaled_scores.csv", "context.csv"})
        QCOMPARE(readBytes(dir.filePath("b/") + name), readBytes(dir.filePath("a/") + name));
}

void TestMaskCommand::labFileKeepsTheMask()
{
    QTemporaryDir dir;
    const QString lab = dir.filePath("lab.attnlab");
    QCOMPARE(runApp(kLab + QStringList{"--mask", "sink:2,window:3", "--save", lab}).exitCode, 0);
    const QJsonObject saved = readJsonFile(lab);
    QCOMPARE(saved["mask"].toString(), QString("sink:2,window:3"));
    QCOMPARE(saved["causal"].toBool(), true);
    QCOMPARE(saved["version"].toInt(), 2);
    const Run reopened = runApp({"--open", lab, "--export-dir", dir.filePath("out")});
    QVERIFY2(reopened.exitCode == 0, reopened.err.constData());
    QVERIFY(reopened.err.isEmpty());  // no warning
    checkAttentionJson(readJsonFile(dir.filePath("out/attention.json")), "sink:2,window:3");
    QCOMPARE(runApp(kLab + QStringList{"--mask", "sink:2,window:3", "--export-dir", dir.filePath("direct")})
                 .exitCode,
             0);
    QCOMPARE(readBytes(dir.filePath("out/weights.csv")), readBytes(dir.filePath("direct/weights.csv")));

    // Labs without a mask beyond causal are written as before: no "mask".
    const QString causal = dir.filePath("causal.attnlab");
    QCOMPARE(runApp(kLab + QStringList{"--causal", "--save", causal}).exitCode, 0);
    const QJsonObject c = readJsonFile(causal);
    QVERIFY(!c.contains("mask"));
    QCOMPARE(c["causal"].toBool(), true);
}

void TestMaskCommand::labFileMaskErrors_data()
{
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("to");
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("bad mask") << QByteArray("\"mask\": \"sliding:2\"")
                              << QByteArray("\"mask\": \"sliding:0\"")
                              << QByteArray("\"mask\": The mask must be");
    QTest::newRow("not a string") << QByteArray("\"mask\": \"sliding:2\"") << QByteArray("\"mask\": 2")
                                  << QByteArray("must be a string");
    QTest::newRow("causal false") << QByteArray("\"causal\": true") << QByteArray("\"causal\": false")
                                  << QByteArray("\"mask\" is \"sliding:2\" but \"causal\" is false");
}

void TestMaskCommand::labFileMaskErrors()
{
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QFETCH(QByteArray, message);
    QTemporaryDir dir;
    const QString lab = dir.filePath("lab.attnlab");
    QCOMPARE(runApp(kLab + QStringList{"--mask", "sliding:2", "--save", lab}).exitCode, 0);
    QByteArray text = readBytes(lab);
    QVERIFY(text.contains(from));
    text.replace(from, to);
    {
        QFile f(lab);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    }
    const Run run = runApp({"--open", lab, "--export-dir", dir.filePath("out")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message), run.err.constData());
    QCOMPARE(run.err.count('\n'), 1);
    QVERIFY(!QFileInfo::exists(dir.filePath("out")));
}

void TestMaskCommand::flashTilesTakeTheMask()
{
    QTemporaryDir dir;
    const Run run = runApp(kLab
                           + QStringList{"--mask", "sink:1,window:2", "--flash-tiles", "2x3", "--export-dir",
                                         dir.filePath("out")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject flash = readJsonFile(dir.filePath("out/flash.json"));
    QCOMPARE(flash["mask"].toString(), QString("sink:1,window:2"));
    QVERIFY(flash["max_abs_diff"].toDouble(1.0) <= 1e-12);
    // A tile is skipped exactly when the formula hides all of it.
    for (const QJsonValue& v : flash["steps"].toArray()) {
        const QJsonObject step = v.toObject();
        const QJsonArray q = step["query_rows"].toArray(), k = step["key_cols"].toArray();
        bool all = true;
        for (int i = q[0].toInt(); i <= q[1].toInt(); ++i)
            for (int j = k[0].toInt(); j <= k[1].toInt(); ++j)
                all = all && hides("sink:1,window:2", i, j);
        QCOMPARE(step["skipped"].toBool(), all);
    }
}

void TestMaskCommand::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("conflict") << QStringList{"--causal", "--mask", "sliding:3"}
                              << QByteArray(
                                     "attention-lab: --causal conflicts with --mask sliding:3: give one "
                                     "of them\n");
    QTest::newRow("conflict, other order")
        << QStringList{"--mask", "sink:1,window:2", "--causal"}
        << QByteArray("attention-lab: --causal conflicts with --mask sink:1,window:2: give one of them\n");
    QTest::newRow("window 0") << QStringList{"--mask", "sliding:0"}
                              << QByteArray(
                                     "attention-lab: --mask must be causal, sliding:W (W from 1) or "
                                     "sink:S,window:W (S from 0, W from 1), or none; not 'sliding:0'\n");
    QTest::newRow("unknown") << QStringList{"--mask", "local"} << QByteArray("not 'local'\n");
    QTest::newRow("sink without window") << QStringList{"--mask", "sink:2"} << QByteArray("not 'sink:2'\n");
    QTest::newRow("empty") << QStringList{"--mask", ""} << QByteArray("--mask");
    QTest::newRow("missing value") << QStringList{"--mask"} << QByteArray("--mask");
    QTest::newRow("twice") << QStringList{"--mask", "causal", "--mask", "sliding:2"} << QByteArray("--mask");
    QTest::newRow("none with a model")
        << QStringList{"--mask",     "none",
                       "--model",    QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2"),
                       "--sentence", "a b"}
        << QByteArray(
               "attention-lab: --mask none would let each position of the model read the tokens it is to "
               "predict; with --model give causal, sliding:W or sink:S,window:W\n");
    QTest::newRow("bad mask with a model") << QStringList{
        "--model",   QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2"), "--sentence", "a b", "--mask",
        "sliding:-1"} << QByteArray("not 'sliding:-1'\n");
}

void TestMaskCommand::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, message);
    QTemporaryDir dir;
    const Run run = runApp(args + QStringList{"--export-dir", dir.filePath("out")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message), run.err.constData());
    QCOMPARE(run.err.count('\n'), 1);
    QVERIFY(!QFileInfo::exists(dir.filePath("out")));
}

void TestMaskCommand::modelWhatIf_data()
{
    QTest::addColumn<QString>("checkpoint");  // under tests/data
    QTest::addColumn<QString>("mask");        // empty: no --mask
    QTest::newRow("gpt2 own") << QStringLiteral("gpt2/tiny-gpt2") << QString();
    QTest::newRow("gpt2 sliding:3") << QStringLiteral("gpt2/tiny-gpt2") << QStringLiteral("sliding:3");
    QTest::newRow("gpt2 sink:2,window:1")
        << QStringLiteral("gpt2/tiny-gpt2") << QStringLiteral("sink:2,window:1");
    QTest::newRow("llama sink:1,window:2")
        << QStringLiteral("llama/tiny-llama") << QStringLiteral("sink:1,window:2");
    QTest::newRow("llama causal") << QStringLiteral("llama/tiny-llama") << QStringLiteral("causal");
}

void TestMaskCommand::modelWhatIf()
{
    QFETCH(QString, checkpoint);
    QFETCH(QString, mask);
    const QString folder = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/") + checkpoint;
    const QJsonObject reference = readJsonFile(folder + "/reference.json")["cases"].toArray()[0].toObject();
    QTemporaryDir dir;
    QStringList args{"--model",      folder,
                     "--sentence",   reference["sentence"].toString(),
                     "--export-dir", dir.filePath("out")};
    if (!mask.isEmpty())
        args << "--mask" << mask;
    const Run run = runApp(args);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath("out/model_attention.json"));
    const QString applied = mask.isEmpty() ? QStringLiteral("causal") : mask;
    QCOMPARE(json["mask"].toString(), applied);
    QVERIFY(json["model"].toObject()["sliding_window"].isNull());
    QCOMPARE(json["token_ids"].toArray(), reference["token_ids"].toArray());
    const int n = json["token_ids"].toArray().size();
    const QJsonArray layers = json["layers"].toArray();
    QVERIFY(layers.size() >= 2);
    for (int l = 0; l < layers.size(); ++l) {
        const QJsonArray heads = layers[l].toObject()["heads"].toArray();
        for (int h = 0; h < heads.size(); ++h) {
            const QJsonObject head = heads[h].toObject();
            const QJsonArray scores = head["scores"].toArray(), weights = head["weights"].toArray();
            const QJsonArray refScores = reference["layers"]
                                             .toArray()[0]
                                             .toObject()["heads"]
                                             .toArray()[h]
                                             .toObject()["scores"]
                                             .toArray();
            const double divisor = head["divisor"].toDouble();
            for (int i = 0; i < n; ++i) {
                const QJsonArray s = scores[i].toArray(), w = weights[i].toArray(),
                                 ref = refScores[i].toArray();
                double largest = -INFINITY, sum = 0.0, total = 0.0;
                for (int j = 0; j < n; ++j) {
                    QCOMPARE(s[j].isNull(), hides(applied, i, j));
                    if (hides(applied, i, j))
                        QCOMPARE(w[j].toDouble(), 0.0);
                    else
                        largest = std::max(largest, ref[j].toDouble() / divisor);
                    total += w[j].toDouble();
                }
                QVERIFY(std::abs(total - 1.0) < 1e-12);
                if (l > 0)
                    continue;
                // Layer 0: the reference's scores, softmaxed over the keys the mask leaves.
                for (int j = 0; j < n; ++j)
                    if (!hides(applied, i, j))
                        sum += std::exp(ref[j].toDouble() / divisor - largest);
                for (int j = 0; j < n; ++j) {
                    if (hides(applied, i, j))
                        continue;
                    const double want = std::exp(ref[j].toDouble() / divisor - largest) / sum;
                    QVERIFY2(std::abs(w[j].toDouble() - want) <= 1e-10,
                             qPrintable(QStringLiteral("head %1 (%2, %3): %4 vs %5")
                                            .arg(h)
                                            .arg(i)
                                            .arg(j)
                                            .arg(w[j].toDouble())
                                            .arg(want)));
                    QVERIFY(std::abs(s[j].toDouble() - ref[j].toDouble())
                            <= 1e-10 * std::max(1.0, std::abs(ref[j].toDouble())));
                }
            }
        }
    }
}

void TestMaskCommand::modelUsageErrors()
{
    // The window's Model tab has its own choice of the mask: --mask with
    // --model and no --export-dir is refused, as --scale is.
    const Run run = runApp({"--model", QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2"), "--mask",
                            "sliding:2", "-platform", "offscreen"});
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err,
             QByteArray("attention-lab: --mask with --model is for the export: give --export-dir OUT, "
                        "or set it in the window's Model tab\n"));
}

QTEST_GUILESS_MAIN(TestMaskCommand)
#include "tst_maskcommand.moc"
