// SPDX-License-Identifier: GPL-3.0-or-later
// The export of one attention run: attention.json read back by QJsonDocument
// equals the engine's numbers, each CSV carries its labels, and the staged
// writer leaves either every file or none.

#include "attentionexport.h"
#include "matrixio.h"
#include "npy.h"
#include "stagedwrite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <sstream>

namespace {

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

attnlab::OutputFile textFile(const std::string& name, const std::string& text)
{
    return {name, [text](std::ostream& out) { out << text; }};
}

// The JSON array of rows `value` equals `m` exactly; null stands for -inf.
QString compareMatrix(const QJsonValue& value, const attn::Matrix& m)
{
    const QJsonArray rows = value.toArray();
    if (rows.size() != m.rows())
        return QString("%1 rows, expected %2").arg(rows.size()).arg(m.rows());
    for (int i = 0; i < rows.size(); ++i) {
        const QJsonArray row = rows[i].toArray();
        if (row.size() != m.cols())
            return QString("row %1 has %2 entries, expected %3").arg(i).arg(row.size()).arg(m.cols());
        for (int j = 0; j < row.size(); ++j) {
            const bool same =
                row[j].isNull() ? m(i, j) == -INFINITY : row[j].isDouble() && row[j].toDouble() == m(i, j);
            if (!same)
                return QString("cell (%1, %2): %3 vs %4")
                    .arg(i)
                    .arg(j)
                    .arg(row[j].toDouble(), 0, 'g', 17)
                    .arg(m(i, j), 0, 'g', 17);
        }
    }
    return {};
}

}  // namespace

class TestAttentionExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void formats_data();
    void formats();
    void formatErrors_data();
    void formatErrors();
    void fileNames();
    void jsonHoldsEverything();
    void jsonOneHeadInTheMultiHeadShape();
    void jsonMatricesExact();
    void jsonStatistics();
    void csvLabels_data();
    void csvLabels();
    void npyFiles();
    void imageFormatsNeedAnExporter();
    void registeredImageExporter();
    void failedPictureFailsTheExport();
    void stagedWriteCreatesDirectories();
    void stagedWriteReplacesOlderFiles();
    void failedWriteLeavesNothing();
    void failedRenameLeavesNothing();

private:
    attnlab::AttentionSnapshot snapshot_;
    QJsonObject json_;
};

void TestAttentionExport::initTestCase()
{
    attn::ModelConfig config;
    config.sentence = "the cat, the \"hat\"";
    config.tokenizer = attn::TokenizerMode::Punctuation;
    config.seed = 7;
    config.dModel = 5;
    config.dK = 3;
    config.dV = 4;
    config.init = attn::InitMode::StandardNormal;
    attn::AttentionOptions options;
    options.scale = attn::ScaleMode::Custom;
    options.customDivisor = 2.5;
    options.causal = true;
    auto snapshot = attnlab::computeSnapshot(config, options);
    QVERIFY2(snapshot.ok(), snapshot.ok() ? "" : snapshot.error().message.c_str());
    snapshot_ = snapshot.value();
    QCOMPARE(snapshot_.tokens.tokens.size(), std::size_t(7));

    std::ostringstream out;
    attnlab::writeAttentionJson(out, snapshot_);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    json_ = doc.object();
}

void TestAttentionExport::formats_data()
{
    QTest::addColumn<QString>("list");
    QTest::addColumn<bool>("json");
    QTest::addColumn<bool>("csv");
    QTest::addColumn<bool>("npy");
    QTest::addColumn<bool>("png");
    QTest::newRow("both") << "json,csv" << true << true << false << false;
    QTest::newRow("reversed with blanks") << "csv , json" << true << true << false << false;
    QTest::newRow("json only") << "json" << true << false << false << false;
    QTest::newRow("csv only") << "csv" << false << true << false << false;
    QTest::newRow("repeated") << "csv,csv" << false << true << false << false;
    QTest::newRow("npy only") << "npy" << false << false << true << false;
    QTest::newRow("all three") << "npy,json,csv" << true << true << true << false;
    QTest::newRow("png parses") << "png" << false << false << false << true;
}

void TestAttentionExport::formats()
{
    QFETCH(QString, list);
    QFETCH(bool, json);
    QFETCH(bool, csv);
    QFETCH(bool, npy);
    QFETCH(bool, png);
    const auto formats = attnlab::parseExportFormats(list.toStdString());
    QVERIFY(formats.ok());
    QCOMPARE(formats->json, json);
    QCOMPARE(formats->csv, csv);
    QCOMPARE(formats->npy, npy);
    QCOMPARE(formats->png, png);
    QVERIFY(!formats->svg && !formats->pdf);
}

void TestAttentionExport::formatErrors_data()
{
    QTest::addColumn<QString>("list");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown")
        << "xml"
        << "unknown export format 'xml'; use json, csv, npy, png, svg or pdf, e.g. json,csv";
    QTest::newRow("upper case")
        << "JSON"
        << "unknown export format 'JSON'; use json, csv, npy, png, svg or pdf, e.g. json,csv";
    QTest::newRow("empty")
        << ""
        << "--format '' has an empty name; use json, csv, npy, png, svg or pdf, e.g. json,csv";
    QTest::newRow("trailing comma")
        << "json,"
        << "--format 'json,' has an empty name; use json, csv, npy, png, svg or pdf, e.g. json,csv";
}

void TestAttentionExport::formatErrors()
{
    QFETCH(QString, list);
    QFETCH(QString, message);
    const auto formats = attnlab::parseExportFormats(list.toStdString());
    QVERIFY(!formats.ok());
    QCOMPARE(QString::fromStdString(formats.error().message), message);
}

void TestAttentionExport::fileNames()
{
    const std::vector<std::string> matrices = {"X", "W_q",    "W_k",           "W_v",     "Q",      "K",
                                               "V", "scores", "scaled_scores", "weights", "context"};
    QCOMPARE(attnlab::exportedMatrixNames(), matrices);

    const auto names = [this](attnlab::ExportFormats formats) {
        std::vector<std::string> result;
        for (const auto& file : attnlab::attentionExportFiles(snapshot_, formats))
            result.push_back(file.name);
        return result;
    };
    std::vector<std::string> csv;
    for (const auto& m : matrices)
        csv.push_back(m + ".csv");
    QCOMPARE(names({true, false}), std::vector<std::string>{"attention.json"});
    QCOMPARE(names({false, true}), csv);
    csv.insert(csv.begin(), "attention.json");
    QCOMPARE(names({true, true}), csv);
}

void TestAttentionExport::jsonHoldsEverything()
{
    QStringList expected = {"generator", "sentence",    "tokens",        "token_ids", "vocab",
                            "seed",      "d_model",     "d_k",           "d_v",       "init",
                            "tokenizer", "scale_mode",  "scale_divisor", "causal",    "mask",
                            "stats",     "head_layout", "num_heads",     "heads",     "weights_average",
                            "concat"};
    for (const auto& m : attnlab::exportedMatrixNames())
        expected << QString::fromStdString(m);
    expected.sort();
    QCOMPARE(json_.keys(), expected);

    QCOMPARE(json_["sentence"].toString(), QString("the cat, the \"hat\""));
    QCOMPARE(json_["tokens"].toArray(), QJsonArray({"the", "cat", ",", "the", "\"", "hat", "\""}));
    // Normal initialisation: the vocabulary in order of first appearance.
    QCOMPARE(json_["vocab"].toArray(), QJsonArray({"the", "cat", ",", "\"", "hat"}));
    QCOMPARE(json_["token_ids"].toArray(), QJsonArray({0, 1, 2, 0, 3, 4, 3}));
    QCOMPARE(json_["seed"].toInt(), 7);
    QCOMPARE(json_["d_model"].toInt(), 5);
    QCOMPARE(json_["d_k"].toInt(), 3);
    QCOMPARE(json_["d_v"].toInt(), 4);
    QCOMPARE(json_["init"].toString(), QString("normal"));
    QCOMPARE(json_["tokenizer"].toString(), QString("punctuation"));
    QCOMPARE(json_["scale_mode"].toString(), QString("custom"));
    QCOMPARE(json_["scale_divisor"].toDouble(), 2.5);
    QCOMPARE(json_["causal"].toBool(), true);
}

// One head in the multi-head export's shape: its object holds the pass's
// matrices (masked scaled scores null) and statistics, the average is the
// weights and the concatenation the context.
void TestAttentionExport::jsonOneHeadInTheMultiHeadShape()
{
    QCOMPARE(json_["head_layout"].toString(), QStringLiteral("independent"));
    QCOMPARE(json_["num_heads"].toInt(), 1);
    const QJsonArray heads = json_["heads"].toArray();
    QCOMPARE(heads.size(), 1);
    const QJsonObject head = heads.first().toObject();
    QCOMPARE(head.keys(), (QStringList{"K", "Q", "V", "W_k", "W_q", "W_v", "context", "scaled_scores",
                                       "scores", "stats", "weights"}));
    for (const QString& key : head.keys())
        QVERIFY2(head[key] == json_[key], qPrintable(key));
    QVERIFY(head["scaled_scores"].toArray()[0].toArray()[1].isNull());  // causal: key 2 after query 1
    QVERIFY(json_["weights_average"] == json_["weights"]);
    QVERIFY(json_["concat"] == json_["context"]);
    QCOMPARE(json_["weights"].toArray()[2].toArray()[1].toDouble(), snapshot_.head().weights(2, 1));
}

void TestAttentionExport::jsonMatricesExact()
{
    const attn::HeadWeights& w = snapshot_.headWeights();
    const attn::AttentionResult& r = snapshot_.head();
    const attn::Matrix scaledScores = r.scaledMatrix();
    const attn::Matrix weightMatrix = r.weightsMatrix();
    const std::pair<const char*, const attn::Matrix*> matrices[] = {{"X", &snapshot_.X},
                                                                    {"W_q", &w.Wq},
                                                                    {"W_k", &w.Wk},
                                                                    {"W_v", &w.Wv},
                                                                    {"Q", &r.Q},
                                                                    {"K", &r.K},
                                                                    {"V", &r.V},
                                                                    {"scores", &r.scores},
                                                                    {"scaled_scores", &scaledScores},
                                                                    {"weights", &weightMatrix},
                                                                    {"context", &r.context}};
    for (const auto& [name, matrix] : matrices) {
        const QString problem = compareMatrix(json_[name], *matrix);
        QVERIFY2(problem.isEmpty(), qPrintable(QString(name) + ": " + problem));
    }
    QCOMPARE(json_["W_q"].toArray().size(), 5);               // d_model rows
    QCOMPARE(json_["W_q"].toArray()[0].toArray().size(), 3);  // d_k columns
    QCOMPARE(json_["W_v"].toArray()[0].toArray().size(), 4);  // d_v columns

    // Causal: above the diagonal the scaled scores are null, weights 0.
    const QJsonArray scaled = json_["scaled_scores"].toArray();
    const QJsonArray weights = json_["weights"].toArray();
    for (int i = 0; i < 7; ++i) {
        for (int j = 0; j < 7; ++j) {
            QCOMPARE(scaled[i].toArray()[j].isNull(), j > i);
            if (j > i)
                QCOMPARE(weights[i].toArray()[j].toDouble(-1), 0.0);
        }
    }
}

void TestAttentionExport::jsonStatistics()
{
    const QJsonObject stats = json_["stats"].toObject();
    const attn::AttentionStats& s = snapshot_.stats();
    QCOMPARE(stats["raw_mean"].toDouble(), s.rawMean);
    QCOMPARE(stats["raw_variance"].toDouble(), s.rawVariance);
    QCOMPARE(stats["scaled_mean"].toDouble(), s.scaledMean);
    QCOMPARE(stats["scaled_variance"].toDouble(), s.scaledVariance);
    QCOMPARE(stats["mean_max_weight"].toDouble(), s.meanMaxWeight);
    QCOMPARE(stats["mean_entropy_nats"].toDouble(), s.meanEntropyNats);
    QCOMPARE(stats["mean_jacobian_norm"].toDouble(), s.meanJacobianNorm);
    const QJsonArray rows = stats["rows"].toArray();
    QCOMPARE(rows.size(), 7);
    for (int i = 0; i < rows.size(); ++i) {
        const QJsonObject row = rows[i].toObject();
        const attn::RowStats& expected = s.rows[std::size_t(i)];
        QCOMPARE(row["query"].toInt(), i);
        QCOMPARE(row["token"].toString(), QString::fromStdString(snapshot_.tokens.tokens[std::size_t(i)]));
        QCOMPARE(row["max_weight"].toDouble(), expected.maxWeight);
        QCOMPARE(row["argmax"].toInt(), expected.argMax);
        QCOMPARE(row["entropy_nats"].toDouble(), expected.entropyNats);
        QCOMPARE(row["entropy_bits"].toDouble(), expected.entropyBits);
        QCOMPARE(row["effective_tokens"].toDouble(), expected.effectiveTokens);
        QCOMPARE(row["jacobian_norm"].toDouble(), expected.jacobianNorm);
    }
    // The first query of a causal map sees only itself.
    QCOMPARE(rows[0].toObject()["max_weight"].toDouble(), 1.0);
}

void TestAttentionExport::csvLabels_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("corner");
    QTest::addColumn<QStringList>("columns");
    QTest::addColumn<QStringList>("rows");
    const QStringList tokens = {"the", "cat", ",", "the", "\"", "hat", "\""};
    QTest::newRow("X") << "X"
                       << "token" << QStringList{"0", "1", "2", "3", "4"} << tokens;
    QTest::newRow("W_q") << "W_q"
                         << "row" << QStringList{"0", "1", "2"} << QStringList{"0", "1", "2", "3", "4"};
    QTest::newRow("W_v") << "W_v"
                         << "row" << QStringList{"0", "1", "2", "3"} << QStringList{"0", "1", "2", "3", "4"};
    QTest::newRow("V") << "V"
                       << "token" << QStringList{"0", "1", "2", "3"} << tokens;
    QTest::newRow("scaled_scores") << "scaled_scores"
                                   << "query/key" << tokens << tokens;
    QTest::newRow("weights") << "weights"
                             << "query/key" << tokens << tokens;
    QTest::newRow("context") << "context"
                             << "token" << QStringList{"0", "1", "2", "3"} << tokens;
}

void TestAttentionExport::csvLabels()
{
    QFETCH(QString, name);
    QFETCH(QString, corner);
    QFETCH(QStringList, columns);
    QFETCH(QStringList, rows);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const attn::Status written = attnlab::exportAttention(dir.path(), snapshot_, {false, true});
    QVERIFY(written.ok());
    const QByteArray text = readFile(dir.filePath(name + ".csv"));
    const auto m = attnlab::readMatrixCsv(text.toStdString());
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
    const auto toList = [](const std::vector<std::string>& v) {
        QStringList list;
        for (const auto& s : v)
            list << QString::fromStdString(s);
        return list;
    };
    QCOMPARE(QString::fromStdString(m->corner), corner);
    QCOMPARE(toList(m->columnLabels), columns);
    QCOMPARE(toList(m->rowLabels), rows);
    if (name == "scaled_scores") {
        QCOMPARE(m->values(0, 1), -INFINITY);
        QVERIFY(text.contains(",-inf,"));
        // Tokens holding a comma or a quote are quoted.
        QVERIFY(text.startsWith("query/key,the,cat,\",\",the,\"\"\"\",hat,\"\"\"\"\n"));
    }
}

// NAME.npy per matrix: the data decoded here by hand (float64 little-endian
// after the header) is the snapshot's matrix bit for bit, masked -inf
// included; parseNpy reads back every matrix without -inf.
void TestAttentionExport::npyFiles()
{
    attnlab::ExportFormats formats{false, false, true};
    QTemporaryDir dir;
    QVERIFY(attnlab::exportAttention(dir.path(), snapshot_, formats).ok());
    QStringList expected;
    for (const auto& name : attnlab::exportedMatrixNames())
        expected << QString::fromStdString(name) + ".npy";
    expected.sort();
    QCOMPARE(entries(dir.path()), expected);

    const attn::Matrix scaled = snapshot_.head().scaledMatrix();
    const attn::Matrix weights = snapshot_.head().weightsMatrix();
    const std::vector<std::pair<QString, const attn::Matrix*>> matrices = {
        {"X", &snapshot_.X},
        {"W_v", &snapshot_.headWeights().Wv},
        {"scores", &snapshot_.head().scores},
        {"scaled_scores", &scaled},
        {"weights", &weights},
        {"context", &snapshot_.head().context}};
    for (const auto& [name, m] : matrices) {
        const QByteArray bytes = readFile(dir.filePath(name + ".npy"));
        QVERIFY(bytes.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
        const int headerLength = uchar(bytes[8]) | uchar(bytes[9]) << 8;
        const QByteArray header = bytes.mid(10, headerLength);
        QVERIFY2(header.contains(QString("'shape': (%1, %2)").arg(m->rows()).arg(m->cols()).toUtf8()),
                 header.constData());
        QVERIFY(header.contains("'descr': '<f8'"));
        QCOMPARE(bytes.size(), 10 + headerLength + int(m->size()) * 8);
        for (Eigen::Index i = 0; i < m->rows(); ++i)
            for (Eigen::Index j = 0; j < m->cols(); ++j) {
                double v;
                std::memcpy(&v, bytes.constData() + 10 + headerLength + (i * m->cols() + j) * 8, 8);
                QVERIFY(std::memcmp(&v, &(*m)(i, j), 8) == 0);
            }
        const bool masked = name == "scaled_scores";
        const auto back = attnlab::parseNpy(std::string_view(bytes.constData(), bytes.size()),
                                            (name + ".npy").toStdString());
        QCOMPARE(back.ok(), !masked);
        if (!masked)
            QCOMPARE(back.value(), *m);
    }
}

void TestAttentionExport::imageFormatsNeedAnExporter()
{
    QVERIFY(!attnlab::haveImageExporter());
    for (const char* format : {"png", "svg", "pdf"}) {
        const auto formats = attnlab::parseExportFormats(std::string("json,") + format);
        QVERIFY(formats.ok());
        const attn::Status check = attnlab::checkImageExport(formats.value());
        QVERIFY(!check.ok());
        QCOMPARE(QString::fromStdString(check.error().message),
                 QString("%1 export needs the window renderer, which is not available here; "
                         "export json, csv or npy, or save the picture from the window")
                     .arg(format));
        QTemporaryDir dir;
        const attn::Status status = attnlab::exportAttention(dir.filePath("out"), snapshot_, formats.value());
        QVERIFY(!status.ok());
        QVERIFY(!QFile::exists(dir.filePath("out")));
    }
    QVERIFY(attnlab::checkImageExport(attnlab::parseExportFormats("json,csv,npy").value()).ok());
}

// What the GUI layer will do: register an exporter; its files join the set.
void TestAttentionExport::registeredImageExporter()
{
    std::vector<attnlab::ImageFormat> asked;
    attnlab::setImageExporter([&asked](const attnlab::AttentionSnapshot& s, attnlab::ImageFormat f) {
        asked.push_back(f);
        const std::string name = std::string("weights.") + attnlab::imageFormatName(f);
        const int n = s.head().tokens();
        return std::vector<attnlab::OutputFile>{
            {name, [n](std::ostream& out) { out << "picture of " << n << " tokens"; }}};
    });
    QVERIFY(attnlab::haveImageExporter());
    QTemporaryDir dir;
    const attn::Status status =
        attnlab::exportAttention(dir.path(), snapshot_, attnlab::parseExportFormats("svg,json,pdf").value());
    attnlab::setImageExporter({});
    QVERIFY(status.ok());
    QVERIFY(!attnlab::haveImageExporter());
    QCOMPARE(entries(dir.path()), (QStringList{"attention.json", "weights.pdf", "weights.svg"}));
    QCOMPARE(readFile(dir.filePath("weights.svg")), QByteArray("picture of 7 tokens"));
    QCOMPARE(asked.size(), std::size_t(2));
}

// A picture the exporter could not draw fails the export with its reason:
// no numbers are written without the pictures asked for.
void TestAttentionExport::failedPictureFailsTheExport()
{
    attnlab::setImageExporter([](const attnlab::AttentionSnapshot&, attnlab::ImageFormat) {
        return std::vector<attnlab::OutputFile>{{"pictures.png", {}, "the picture is too large to draw"}};
    });
    QTemporaryDir dir;
    const attn::Status status = attnlab::exportAttention(dir.filePath("out"), snapshot_,
                                                         attnlab::parseExportFormats("json,png").value());
    attnlab::setImageExporter({});
    QVERIFY(!status.ok());
    QCOMPARE(status.error().message, std::string("the picture is too large to draw"));
    QVERIFY(!QFileInfo::exists(dir.filePath("out")));
}

void TestAttentionExport::stagedWriteCreatesDirectories()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString target = root.filePath("a/b/c");
    const attn::Status status =
        attnlab::writeFilesAtomically(target, {textFile("one.txt", "1\n"), textFile("two.txt", "2\n")});
    QVERIFY(status.ok());
    QCOMPARE(entries(target), QStringList({"one.txt", "two.txt"}));
    QCOMPARE(readFile(target + "/two.txt"), QByteArray("2\n"));
}

void TestAttentionExport::stagedWriteReplacesOlderFiles()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QVERIFY(attnlab::writeFilesAtomically(root.path(), {textFile("f.txt", "old")}).ok());
    QVERIFY(attnlab::writeFilesAtomically(root.path(), {textFile("f.txt", "new")}).ok());
    QCOMPARE(readFile(root.filePath("f.txt")), QByteArray("new"));
    QCOMPARE(entries(root.path()), QStringList{"f.txt"});
}

// The third file fails while being written: the two before it were complete
// but must not appear, the directories made for them go again.
void TestAttentionExport::failedWriteLeavesNothing()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QVERIFY(attnlab::writeFilesAtomically(root.path(), {textFile("keep.txt", "mine")}).ok());

    const attnlab::OutputFile failing = {"c.txt", [](std::ostream& out) {
                                             out << "partial";
                                             out.setstate(std::ios::badbit);
                                         }};
    const std::vector<attnlab::OutputFile> files = {textFile("a.txt", "a"), textFile("b.txt", "b"), failing,
                                                    textFile("d.txt", "d")};
    attn::Status status = attnlab::writeFilesAtomically(root.path(), files);
    QVERIFY(!status.ok());
    QVERIFY2(QString::fromStdString(status.error().message).startsWith("cannot write '"),
             status.error().message.c_str());
    QCOMPARE(entries(root.path()), QStringList{"keep.txt"});
    QCOMPARE(readFile(root.filePath("keep.txt")), QByteArray("mine"));

    status = attnlab::writeFilesAtomically(root.filePath("new/deeper"), files);
    QVERIFY(!status.ok());
    QCOMPARE(entries(root.path()), QStringList{"keep.txt"});
}

// A directory sits where the third file should go: the rename fails after
// two files are in place, and those two are taken out again.
void TestAttentionExport::failedRenameLeavesNothing()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QVERIFY(QDir(root.path()).mkpath("c.txt/inside"));
    const attn::Status status = attnlab::writeFilesAtomically(
        root.path(), {textFile("a.txt", "a"), textFile("b.txt", "b"), textFile("c.txt", "c")});
    QVERIFY(!status.ok());
    QVERIFY2(QString::fromStdString(status.error().message).startsWith("cannot replace '"),
             status.error().message.c_str());
    QCOMPARE(entries(root.path()), QStringList{"c.txt"});
    QCOMPARE(entries(root.filePath("c.txt")), QStringList{"inside"});
}

QTEST_APPLESS_MAIN(TestAttentionExport)
#include "tst_attentionexport.moc"
