// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab --flash-tiles RxC --export-dir OUT as a user runs it
// (QProcess on the built executable): flash.json's keys and shapes, one step
// per tile in FlashAttention's order, the causal mask's skipped tiles; each
// query block's last m and l against a plain softmax of the scaled scores
// attention.json holds, its O / l against flash.json's context, and the
// context against attention.json's (the direct pass) within 1e-12; the
// usage errors (exit 2, one line, nothing written).

#include "runapp.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using apptest::Run;
using apptest::runApp;

namespace {

const QStringList kLab = {"--sentence", "the cat sat on the mat while it rained",
                          "--d-model",  "8",
                          "--d-k",      "5",
                          "--d-v",      "3",
                          "--seed",     "11"};

double largestAbs(const QJsonArray& rows)
{
    double m = 0;
    for (const QJsonValue& row : rows)
        for (const QJsonValue& v : row.toArray())
            m = std::max(m, std::abs(v.toDouble()));
    return m;
}

}  // namespace

class TestFlashTilesCommand : public QObject {
    Q_OBJECT
private slots:
    void writesFlashJson_data();
    void writesFlashJson();
    void articleSixTokensTwoByThree();
    void usageErrors_data();
    void usageErrors();
};

void TestFlashTilesCommand::writesFlashJson_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("br");
    QTest::addColumn<int>("bc");
    QTest::addColumn<bool>("causal");
    for (const auto& [br, bc] : {std::pair{2, 3}, {3, 3}, {4, 5}, {1, 9}, {9, 1}, {9, 9}, {5, 2}}) {
        for (bool causal : {false, true}) {
            QStringList extra;
            if (causal)
                extra << "--causal";
            if (br == 4)
                extra << "--scale"
                      << "none";
            if (br == 5)
                extra << "--scale"
                      << "0.7"
                      << "--init"
                      << "normal";
            QTest::addRow("%dx%d%s", br, bc, causal ? " causal" : "") << extra << br << bc << causal;
        }
    }
}

void TestFlashTilesCommand::writesFlashJson()
{
    QFETCH(QStringList, extra);
    QFETCH(int, br);
    QFETCH(int, bc);
    QFETCH(bool, causal);
    QTemporaryDir scratch;
    const QString out = scratch.filePath(QStringLiteral("out"));
    const Run run =
        runApp(kLab + extra
               + QStringList{"--flash-tiles", QStringLiteral("%1x%2").arg(br).arg(bc), "--export-dir", out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    const QJsonObject flash = apptest::readJsonFile(out + "/flash.json");
    const QJsonObject attention = apptest::readJsonFile(out + "/attention.json");
    QVERIFY(!flash.isEmpty());
    QVERIFY(!attention.isEmpty());

    const int n = 9, dv = 3;
    QCOMPARE(flash["tokens"].toArray().size(), n);
    QCOMPARE(flash["d_k"].toInt(), 5);
    QCOMPARE(flash["d_v"].toInt(), dv);
    QCOMPARE(flash["block_rows"].toInt(), br);
    QCOMPARE(flash["block_cols"].toInt(), bc);
    QCOMPARE(flash["causal"].toBool(), causal);
    QCOMPARE(flash["mask"].toString(), causal ? QStringLiteral("causal") : QStringLiteral("none"));
    QCOMPARE(flash["scale_divisor"].toDouble(), attention["scale_divisor"].toDouble());
    QCOMPARE(flash["scale_mode"].toString(), attention["scale_mode"].toString());
    const QJsonObject memory = flash["memory_bytes"].toObject();
    QCOMPARE(memory["score_matrix"].toInt(), 8 * n * n);
    QCOMPARE(memory["inputs_and_context"].toInt(), 8 * n * (2 * 5 + 2 * dv));
    QCOMPARE(memory["one_tile"].toInt(), 8 * (br * bc + br * (dv + 3)));

    const QJsonArray steps = flash["steps"].toArray();
    const int queryBlocks = (n + br - 1) / br, keyBlocks = (n + bc - 1) / bc;
    QCOMPARE(steps.size(), queryBlocks * keyBlocks);
    const QJsonArray scaled = attention["scaled_scores"].toArray();
    const QJsonArray directContext = attention["context"].toArray();
    const QJsonArray context = flash["context"].toArray();
    QCOMPARE(context.size(), n);
    int skipped = 0;
    for (int t = 0; t < steps.size(); ++t) {
        const QJsonObject step = steps[t].toObject();
        QCOMPARE(step.keys(), (QStringList{"O", "key_cols", "l", "m", "query_rows", "rescale", "skipped"}));
        // Query block outer, key block inner; the last block of each is shorter.
        const int q0 = (t / keyBlocks) * br, q1 = std::min(q0 + br, n) - 1;
        const int k0 = (t % keyBlocks) * bc, k1 = std::min(k0 + bc, n) - 1;
        QCOMPARE(step["query_rows"].toArray(), (QJsonArray{q0, q1}));
        QCOMPARE(step["key_cols"].toArray(), (QJsonArray{k0, k1}));
        const bool hidden = causal && k0 > q1;
        QCOMPARE(step["skipped"].toBool(), hidden);
        skipped += hidden;
        const int rows = q1 - q0 + 1;
        const QJsonArray m = step["m"].toArray(), l = step["l"].toArray(),
                         rescale = step["rescale"].toArray();
        const QJsonArray O = step["O"].toArray();
        QCOMPARE(m.size(), rows);
        QCOMPARE(l.size(), rows);
        QCOMPARE(rescale.size(), rows);
        QCOMPARE(O.size(), rows);
        for (int a = 0; a < rows; ++a) {
            QCOMPARE(O[a].toArray().size(), dv);
            QVERIFY(m[a].isDouble());  // the first key block holds key 0, which every row sees
            if (hidden)
                QCOMPARE(rescale[a].toDouble(), 1.0);
            if (k0 == 0)
                QCOMPARE(rescale[a].toDouble(), 0.0);  // exp(-inf - m): nothing seen before
            else
                QVERIFY(rescale[a].toDouble() > 0 && rescale[a].toDouble() <= 1);
        }
        if (k1 != n - 1)
            continue;
        // The block's last step: m and l as a plain softmax over attention.json's
        // scaled scores (null where masked), O / l as the context.
        for (int a = 0; a < rows; ++a) {
            const QJsonArray row = scaled[q0 + a].toArray();
            double largest = -INFINITY;
            for (const QJsonValue& s : row)
                if (!s.isNull())
                    largest = std::max(largest, s.toDouble());
            double sum = 0;
            for (const QJsonValue& s : row)
                if (!s.isNull())
                    sum += std::exp(s.toDouble() - largest);
            QCOMPARE(m[a].toDouble(), largest);
            QVERIFY(std::abs(l[a].toDouble() - sum) <= 1e-12 * sum);
            for (int c = 0; c < dv; ++c) {
                const double z = O[a].toArray()[c].toDouble() / l[a].toDouble();
                QVERIFY(std::abs(z - context[q0 + a].toArray()[c].toDouble())
                        <= 1e-15 * std::max(1.0, std::abs(z)));
            }
        }
    }
    int expectedSkipped = 0;
    for (int I = 0; I < queryBlocks; ++I)
        for (int J = 0; J < keyBlocks; ++J)
            expectedSkipped += causal && J * bc > std::min((I + 1) * br, n) - 1;
    QCOMPARE(skipped, expectedSkipped);

    const double scale = std::max(1.0, largestAbs(directContext));
    double diff = 0;
    for (int i = 0; i < n; ++i) {
        QCOMPARE(context[i].toArray().size(), dv);
        for (int c = 0; c < dv; ++c)
            diff = std::max(diff, std::abs(context[i].toArray()[c].toDouble()
                                           - directContext[i].toArray()[c].toDouble()));
    }
    QVERIFY2(diff <= 1e-12 * scale, qPrintable(QString::number(diff)));
    const double written = flash["max_abs_diff"].toDouble(-1);
    QVERIFY(written >= 0 && written <= 1e-12 * scale);
    QVERIFY(std::abs(written - diff) <= 4e-16 * scale);
}

// The default: the article's six tokens in 2 x 3 tiles, causal:
// six steps, the second (rows 0-1, keys 3-5) skipped.
void TestFlashTilesCommand::articleSixTokensTwoByThree()
{
    QTemporaryDir scratch;
    const QString out = scratch.filePath(QStringLiteral("out"));
    const Run run = runApp({"--causal", "--flash-tiles", "2x3", "--export-dir", out, "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(QDir(out).entryList(QDir::Files), (QStringList{"attention.json", "flash.json"}));
    QVERIFY2(run.out.startsWith("Wrote 2 file(s)"), run.out.constData());
    const QJsonObject flash = apptest::readJsonFile(out + "/flash.json");
    QCOMPARE(flash["tokens"].toArray().size(), 6);
    const QJsonArray steps = flash["steps"].toArray();
    QCOMPARE(steps.size(), 6);
    for (int t = 0; t < 6; ++t)
        QCOMPARE(steps[t].toObject()["skipped"].toBool(), t == 1);
    QCOMPARE(steps[1].toObject()["query_rows"].toArray(), (QJsonArray{0, 1}));
    QCOMPARE(steps[1].toObject()["key_cols"].toArray(), (QJsonArray{3, 5}));
    // The skipped step keeps the state of the step before it.
    for (const char* key : {"m", "l", "O"})
        QCOMPARE(steps[1].toObject()[key], steps[0].toObject()[key]);
    QCOMPARE(steps[1].toObject()["rescale"].toArray(), (QJsonArray{1, 1}));
}

void TestFlashTilesCommand::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString out = QStringLiteral("OUT");
    QTest::newRow("not RxC") << QStringList{"--flash-tiles", "2*3", "--export-dir", out}
                             << "attention-lab: --flash-tiles must be RxC, two whole numbers from 1 to 4096 "
                                "(queries and keys per tile), e.g. 2x3, not '2*3'";
    QTest::newRow("zero") << QStringList{"--flash-tiles", "0x3", "--export-dir", out}
                          << "attention-lab: --flash-tiles must be RxC, two whole numbers from 1 to 4096 "
                             "(queries and keys per tile), e.g. 2x3, not '0x3'";
    QTest::newRow("three parts") << QStringList{"--flash-tiles", "2x3x4", "--export-dir", out}
                                 << "attention-lab: --flash-tiles must be RxC, two whole numbers from 1 to "
                                    "4096 (queries and keys per tile), e.g. 2x3, not '2x3x4'";
    QTest::newRow("sign") << QStringList{"--flash-tiles", "+2x3", "--export-dir", out}
                          << "attention-lab: --flash-tiles must be RxC, two whole numbers from 1 to 4096 "
                             "(queries and keys per tile), e.g. 2x3, not '+2x3'";
    QTest::newRow("more keys than tokens")
        << QStringList{"--flash-tiles", "2x7", "--export-dir", out}
        << "attention-lab: --flash-tiles 2x7: the key block B_c must be from 1 to 6 (the tokens); got 7";
    QTest::newRow("more queries than tokens")
        << QStringList{"--flash-tiles", "7x1", "--export-dir", out}
        << "attention-lab: --flash-tiles 7x1: the query block B_r must be from 1 to 6 (the tokens); got 7";
    QTest::newRow("no export dir") << QStringList{"--flash-tiles", "2x3"}
                                   << "attention-lab: --flash-tiles writes flash.json: give --export-dir DIR";
    QTest::newRow("heads") << QStringList{"--flash-tiles", "2x3", "--heads", "2", "--export-dir", out}
                           << "attention-lab: --flash-tiles tiles a lab of one head; leave out the "
                              "multi-head options";
    QTest::newRow("twice") << QStringList{"--flash-tiles", "2x3", "--flash-tiles", "3x3", "--export-dir", out}
                           << "attention-lab: --flash-tiles is given twice ('2x3' and '3x3'); give it once";
    QTest::newRow("training lab") << QStringList{"--training-lab", "--flash-tiles", "2x3"}
                                  << "attention-lab: unknown option '--flash-tiles' for --training-lab (see "
                                     "attention-lab --training-lab --help)";
    // 1000 tokens at d_v 1024 in 1 x 1 tiles: 1000 * 1000 * 1027 + 1000 * 1024
    // numbers; B_c 22 makes 46 key blocks, 48,266,000 numbers (21: 48, 50,320,000).
    QStringList words;
    for (int i = 0; i < 1000; ++i)
        words << QStringLiteral("w%1").arg(i);
    QTest::newRow("too large") << QStringList{"--sentence",    words.join(' '), "--d-v",        "1024",
                                              "--flash-tiles", "1x1",           "--export-dir", out}
                               << "attention-lab: --flash-tiles 1x1 at 1000 tokens and d_v 1024 would write "
                                  "1028024000 numbers to flash.json, more than the 50000000 it takes; give a "
                                  "key block B_c of at least 22";
}

void TestFlashTilesCommand::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QTemporaryDir scratch;
    const QString out = scratch.filePath(QStringLiteral("OUT"));
    arguments.replaceInStrings(QStringLiteral("OUT"), out);
    const Run run = runApp(arguments);
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(QString::fromUtf8(run.err).trimmed(), message);
    QCOMPARE(run.err.count('\n'), 1);
    QVERIFY(!QFileInfo::exists(out));
}

QTEST_GUILESS_MAIN(TestFlashTilesCommand)
#include "tst_flashtilescommand.moc"
