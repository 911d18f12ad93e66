// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab's multi-head options run as a user runs them (QProcess on
// the built executable): torch.nn.MultiheadAttention's parameters from
// --mha-state and its own initialisation from --init torch-mha against
// PyTorch's numbers (tests/data/torch_mha_cases.json), the article's three
// heads (raschka_self_attention.json), one head against the single-head
// export, the files per head, a multi-head lab saved (--save) and opened
// (--open) to the very same files, and bad input refused with one line and
// nothing written.

#include "matrixio.h"
#include "mhastatefiles.h"
#include "npy.h"
#include "runapp.h"
#include "testdata.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <sys/stat.h>

namespace {

using apptest::readJsonFile;
using apptest::Run;
using apptest::runApp;

using mhatest::torchCase;
using mhatest::torchCaseCount;
using mhatest::writeBytes;
using mhatest::writeCaseState;
using mhatest::writeNpyFile;

double relativeDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    const double scale = b.size() ? std::max(1.0, b.cwiseAbs().maxCoeff()) : 1.0;
    return testdata::maxAbsDiff(a, b) / scale;
}

#define VERIFY_WITHIN(diff, tolerance, what) \
    QVERIFY2(                                \
        (diff) <= (tolerance),               \
        qPrintable(                          \
            QStringLiteral("%1: max |diff| %2 > %3").arg(QStringLiteral(what)).arg(diff).arg(tolerance)))

// attention.json's heads against the case: PyTorch's float32 numbers within
// 1e-5, the float64 recomputation within 1e-12.
void compareWithCase(const QJsonObject& json, const QJsonObject& c)
{
    const int h = c["h"].toInt();
    QCOMPARE(json["num_heads"].toInt(), h);
    QCOMPARE(json["head_layout"].toString(), QStringLiteral("split"));
    const QJsonArray heads = json["heads"].toArray();
    QCOMPARE(int(heads.size()), h);
    const attn::Matrix output = testdata::toMatrix(json["output"]);
    const attn::Matrix average = testdata::toMatrix(json["weights_average"]);
    VERIFY_WITHIN(testdata::maxAbsDiff(output, testdata::toMatrix(c["attn_output"])), 1e-5, "output");
    VERIFY_WITHIN(testdata::maxAbsDiff(average, testdata::toMatrix(c["attn_weights_average"])), 1e-5,
                  "average");
    const QJsonObject f = c["float64"].toObject();
    VERIFY_WITHIN(relativeDiff(output, testdata::toMatrix(f["attn_output"])), 1e-12, "output (float64)");
    VERIFY_WITHIN(relativeDiff(testdata::toMatrix(json["concat"]), testdata::toMatrix(f["concat"])), 1e-12,
                  "concat (float64)");
    attn::Matrix average64 = attn::Matrix::Zero(average.rows(), average.cols());
    for (int i = 0; i < h; ++i) {
        const QJsonObject head = heads[i].toObject();
        const attn::Matrix weights = testdata::toMatrix(head["weights"]);
        VERIFY_WITHIN(
            testdata::maxAbsDiff(weights, testdata::toMatrix(c["attn_weights_per_head"].toArray()[i])), 1e-5,
            "head weights");
        const QJsonObject ref = f["heads"].toArray()[i].toObject();
        VERIFY_WITHIN(testdata::maxAbsDiff(weights, testdata::toMatrix(ref["weights"])), 1e-12,
                      "head weights (float64)");
        VERIFY_WITHIN(relativeDiff(testdata::toMatrix(head["scores"]), testdata::toMatrix(ref["scores"])),
                      1e-12, "head scores (float64)");
        average64 += testdata::toMatrix(ref["weights"]);
        // Masked scaled entries are null; their weights 0.
        if (c["causal"].toBool()) {
            QVERIFY(head["scaled_scores"].toArray()[0].toArray()[1].isNull());
            QCOMPARE(weights(0, 1), 0.0);
        }
    }
    VERIFY_WITHIN(testdata::maxAbsDiff(average, average64 / double(h)), 1e-12, "average (float64)");
}

QByteArray readBytes(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QStringList filesIn(const QString& dir)
{
    return QDir(dir).entryList(QDir::Files, QDir::Name);
}

QStringList caseOptions(const QJsonObject& c)
{
    QStringList options = {"--heads", QString::number(c["h"].toInt())};
    if (c["causal"].toBool())
        options << "--causal";
    return options;
}

}  // namespace

class TestMultiHeadCommand : public QObject {
    Q_OBJECT
private slots:
    void stateFolderMatchesPyTorch_data();
    void stateFolderMatchesPyTorch();
    void torchMhaInitMatchesPyTorch_data();
    void torchMhaInitMatchesPyTorch();
    void articleThreeHeads();
    void oneHeadKeepsTheSingleHeadKeys();
    void outputProjection();
    void filesPerHead();
    void badInput_data();
    void badInput();
    void saveThenOpenExportsTheSame_data();
    void saveThenOpenExportsTheSame();
    void stateFolderSavedAndOpened();
    void badLabRefused_data();
    void badLabRefused();
};

void TestMultiHeadCommand::stateFolderMatchesPyTorch_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < torchCaseCount(); ++i) {
        const QJsonObject c = torchCase(i);
        QTest::addRow("case %d: E=%d h=%d%s%s", i, c["E"].toInt(), c["h"].toInt(),
                      c["causal"].toBool() ? " causal" : "", c["biased"].toBool() ? " biased" : "")
            << i;
    }
}

void TestMultiHeadCommand::stateFolderMatchesPyTorch()
{
    QFETCH(int, index);
    const QJsonObject c = torchCase(index);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir("state"));
    QVERIFY(writeCaseState(c, dir.path()));
    const QString out = dir.filePath("out");
    const Run run = runApp(QStringList{"--x", dir.filePath("x.npy"), "--mha-state", dir.filePath("state"),
                                       "--export-dir", out, "--format", "json"}
                           + caseOptions(c));
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    const QJsonObject json = readJsonFile(out + "/attention.json");
    compareWithCase(json, c);
    QCOMPARE(json["head_init"].toString(), QStringLiteral("mha-state"));
    // The parameters come back in PyTorch's layout, exactly.
    QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(json["in_proj_weight"]),
                                  testdata::toMatrix(c["in_proj_weight"])),
             0.0);
    QCOMPARE(
        testdata::maxAbsDiff(testdata::toMatrix(json["in_proj_bias"]), testdata::toMatrix(c["in_proj_bias"])),
        0.0);
    QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(json["out_proj_weight"]),
                                  testdata::toMatrix(c["out_proj_weight"])),
             0.0);
    QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(json["out_proj_bias"]),
                                  testdata::toMatrix(c["out_proj_bias"])),
             0.0);
    QVERIFY(json["in_proj_bias"].toArray()[0].isDouble());  // a flat (3E) list, as PyTorch's
}

void TestMultiHeadCommand::torchMhaInitMatchesPyTorch_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < torchCaseCount(); ++i) {
        const QJsonObject c = torchCase(i);
        if (!c["biased"].toBool())  // the module's default initialisation, biases 0
            QTest::addRow("case %d: E=%d h=%d%s", i, c["E"].toInt(), c["h"].toInt(),
                          c["causal"].toBool() ? " causal" : "")
                << i;
    }
}

void TestMultiHeadCommand::torchMhaInitMatchesPyTorch()
{
    QFETCH(int, index);
    const QJsonObject c = torchCase(index);
    QTemporaryDir dir;
    const Run run =
        runApp(QStringList{"--init", "torch-mha", "--sentence", c["sentence"].toString(), "--seed",
                           QString::number(c["seed"].toInteger()), "--d-model",
                           QString::number(c["E"].toInt()), "--export-dir", dir.path(), "--format", "json"}
               + caseOptions(c));
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath("attention.json"));
    QCOMPARE(json["head_init"].toString(), QStringLiteral("torch-mha"));
    // The module's parameters bit for bit; X (normal_) within 2 float32 ulp.
    for (const char* key : {"in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias"})
        QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(json[key]), testdata::toMatrix(c[key])), 0.0);
    VERIFY_WITHIN(testdata::maxAbsDiff(testdata::toMatrix(json["X"]), testdata::toMatrix(c["x"])), 5e-7, "x");
    QCOMPARE(json["d_k"].toInt(), c["head_dim"].toInt());
    // PyTorch's float32 outputs (X's ulp moves them far less than 1e-5).
    const int h = c["h"].toInt();
    VERIFY_WITHIN(
        testdata::maxAbsDiff(testdata::toMatrix(json["output"]), testdata::toMatrix(c["attn_output"])), 1e-5,
        "output");
    VERIFY_WITHIN(testdata::maxAbsDiff(testdata::toMatrix(json["weights_average"]),
                                       testdata::toMatrix(c["attn_weights_average"])),
                  1e-5, "average");
    for (int i = 0; i < h; ++i)
        VERIFY_WITHIN(
            testdata::maxAbsDiff(testdata::toMatrix(json["heads"].toArray()[i].toObject()["weights"]),
                                 testdata::toMatrix(c["attn_weights_per_head"].toArray()[i])),
            1e-5, "head weights");
}

void TestMultiHeadCommand::articleThreeHeads()
{
    const QJsonObject mh = testdata::readJson("raschka_self_attention.json")["multi_head_derived"].toObject();
    QTemporaryDir dir;
    const Run run =
        runApp({"--init", "article", "--heads", "3", "--export-dir", dir.path(), "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath("attention.json"));
    QCOMPARE(json["head_layout"].toString(), QStringLiteral("independent"));
    const QJsonArray heads = json["heads"].toArray();
    QCOMPARE(int(heads.size()), 3);
    for (int i = 0; i < 3; ++i) {
        const QJsonObject head = heads[i].toObject();
        QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(head["W_q"]),
                                      testdata::toMatrix(mh["multihead_W_query"].toArray()[i]).transpose()),
                 0.0);
        QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(head["W_v"]),
                                      testdata::toMatrix(mh["multihead_W_value"].toArray()[i]).transpose()),
                 0.0);
        VERIFY_WITHIN(testdata::maxAbsDiff(testdata::toMatrix(head["scores"]),
                                           testdata::toMatrix(mh["scores"].toArray()[i])),
                      3e-5, "scores");
        VERIFY_WITHIN(testdata::maxAbsDiff(testdata::toMatrix(head["weights"]),
                                           testdata::toMatrix(mh["weights"].toArray()[i])),
                      1e-6, "weights");
        VERIFY_WITHIN(
            relativeDiff(testdata::toMatrix(head["context"]), testdata::toMatrix(mh["context"].toArray()[i])),
            1e-6, "context");
        // Its own statistics, from its own weights: each row's largest
        // weight and entropy -sum a log a, and their means.
        const attn::Matrix w = testdata::toMatrix(head["weights"]);
        const QJsonObject stats = head["stats"].toObject();
        const QJsonArray rows = stats["rows"].toArray();
        QCOMPARE(int(rows.size()), 6);
        double meanMax = 0.0, meanEntropy = 0.0;
        for (int q = 0; q < 6; ++q) {
            double entropy = 0.0;
            for (int k = 0; k < 6; ++k)
                entropy -= w(q, k) > 0 ? w(q, k) * std::log(w(q, k)) : 0.0;
            const QJsonObject row = rows[q].toObject();
            VERIFY_WITHIN(std::abs(row["max_weight"].toDouble() - w.row(q).maxCoeff()), 1e-15, "max weight");
            VERIFY_WITHIN(std::abs(row["entropy_nats"].toDouble() - entropy), 1e-12, "entropy");
            meanMax += w.row(q).maxCoeff() / 6;
            meanEntropy += entropy / 6;
        }
        VERIFY_WITHIN(std::abs(stats["mean_max_weight"].toDouble() - meanMax), 1e-12, "mean max weight");
        VERIFY_WITHIN(std::abs(stats["mean_entropy_nats"].toDouble() - meanEntropy), 1e-12, "mean entropy");
    }
    // Head 1's are the single-head keys' statistics.
    QCOMPARE(heads[0].toObject()["stats"], json["stats"]);
    // The concatenation: (6, 3 x 28), head i's context in columns 28 i ..
    const attn::Matrix concat = testdata::toMatrix(json["concat"]);
    QCOMPARE(int(concat.cols()), 84);
    QCOMPARE(
        testdata::maxAbsDiff(concat.middleCols(28, 28), testdata::toMatrix(heads[1].toObject()["context"])),
        0.0);
    QVERIFY(!json.contains("output"));
}

void TestMultiHeadCommand::oneHeadKeepsTheSingleHeadKeys()
{
    QTemporaryDir dir;
    const Run single = runApp({"--export-dir", dir.filePath("single"), "--format", "json"});
    const Run one = runApp({"--heads", "1", "--export-dir", dir.filePath("one"), "--format", "json"});
    QVERIFY2(single.exitCode == 0 && one.exitCode == 0, one.err.constData());
    const QJsonObject a = readJsonFile(dir.filePath("single/attention.json"));
    const QJsonObject b = readJsonFile(dir.filePath("one/attention.json"));
    QVERIFY(!a.isEmpty());
    for (const QString& key : a.keys())
        if (key != "generator")
            QVERIFY2(a[key] == b[key], qPrintable(key));
    const QJsonObject head = b["heads"].toArray()[0].toObject();
    for (const char* key : {"Q", "K", "V", "scores", "scaled_scores", "weights", "context", "stats"})
        QVERIFY2(head[key] == a[key], key);
    QCOMPARE(head["W_q"], a["W_q"]);
    QCOMPARE(b["weights_average"], a["weights"]);
    QCOMPARE(b["concat"], a["context"]);
    QVERIFY(!b.contains("output"));
}

void TestMultiHeadCommand::outputProjection()
{
    QTemporaryDir dir;
    const Run run =
        runApp({"--heads", "2", "--d-model", "10", "--d-k", "3", "--d-v", "5", "--init", "unit-variance",
                "--output-projection", "--causal", "--export-dir", dir.path(), "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath("attention.json"));
    const attn::Matrix concat = testdata::toMatrix(json["concat"]);
    const attn::Matrix wo = testdata::toMatrix(json["W_o"]);
    QCOMPARE(int(wo.rows()), 10);  // h d_v
    QCOMPARE(int(wo.cols()), 10);  // d_model
    // output = concat W_o, by a plain loop.
    attn::Matrix expected(concat.rows(), wo.cols());
    for (int i = 0; i < concat.rows(); ++i)
        for (int j = 0; j < wo.cols(); ++j) {
            double sum = 0;
            for (int p = 0; p < concat.cols(); ++p)
                sum += concat(i, p) * wo(p, j);
            expected(i, j) = sum;
        }
    VERIFY_WITHIN(relativeDiff(testdata::toMatrix(json["output"]), expected), 1e-13, "output");
    // The heads differ (their own streams) and the mask holds in each.
    const QJsonArray heads = json["heads"].toArray();
    QVERIFY(heads[0].toObject()["W_q"] != heads[1].toObject()["W_q"]);
    for (const QJsonValue& head : heads)
        QVERIFY(head.toObject()["scaled_scores"].toArray()[0].toArray()[1].isNull());
}

void TestMultiHeadCommand::filesPerHead()
{
    QTemporaryDir dir;
    const Run run = runApp(
        {"--init", "torch-mha", "--heads", "2", "--export-dir", dir.path(), "--format", "json,csv,npy"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath("attention.json"));
    for (const char* name :
         {"weights_head2", "scores_head1", "Q_head2", "context_head2", "W_v_head1", "weights_average",
          "concat", "output", "in_proj_weight", "out_proj_bias", "weights"}) {
        QVERIFY2(QFile::exists(dir.filePath(QString(name) + ".csv")), name);
        QVERIFY2(QFile::exists(dir.filePath(QString(name) + ".npy")), name);
    }
    const attn::Expected<attn::Matrix> w2 = attnlab::readNpyFile(dir.filePath("weights_head2.npy"));
    QVERIFY(w2.ok());
    QCOMPARE(testdata::maxAbsDiff(*w2, testdata::toMatrix(json["heads"].toArray()[1].toObject()["weights"])),
             0.0);
    const attn::Expected<attn::Matrix> q1 = attnlab::readMatrixFile(dir.filePath("Q_head1.csv"));
    QVERIFY(q1.ok());
    QCOMPARE(testdata::maxAbsDiff(*q1, testdata::toMatrix(json["heads"].toArray()[0].toObject()["Q"])), 0.0);
    // Head 1 is the single-head files' head.
    QCOMPARE(json["weights"], json["heads"].toArray()[0].toObject()["weights"]);
    QVERIFY(!QFile::exists(dir.filePath("W_o.npy")));
}

void TestMultiHeadCommand::badInput_data()
{
    // What to break in a valid --mha-state run (case 0, E = 16, h = 4) and
    // what the one line must say.
    QTest::addColumn<QString>("breakage");
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("message");
    const QStringList none;
    QTest::newRow("missing file") << "remove in_proj_bias.npy" << none
                                  << "in_proj_bias.npy is missing; expected shape (48,) = (3E,) for E = 16";
    // Not a file: said what it is, as the other readers say it, not "missing".
    QTest::newRow("a folder") << "folder in_proj_bias.npy" << none
                              << "in_proj_bias.npy: a folder, not a file; only regular files and pipes";
    QTest::newRow("a FIFO with no writer")
        << "fifo in_proj_bias.npy" << none
        << "in_proj_bias.npy: nothing came through the pipe (no program was writing to it)";
    QTest::newRow("a link loop") << "loop in_proj_bias.npy" << none
                                 << "in_proj_bias.npy': " + QString::fromLocal8Bit(std::strerror(ELOOP));
    QTest::newRow("/dev/zero") << "zero in_proj_bias.npy" << none
                               << "in_proj_bias.npy: a device, not a file; only regular files and pipes";
    QTest::newRow("wrong shape") << "transpose in_proj_weight.npy" << none
                                 << "in_proj_weight.npy has shape (16, 48) but (48, 16) = (3E, E) for E = 16";
    QTest::newRow("wrong out_proj") << "shrink out_proj.weight.npy" << none
                                    << "out_proj.weight.npy has shape (16, 15) but (16, 16) = (E, E)";
    QTest::newRow("h does not divide E")
        << "" << QStringList{"--heads", "3"} << "--heads 3 does not divide d_model = 16";
    QTest::newRow("no heads") << "" << QStringList{"--heads", "0"}
                              << "--heads must be a whole number from 1 to 64";
    QTest::newRow("65 heads") << "" << QStringList{"--heads", "65"}
                              << "--heads must be a whole number from 1 to 64";
    QTest::newRow("not a number") << "" << QStringList{"--heads", "two"} << "not 'two'";
    QTest::newRow("projection in split")
        << "" << QStringList{"--output-projection"} << "--output-projection is for the independent layout";
    QTest::newRow("bad layout") << "" << QStringList{"--head-layout", "mixed"}
                                << "--head-layout must be independent or split, not 'mixed'";
    QTest::newRow("state with independent")
        << "" << QStringList{"--head-layout", "independent"} << "--mha-state is the split layout";
    QTest::newRow("no x") << "drop --x" << none << "--mha-state needs --x FILE";
    QTest::newRow("d_k against E/h") << "" << QStringList{"--d-k", "8"}
                                     << "--d-k 8 does not fit the split layout: d_k = d_v = d_model / h = 4";
}

void TestMultiHeadCommand::badInput()
{
    QFETCH(QString, breakage);
    QFETCH(QStringList, options);
    QFETCH(QString, message);
    const QJsonObject c = torchCase(0);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir("state"));
    QVERIFY(writeCaseState(c, dir.path()));
    const QString state = dir.filePath("state");
    if (breakage == "remove in_proj_bias.npy")
        QVERIFY(QFile::remove(state + "/in_proj_bias.npy"));
    const QString bias = state + "/in_proj_bias.npy";
    if (breakage.endsWith(" in_proj_bias.npy") && !breakage.startsWith("remove"))
        QVERIFY(QFile::remove(bias));
    if (breakage == "folder in_proj_bias.npy")
        QVERIFY(QDir(state).mkdir("in_proj_bias.npy"));
    if (breakage == "fifo in_proj_bias.npy")
        QCOMPARE(::mkfifo(QFile::encodeName(bias).constData(), 0600), 0);
    if (breakage == "loop in_proj_bias.npy")
        QVERIFY(QFile::link(bias, bias));
    if (breakage == "zero in_proj_bias.npy")
        QVERIFY(QFile::link("/dev/zero", bias));
    if (breakage == "transpose in_proj_weight.npy")
        QVERIFY(
            writeNpyFile(state + "/in_proj_weight.npy", testdata::toMatrix(c["in_proj_weight"]).transpose()));
    if (breakage == "shrink out_proj.weight.npy")
        QVERIFY(writeNpyFile(state + "/out_proj.weight.npy",
                             testdata::toMatrix(c["out_proj_weight"]).leftCols(15)));
    QStringList args = {"--mha-state", state};
    if (!options.contains("--heads"))
        args << "--heads"
             << "4";
    if (breakage != "drop --x")
        args << "--x" << dir.filePath("x.npy");
    const QString out = dir.filePath("out");
    if (breakage != "drop --export-dir")
        args << "--export-dir" << out;
    args << options;
    const Run run = runApp(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    const QString err = QString::fromUtf8(run.err);
    QCOMPARE(err.count('\n'), 1);
    QVERIFY2(err.startsWith("attention-lab: "), qPrintable(err));
    QVERIFY2(err.contains(message), qPrintable(err));
    QVERIFY(!QFileInfo::exists(out));
}

void TestMultiHeadCommand::saveThenOpenExportsTheSame_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::newRow("article, 3 heads") << QStringList{"--heads", "3", "--init", "article"};
    QTest::newRow("W_o, causal, unit-variance")
        << QStringList{"--heads", "2", "--d-model",           "10",       "--d-k",  "3",
                       "--d-v",   "5", "--output-projection", "--causal", "--init", "unit-variance"};
    QTest::newRow("torch-mha, 4 heads, causal")
        << QStringList{"--init", "torch-mha", "--heads", "4", "--causal"};
    QTest::newRow("split, normal, custom scale") << QStringList{
        "--heads", "3", "--head-layout", "split", "--d-model", "6", "--init", "normal", "--scale", "2.5"};
}

// --save beside the direct export, then --open: the same files, byte for
// byte, and saving the opened lab again gives the same lab.
void TestMultiHeadCommand::saveThenOpenExportsTheSame()
{
    QFETCH(QStringList, options);
    QTemporaryDir dir;
    const QString lab = dir.filePath("heads.attnlab");
    const Run direct = runApp(
        options
        + QStringList{"--export-dir", dir.filePath("direct"), "--format", "json,csv,npy", "--save", lab});
    QVERIFY2(direct.exitCode == 0, direct.err.constData());
    QVERIFY(direct.out.contains("Saved the lab to"));
    const QJsonObject saved = readJsonFile(lab);
    QCOMPARE(saved["version"].toInt(), 2);
    QCOMPARE(saved["heads"].toObject()["count"].toInt(), options[options.indexOf("--heads") + 1].toInt());
    QCOMPARE(saved["heads"].toObject()["torch_init"].toBool(), options.contains("torch-mha"));

    const Run opened =
        runApp({"--open", lab, "--export-dir", dir.filePath("opened"), "--format", "json,csv,npy"});
    QVERIFY2(opened.exitCode == 0, opened.err.constData());
    QVERIFY(opened.err.isEmpty());
    const QStringList files = filesIn(dir.filePath("direct"));
    QVERIFY(files.contains("attention.json") && files.contains("weights_head2.npy"));
    QCOMPARE(filesIn(dir.filePath("opened")), files);
    for (const QString& name : files)
        QVERIFY2(readBytes(dir.filePath("opened/" + name)) == readBytes(dir.filePath("direct/" + name)),
                 qPrintable(name));

    const QString again = dir.filePath("again.attnlab");
    const Run resaved = runApp({"--open", lab, "--save", again});
    QVERIFY2(resaved.exitCode == 0, resaved.err.constData());
    QCOMPARE(readBytes(again), readBytes(lab));
}

// PyTorch's own parameters (case 0) saved from --mha-state: the lab opens to
// the module's numbers, and the rows of --x keep their labels.
void TestMultiHeadCommand::stateFolderSavedAndOpened()
{
    const QJsonObject c = torchCase(0);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir("state"));
    QVERIFY(writeCaseState(c, dir.path()));
    const QString lab = dir.filePath("module.attnlab");
    const Run save =
        runApp(QStringList{"--x", dir.filePath("x.npy"), "--mha-state", dir.filePath("state"), "--save", lab,
                           "--export-dir", dir.filePath("direct"), "--format", "json"}
               + caseOptions(c));
    QVERIFY2(save.exitCode == 0, save.err.constData());
    const QJsonObject heads = readJsonFile(lab)["heads"].toObject();
    QCOMPARE(heads["layout"].toString(), QStringLiteral("split"));
    QCOMPARE(heads["torch_init"].toBool(true), false);
    for (const char* key : {"in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias"})
        QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(heads[key]), testdata::toMatrix(c[key])), 0.0);

    const Run open = runApp({"--open", lab, "--export-dir", dir.filePath("opened"), "--format", "json"});
    QVERIFY2(open.exitCode == 0, open.err.constData());
    const QJsonObject direct = readJsonFile(dir.filePath("direct/attention.json"));
    const QJsonObject opened = readJsonFile(dir.filePath("opened/attention.json"));
    compareWithCase(opened, c);
    // Only the parameters' source is not in the lab: the heads' numbers are.
    for (const QString& key : direct.keys())
        if (key != "head_init")
            QVERIFY2(opened[key] == direct[key], qPrintable(key));
    QCOMPARE(direct["head_init"].toString(), QStringLiteral("mha-state"));
    QCOMPARE(opened["head_init"].toString(), QStringLiteral("article"));
}

void TestMultiHeadCommand::badLabRefused_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("message");
    const QStringList wo = {"--heads", "2", "--d-model",          "4", "--d-k", "2",
                            "--d-v",   "3", "--output-projection"};
    QTest::newRow("W_o without output_projection")
        << wo << "\"output_projection\": true"
        << "\"output_projection\": false"
        << "--open: heads.attnlab: \"heads\".\"W_o\" is given but \"output_projection\" is false; remove one "
           "of them";
    QTest::newRow("selected out of range") << wo << "\"selected\": 1"
                                           << "\"selected\": 3"
                                           << "\"heads\".\"selected\" is 3 but the heads are numbered 1 to 2";
    QTest::newRow("count not dividing E")
        << QStringList{"--init", "torch-mha", "--heads", "2", "--d-model", "4"} << "\"count\": 2"
        << "\"count\": 3"
        << "\"heads\".\"count\": In the split layout h must divide d_model";
    QTest::newRow("layout unknown")
        << wo << "\"layout\": \"independent\""
        << "\"layout\": \"mixed\""
        << "\"heads\".\"layout\" must be \"independent\" or \"split\", not \"mixed\"";
    QTest::newRow("pictures of the heads") << wo << ""
                                           << ""
                                           << "--format: the multi-head export writes json, csv and npy";
}

// A broken multi-head lab: exit 2, one line naming the field, nothing
// written.
void TestMultiHeadCommand::badLabRefused()
{
    QFETCH(QStringList, options);
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString lab = dir.filePath("heads.attnlab");
    const Run save = runApp(options + QStringList{"--save", lab});
    QVERIFY2(save.exitCode == 0, save.err.constData());
    QByteArray text = readBytes(lab);
    if (!from.isEmpty()) {
        QVERIFY(text.contains(from.toUtf8()));
        text.replace(from.toUtf8(), to.toUtf8());
        QVERIFY(writeBytes(lab, text.toStdString()));
    }
    const QString out = dir.filePath("out");
    const Run run =
        runApp({"--open", lab, "--export-dir", out, "--format", from.isEmpty() ? "json,png" : "json"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    const QString err = QString::fromUtf8(run.err);
    QCOMPARE(err.count('\n'), 1);
    QVERIFY2(err.startsWith("attention-lab: "), qPrintable(err));
    QVERIFY2(err.contains(message), qPrintable(err));
    QVERIFY(!QFileInfo::exists(out));
}

QTEST_GUILESS_MAIN(TestMultiHeadCommand)
#include "tst_multiheadcommand.moc"
