// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab run as a user runs it (QProcess on the built executable):
// the article's command writes files whose numbers match PyTorch's, --help
// and --version answer, and every bad input fails with one line on stderr and
// no file left behind. handleCommandLine is also called directly for what it
// hands the window.

#include "commandline.h"
#include "presets.h"
#include "attentionsnapshot.h"
#include "gpt2folder.h"
#include "labfile.h"
#include "matrixio.h"
#include "mhastatefiles.h"
#include "npy.h"
#include "runapp.h"
#include "testdata.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <sstream>
#include <vector>

namespace {

using apptest::readJsonFile;
using apptest::Run;
using apptest::runApp;

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

// Largest excess of |a - b| over abs + rel * |b|; <= 0 when within tolerance.
double excess(const attn::Matrix& a, const attn::Matrix& b, double rel, double abs)
{
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.size() == 0)
        return INFINITY;
    return ((a - b).cwiseAbs() - (abs + rel * b.cwiseAbs().array()).matrix()).maxCoeff();
}

QStringList strings(const QJsonValue& value)
{
    QStringList list;
    for (const QJsonValue& v : value.toArray())
        list << v.toString();
    return list;
}

// argv for handleCommandLine; the strings live as long as the object.
class Argv {
public:
    explicit Argv(const QStringList& arguments)
    {
        storage_.push_back("attention-lab");
        for (const QString& a : arguments)
            storage_.push_back(a.toStdString());
        for (std::string& s : storage_)
            pointers_.push_back(s.data());
        pointers_.push_back(nullptr);
    }
    int argc() const { return int(storage_.size()); }
    char** argv() { return pointers_.data(); }

private:
    std::vector<std::string> storage_;
    std::vector<char*> pointers_;
};

bool writeNpyFile(const QString& path, const attn::Matrix& m)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    const std::string bytes = attnlab::npyBytes(m);
    return file.write(bytes.data(), qint64(bytes.size())) == qint64(bytes.size());
}

QByteArray readBytes(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

const QStringList kArticleCommand = {"--sentence", "Life is short, eat dessert first",
                                     "--seed",     "123",
                                     "--d-model",  "16",
                                     "--d-k",      "24",
                                     "--d-v",      "28",
                                     "--init",     "article"};

}  // namespace

class TestCommandLine : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void articleMatchesPyTorch_data();
    void articleMatchesPyTorch();
    void articleSettingsAndTokens();
    void statisticsFollowWeights();
    void csvFiles();
    void causalExport();
    void formatSelection_data();
    void formatSelection();
    void help();
    void version();
    void badInput_data();
    void badInput();
    void fileInTheWayLeavesNothing();
    void windowGetsTheOptions();
    void windowWithoutOptions();
    void windowGetsTheHeads();
    void windowGetsAModel();
    void windowGetsAModuleState();
    void windowRefusesBadHeads();
    void articleMatricesFromNpy();
    void articleMatricesFromCsv();
    void pytorchLayoutWithTranspose();
    void someMatricesFromNpy_data();
    void someMatricesFromNpy();
    void badMatrixOrLabInput_data();
    void badMatrixOrLabInput();
    void saveThenOpen();
    void openHandEditedLab();
    void openNewerVersionRefused();
    void windowGetsTheLab();
    void listPresets();
    void presetExport_data();
    void presetExport();
    void presetIsTheMenusLab();
    void badPreset_data();
    void badPreset();

private:
    QTemporaryDir dir_;
    QString articleDir_;
    QJsonObject ref_;
    QJsonObject out_;
};

void TestCommandLine::initTestCase()
{
    QVERIFY(dir_.isValid());
    ref_ = testdata::readJson("raschka_self_attention.json");
    articleDir_ = dir_.filePath("article");
    const Run run =
        runApp(kArticleCommand + QStringList{"--export-dir", articleDir_, "--format", "json,csv"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    out_ = readJsonFile(articleDir_ + "/attention.json");
    QVERIFY(!out_.isEmpty());
}

// PyTorch computed in float32, the engine in double from the same float32
// inputs: agreement to float32 rounding.
void TestCommandLine::articleMatchesPyTorch_data()
{
    QTest::addColumn<QString>("ours");
    QTest::addColumn<QString>("reference");
    QTest::addColumn<bool>("transpose");
    QTest::addColumn<double>("rel");
    QTest::addColumn<double>("abs");
    // torch.rand is reproduced bit for bit; the embeddings (normal_) to
    // within 2 float32 ulp (~2.4e-7 at |x| < 2).
    QTest::newRow("X") << "X"
                       << "embedded_sentence" << false << 0.0 << 5e-7;
    QTest::newRow("W_q") << "W_q"
                         << "W_query" << true << 0.0 << 0.0;
    QTest::newRow("W_k") << "W_k"
                         << "W_key" << true << 0.0 << 0.0;
    QTest::newRow("W_v") << "W_v"
                         << "W_value" << true << 0.0 << 0.0;
    QTest::newRow("Q") << "Q"
                       << "Q" << false << 1e-5 << 1e-5;
    QTest::newRow("K") << "K"
                       << "K" << false << 1e-5 << 1e-5;
    QTest::newRow("V") << "V"
                       << "V" << false << 1e-5 << 1e-5;
    QTest::newRow("scores") << "scores"
                            << "scores" << false << 1e-4 << 5e-5;
    QTest::newRow("scaled_scores") << "scaled_scores"
                                   << "scaled_scores" << false << 1e-4 << 1e-5;
    QTest::newRow("weights") << "weights"
                             << "weights" << false << 0.0 << 1e-6;
    QTest::newRow("context") << "context"
                             << "context" << false << 1e-5 << 1e-5;
}

void TestCommandLine::articleMatchesPyTorch()
{
    QFETCH(QString, ours);
    QFETCH(QString, reference);
    QFETCH(bool, transpose);
    QFETCH(double, rel);
    QFETCH(double, abs);
    const attn::Matrix mine = testdata::toMatrix(out_[ours]);
    attn::Matrix expected = testdata::toMatrix(ref_[reference]);
    if (transpose)
        expected = attn::Matrix(expected.transpose());
    const double over = excess(mine, expected, rel, abs);
    QVERIFY2(
        over <= 0,
        qPrintable(QString("%1: largest difference %2").arg(ours).arg(testdata::maxAbsDiff(mine, expected))));
}

void TestCommandLine::articleSettingsAndTokens()
{
    QCOMPARE(strings(out_["tokens"]), strings(ref_["tokens"]));
    // The reference maps each vocabulary entry to its id.
    const QJsonObject vocab = ref_["vocab"].toObject();
    const QStringList ours = strings(out_["vocab"]);
    QCOMPARE(ours.size(), vocab.size());
    for (int id = 0; id < ours.size(); ++id)
        QCOMPARE(vocab[ours[id]].toInt(-1), id);
    QCOMPARE(out_["token_ids"].toArray(), ref_["sentence_int"].toArray());
    QCOMPARE(out_["sentence"].toString(), ref_["sentence"].toString());
    QCOMPARE(out_["seed"].toInt(), 123);
    QCOMPARE(out_["d_model"].toInt(), 16);
    QCOMPARE(out_["d_k"].toInt(), 24);
    QCOMPARE(out_["d_v"].toInt(), 28);
    QCOMPARE(out_["init"].toString(), QString("article"));
    QCOMPARE(out_["tokenizer"].toString(), QString("article"));
    QCOMPARE(out_["scale_mode"].toString(), QString("sqrt-dk"));
    QCOMPARE(out_["scale_divisor"].toDouble(), std::sqrt(24.0));
    QCOMPARE(out_["causal"].toBool(true), false);
}

// The statistics recomputed here from the exported weights.
void TestCommandLine::statisticsFollowWeights()
{
    const attn::Matrix w = testdata::toMatrix(out_["weights"]);
    const QJsonArray rows = out_["stats"].toObject()["rows"].toArray();
    QCOMPARE(rows.size(), int(w.rows()));
    for (int i = 0; i < w.rows(); ++i) {
        const QJsonObject row = rows[i].toObject();
        Eigen::Index argmax = 0;
        const double max = w.row(i).maxCoeff(&argmax);
        double entropy = 0;
        for (int j = 0; j < w.cols(); ++j)
            if (w(i, j) > 0)
                entropy -= w(i, j) * std::log(w(i, j));
        QCOMPARE(row["max_weight"].toDouble(), max);
        QCOMPARE(row["argmax"].toInt(), int(argmax));
        QVERIFY(std::abs(row["entropy_nats"].toDouble() - entropy) <= 1e-12);
        QVERIFY(std::abs(row["entropy_bits"].toDouble() - entropy / std::log(2.0)) <= 1e-12);
        QVERIFY(std::abs(row["effective_tokens"].toDouble() - std::exp(entropy)) <= 1e-12);
    }
    const attn::Matrix scores = testdata::toMatrix(out_["scores"]);
    QVERIFY(std::abs(out_["stats"].toObject()["raw_mean"].toDouble() - scores.mean()) <= 1e-12);
}

void TestCommandLine::csvFiles()
{
    QStringList expected = {"attention.json"};
    for (const auto& name :
         {"X", "W_q", "W_k", "W_v", "Q", "K", "V", "scores", "scaled_scores", "weights", "context"})
        expected << QString(name) + ".csv";
    expected.sort();
    QCOMPARE(entries(articleDir_), expected);

    QFile weights(articleDir_ + "/weights.csv");
    QVERIFY(weights.open(QIODevice::ReadOnly));
    const QByteArray text = weights.readAll();
    QVERIFY(text.startsWith("query/key,Life,is,short,eat,dessert,first\nLife,"));
    const auto table = attnlab::readMatrixCsv(text.toStdString());
    QVERIFY(table.ok());
    // CSV and JSON carry the very same doubles.
    QCOMPARE(table->values, testdata::toMatrix(out_["weights"]));

    QFile x(articleDir_ + "/X.csv");
    QVERIFY(x.open(QIODevice::ReadOnly));
    const auto xTable = attnlab::readMatrixCsv(x.readAll().toStdString());
    QVERIFY(xTable.ok());
    QCOMPARE(xTable->corner, std::string("token"));
    QCOMPARE(xTable->rowLabels, (std::vector<std::string>{"Life", "is", "short", "eat", "dessert", "first"}));
    QCOMPARE(xTable->columnLabels, attnlab::indexLabels(16));
    QCOMPARE(xTable->values, testdata::toMatrix(out_["X"]));
}

void TestCommandLine::causalExport()
{
    const QString out = dir_.filePath("causal");
    const Run run = runApp({"--causal", "--scale", "2", "--export-dir", out});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject json = readJsonFile(out + "/attention.json");
    QCOMPARE(json["causal"].toBool(), true);
    QCOMPARE(json["scale_mode"].toString(), QString("custom"));
    QCOMPARE(json["scale_divisor"].toDouble(), 2.0);
    const QJsonArray scaled = json["scaled_scores"].toArray();
    const attn::Matrix scores = testdata::toMatrix(json["scores"]);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            const QJsonValue v = scaled[i].toArray()[j];
            if (j > i)
                QVERIFY(v.isNull());
            else
                QCOMPARE(v.toDouble(), scores(i, j) / 2.0);
        }
    QFile csv(out + "/scaled_scores.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const auto table = attnlab::readMatrixCsv(csv.readAll().toStdString());
    QVERIFY(table.ok());
    QCOMPARE(table->values(0, 5), -INFINITY);
    QCOMPARE(table->values(5, 0), scores(5, 0) / 2.0);
}

void TestCommandLine::formatSelection_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("files");
    QTest::addColumn<bool>("json");
    QTest::newRow("json") << "json" << 1 << true;
    QTest::newRow("csv") << "csv" << 11 << false;
    QTest::newRow("csv,json") << "csv,json" << 12 << true;
}

void TestCommandLine::formatSelection()
{
    QFETCH(QString, format);
    QFETCH(int, files);
    QFETCH(bool, json);
    const QString out = dir_.filePath("format-" + format);
    const Run run = runApp({"--export-dir=" + out, "--format", format});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(entries(out).size(), files);
    QCOMPARE(QFile::exists(out + "/attention.json"), json);
}

void TestCommandLine::help()
{
    for (const char* flag : {"--help", "-h"}) {
        const Run run = runApp({flag});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.isEmpty());
        for (const char* option :
             {"--sentence",  "--seed",  "--d-model", "--d-k",         "--d-v",       "--init",
              "--tokenizer", "--scale", "--causal",  "--export-dir",  "--format",    "--help",
              "--version",   "Example", "sqrt-dk",   "unit-variance", "punctuation", "--open",
              "--save",      "--x",     "--wq",      "--wk",          "--wv",        "--transpose-weights",
              "npy"})
            QVERIFY2(run.out.contains(option), option);
    }
}

void TestCommandLine::version()
{
    const Run run = runApp({"--version"});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, QByteArray("attention-lab " ATTNLAB_VERSION "\n"));
    QVERIFY(run.err.isEmpty());
}

void TestCommandLine::badInput_data()
{
    QTest::addColumn<QStringList>("arguments");  // OUT stands for the export directory
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown option") << QStringList{"--colour", "red"} << 2 << "unknown option '--colour'";
    QTest::newRow("single-dash unknown") << QStringList{"-x"} << 2 << "unknown option '-x'";
    QTest::newRow("bare argument is a lab to open") << QStringList{"hello"} << 2 << "cannot open 'hello'";
    QTest::newRow("two lab files") << QStringList{"a.attnlab", "b.attnlab"} << 2
                                   << "unexpected argument 'b.attnlab': only one lab file";
    QTest::newRow("missing value at the end") << QStringList{"--d-k"} << 2 << "'--d-k' needs a value";
    QTest::newRow("option as value") << QStringList{"--sentence", "--causal"} << 2
                                     << "'--sentence' needs a value";
    QTest::newRow("non-numeric d_k") << QStringList{"--d-k", "abc"} << 2
                                     << "--d-k must be a whole number from 1 to 1024, not 'abc'";
    QTest::newRow("fractional d_k") << QStringList{"--d-k", "2.5"} << 2 << "--d-k must be";
    QTest::newRow("d_k zero") << QStringList{"--d-k", "0"} << 2 << "not '0'";
    QTest::newRow("d_k too large") << QStringList{"--d-k", "1025"} << 2 << "not '1025'";
    QTest::newRow("d_model negative")
        << QStringList{"--d-model", "-3"} << 2 << "--d-model must be a whole number";
    QTest::newRow("d_v overflow") << QStringList{"--d-v", "99999999999999999999"} << 2 << "--d-v must be";
    QTest::newRow("seed negative") << QStringList{"--seed", "-1"} << 2 << "--seed must be";
    QTest::newRow("invalid init") << QStringList{"--init", "xavier"} << 2
                                  << "--init must be article, normal or unit-variance, not 'xavier'";
    QTest::newRow("invalid tokenizer")
        << QStringList{"--tokenizer", "bpe"} << 2 << "--tokenizer must be article or punctuation";
    QTest::newRow("invalid format") << QStringList{"--format", "xml"} << 2 << "unknown export format 'xml'";
    QTest::newRow("empty sentence") << QStringList{"--sentence", ""} << 2 << "--sentence is empty";
    QTest::newRow("sentence without tokens") << QStringList{"--sentence", " , , "} << 2 << "--sentence:";
    QTest::newRow("divisor zero") << QStringList{"--scale", "0"} << 2
                                  << "--scale must be sqrt-dk, none or a positive number, not '0'";
    QTest::newRow("divisor negative") << QStringList{"--scale", "-2"} << 2 << "--scale must be";
    QTest::newRow("divisor infinite") << QStringList{"--scale", "inf"} << 2 << "--scale must be";
    QTest::newRow("causal with value") << QStringList{"--causal=yes"} << 2 << "--causal takes no value";
    QTest::newRow("OUT below a file")
        << QStringList{"--export-dir", "FILE/sub"} << 1 << "cannot create the directory";
    QTest::newRow("OUT is a file") << QStringList{"--export-dir", "FILE"} << 1
                                   << "exists and is not a directory";
}

void TestCommandLine::badInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);

    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const QString file = scratch.filePath("file");
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a directory\n");
    }
    const QString out = scratch.filePath("out");
    bool hasExportDir = false;
    for (QString& a : arguments) {
        if (a.startsWith("FILE")) {
            a.replace("FILE", file);
            hasExportDir = true;
        }
    }
    if (!hasExportDir && !arguments.contains("--export-dir"))
        arguments << "--export-dir" << out;

    const Run run = runApp(arguments);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.startsWith("attention-lab: "), run.err.constData());
    QVERIFY2(run.err.endsWith('\n') && run.err.count('\n') == 1, run.err.constData());
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    // Nothing written anywhere: no OUT, and the scratch directory as it was.
    QCOMPARE(entries(scratch.path()), QStringList{"file"});
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("not a directory\n"));
}

// weights.csv cannot be placed (a directory has that name) after ten other
// files are already in OUT: they are taken out again.
void TestCommandLine::fileInTheWayLeavesNothing()
{
    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    QVERIFY(QDir(scratch.path()).mkpath("out/weights.csv"));
    const Run run = runApp({"--export-dir", scratch.filePath("out")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("attention-lab: cannot replace '"), run.err.constData());
    QCOMPARE(run.err.count('\n'), 1);
    QCOMPARE(entries(scratch.filePath("out")), QStringList{"weights.csv"});
}

void TestCommandLine::windowGetsTheOptions()
{
    Argv args({"--d-k", "8", "--causal", "--sentence=a b c", "--scale", "none", "--tokenizer", "punctuation",
               "--seed", "18446744073709551615", "-platform", "offscreen", "-reverse"});
    const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(args.argc(), args.argv());
    QVERIFY(!outcome.exitNow);
    QVERIFY(outcome.haveConfig);
    QCOMPARE(outcome.config.dK, 8);
    QCOMPARE(outcome.config.dModel, attn::ModelConfig().dModel);
    QCOMPARE(outcome.config.sentence, std::string("a b c"));
    QCOMPARE(outcome.config.seed, std::uint64_t(18446744073709551615ULL));
    QVERIFY(outcome.config.tokenizer == attn::TokenizerMode::Punctuation);
    QVERIFY(outcome.options.causal);
    QVERIFY(outcome.options.scale == attn::ScaleMode::None);
}

void TestCommandLine::windowWithoutOptions()
{
    Argv args({"-style", "fusion"});
    const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(args.argc(), args.argv());
    QVERIFY(!outcome.exitNow);
    QVERIFY(!outcome.haveConfig);
    QCOMPARE(outcome.config.sentence, attn::ModelConfig().sentence);
}

// --heads without --export-dir or --save: the window opens with the
// multi-head lab, the article's three heads (multi_head_derived).
void TestCommandLine::windowGetsTheHeads()
{
    Argv args({"--heads", "3", "--init", "article", "--causal", "-platform", "offscreen"});
    const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(args.argc(), args.argv());
    QVERIFY(!outcome.exitNow);
    QVERIFY(outcome.haveLab);
    QVERIFY(outcome.lab.options.causal);
    QCOMPARE(outcome.lab.heads.heads, 3);
    QVERIFY(outcome.lab.heads.layout == attn::HeadLayout::Independent);
    QCOMPARE(outcome.lab.multiHead.headCount(), 3);
    const QJsonObject mh = testdata::readJson("raschka_self_attention.json")["multi_head_derived"].toObject();
    for (int i = 0; i < 3; ++i) {
        const attn::HeadWeights w = outcome.lab.multiHead.head(i);
        QVERIFY(
            testdata::maxAbsDiff(w.Wq, testdata::toMatrix(mh["multihead_W_query"].toArray()[i]).transpose())
            < 1e-7);
    }
    QVERIFY(attnlab::validateLabState(outcome.lab).ok());
}

// --model DIR without --export-dir: the window opens the folder (its
// readers checked first) with the sentence; the export's options and a
// folder the readers refuse exit 2 with one line.
void TestCommandLine::windowGetsAModel()
{
    const QString folder = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
    Argv args({"--model", folder, "--sentence", "Jane is going"});
    const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(args.argc(), args.argv());
    QVERIFY(!outcome.exitNow);
    // Read once, here: the window shows this model and reads nothing again.
    QVERIFY(outcome.model);
    QCOMPARE(outcome.model->folder, QFileInfo(folder).absoluteFilePath());
    QCOMPARE(outcome.model->identity, attnlab::gpt2FolderIdentity(folder));
    QCOMPARE(outcome.model->config().layers, 2);
    QVERIFY(outcome.haveConfig);
    QCOMPARE(outcome.config.sentence, std::string("Jane is going"));

    // With --preset the window opens that lab, whose sentence the model reads.
    Argv preset({"--model", folder, "--preset", "cinema"});
    const attnlab::CommandLineOutcome cinema = attnlab::handleCommandLine(preset.argc(), preset.argv());
    QVERIFY(!cinema.exitNow);
    QVERIFY(cinema.model);
    QCOMPARE(cinema.model->folder, QFileInfo(folder).absoluteFilePath());
    QVERIFY(cinema.haveLab);
    QCOMPARE(cinema.lab.config.sentence, std::string("Jane is going to the cinema to watch a new film"));
    QCOMPARE(cinema.lab.config.init, attn::InitMode::UnitVariance);
    Argv changed({"--model", folder, "--preset", "cinema", "--sentence", "Jane is going"});
    const attnlab::CommandLineOutcome own = attnlab::handleCommandLine(changed.argc(), changed.argv());
    QVERIFY(!own.exitNow);
    QVERIFY(!own.haveLab);
    QCOMPARE(own.config.sentence, std::string("Jane is going"));
    QCOMPARE(own.config.init, attn::InitMode::UnitVariance);

    const Run scale = runApp({"--model", folder, "--scale", "none"});
    QCOMPARE(scale.exitCode, 2);
    QCOMPARE(scale.err.count('\n'), 1);
    QVERIFY2(scale.err.contains("--scale with --model is for the export"), scale.err.constData());
    QTemporaryDir empty;
    const Run bad = runApp({"--model", empty.path()});
    QCOMPARE(bad.exitCode, 2);
    QCOMPARE(bad.err.count('\n'), 1);
    QVERIFY2(bad.err.contains("config.json"), bad.err.constData());
}

// --mha-state with --x for the window: the module's parameters exactly.
void TestCommandLine::windowGetsAModuleState()
{
    const QJsonObject c = mhatest::torchCase(2);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir("state"));
    QVERIFY(mhatest::writeCaseState(c, dir.path()));
    Argv args({"--x", dir.filePath("x.npy"), "--mha-state", dir.filePath("state"), "--heads",
               QString::number(c["h"].toInt())});
    const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(args.argc(), args.argv());
    QVERIFY(!outcome.exitNow);
    QVERIFY(outcome.haveLab);
    QVERIFY(outcome.lab.heads.layout == attn::HeadLayout::Split);
    QCOMPARE(outcome.lab.multiHead.split.heads, c["h"].toInt());
    QCOMPARE(testdata::maxAbsDiff(outcome.lab.multiHead.split.inProjWeight,
                                  testdata::toMatrix(c["in_proj_weight"])),
             0.0);
    QCOMPARE(testdata::maxAbsDiff(outcome.lab.X, testdata::toMatrix(c["x"])), 0.0);
}

// What the headless run refuses, the window's start refuses the same way:
// exit 2, one line.
void TestCommandLine::windowRefusesBadHeads()
{
    const Run run = runApp({"--heads", "3", "--head-layout", "split"});
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err.count('\n'), 1);
    QVERIFY2(run.err.contains("--heads 3 does not divide d_model = 16"), run.err.constData());
}

// The article run's own X, W_q, W_k, W_v as .npy files give its numbers
// back exactly.
void TestCommandLine::articleMatricesFromNpy()
{
    QTemporaryDir dir;
    QStringList arguments;
    for (const auto& [option, name] : {std::pair{"--x", "X"}, std::pair{"--wq", "W_q"},
                                       std::pair{"--wk", "W_k"}, std::pair{"--wv", "W_v"}}) {
        const QString path = dir.filePath(QString(name) + ".npy");
        QVERIFY(writeNpyFile(path, testdata::toMatrix(out_[name])));
        arguments << option << path;
    }
    const QString out = dir.filePath("out");
    const Run run = runApp(arguments + QStringList{"--export-dir", out, "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    const QJsonObject json = readJsonFile(out + "/attention.json");
    for (const char* name :
         {"X", "W_q", "W_k", "W_v", "Q", "K", "V", "scores", "scaled_scores", "weights", "context"})
        QVERIFY2(testdata::toMatrix(json[name]) == testdata::toMatrix(out_[name]), name);
    QCOMPARE(strings(json["tokens"]), strings(out_["tokens"]));
    QCOMPARE(json["sentence"].toString(), out_["sentence"].toString());
    QCOMPARE(json["d_k"].toInt(), 24);
    QCOMPARE(json["d_v"].toInt(), 28);
}

// The same from CSV: X and W_q as numpy.savetxt(..., delimiter=",") writes
// them (no header, no labels, "%.18e"), W_k and W_v as the application's own
// labelled CSV. Every number reads back exactly.
void TestCommandLine::articleMatricesFromCsv()
{
    QTemporaryDir dir;
    QStringList arguments;
    int i = 0;
    for (const auto& [option, name] : {std::pair{"--x", "X"}, std::pair{"--wq", "W_q"},
                                       std::pair{"--wk", "W_k"}, std::pair{"--wv", "W_v"}}) {
        const attn::Matrix m = testdata::toMatrix(out_[name]);
        const QString path = dir.filePath(QString(name) + ".csv");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        if (i++ < 2) {
            for (Eigen::Index r = 0; r < m.rows(); ++r) {
                QStringList cells;
                for (Eigen::Index c = 0; c < m.cols(); ++c)
                    cells << QString::number(m(r, c), 'e', 18);
                file.write(cells.join(',').toLatin1() + '\n');
            }
        } else {
            std::ostringstream out;
            attnlab::writeMatrixCsv(out, m, attnlab::indexLabels(int(m.rows())),
                                    attnlab::indexLabels(int(m.cols())), "row");
            file.write(QByteArray::fromStdString(out.str()));
        }
        file.close();
        arguments << option << path;
    }
    const QString out = dir.filePath("out");
    const Run run = runApp(arguments + QStringList{"--export-dir", out, "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(out + "/attention.json");
    for (const char* name : {"X", "W_q", "W_k", "W_v", "weights", "context"})
        QVERIFY2(testdata::toMatrix(json[name]) == testdata::toMatrix(out_[name]), name);
    QCOMPARE(json["d_k"].toInt(), 24);
    QCOMPARE(json["d_v"].toInt(), 28);
}

// PyTorch's own inputs, the weights in its (d_out, d_in) layout: with
// --transpose-weights the result is the float64 reference computed from the
// same inputs; without it the shape is refused, naming both shapes.
void TestCommandLine::pytorchLayoutWithTranspose()
{
    QTemporaryDir dir;
    const QStringList files = {"X.npy", "W_q.npy", "W_k.npy", "W_v.npy"};
    const QStringList keys = {"embedded_sentence", "W_query", "W_key", "W_value"};
    QStringList arguments;
    const QStringList options = {"--x", "--wq", "--wk", "--wv"};
    for (int i = 0; i < 4; ++i) {
        QVERIFY(writeNpyFile(dir.filePath(files[i]), testdata::toMatrix(ref_[keys[i]])));
        arguments << options[i] << dir.filePath(files[i]);
    }
    const QString out = dir.filePath("out");
    const Run refused = runApp(arguments + QStringList{"--export-dir", out});
    QCOMPARE(refused.exitCode, 2);
    QCOMPARE(refused.err, QByteArray("attention-lab: W_q.npy has shape (24, 16) but (16, 24) was expected "
                                     "(d_model x d_k); use --transpose-weights for PyTorch's "
                                     "nn.Linear.weight (d_out x d_in)\n"));
    QVERIFY(!QFile::exists(out));

    const Run run =
        runApp(arguments + QStringList{"--transpose-weights", "--export-dir", out, "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(out + "/attention.json");
    const QJsonObject f64 = ref_["float64_reference"].toObject();
    for (const char* name : {"Q", "K", "V", "scores", "weights", "context"}) {
        const attn::Matrix mine = testdata::toMatrix(json[name]);
        const attn::Matrix expected = testdata::toMatrix(f64[name]);
        QVERIFY2(
            excess(mine, expected, 1e-12, 1e-12) <= 0,
            qPrintable(
                QString("%1: largest difference %2").arg(name).arg(testdata::maxAbsDiff(mine, expected))));
    }
    QCOMPARE(testdata::toMatrix(json["W_q"]), attn::Matrix(testdata::toMatrix(ref_["W_query"]).transpose()));
}

// Any subset of the four: the others are drawn as usual (as the article run
// drew them), the dimensions follow the files, the rows take the sentence's
// tokens when their number fits and t0, t1, ... otherwise.
void TestCommandLine::someMatricesFromNpy_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QStringList>("tokens");
    QTest::addColumn<QString>("warning");
    QTest::addColumn<int>("dK");
    QTest::addColumn<int>("dV");
    const QStringList article = {"Life", "is", "short", "eat", "dessert", "first"};
    QTest::newRow("W_v only, d_v 5") << "--wv" << 16 << 5 << QStringList() << article << "" << 24 << 5;
    QTest::newRow("W_q only, d_k 7") << "--wq" << 16 << 7 << QStringList() << article << "" << 7 << 28;
    QTest::newRow("X of 6 tokens with a sentence")
        << "--x" << 6 << 16 << QStringList{"--sentence", "a b c d e f"}
        << QStringList{"a", "b", "c", "d", "e", "f"} << "" << 24 << 28;
    QTest::newRow("X of 3 rows, no sentence")
        << "--x" << 3 << 16 << QStringList() << QStringList{"t0", "t1", "t2"} << "" << 24 << 28;
    QTest::newRow("X of 3 rows, sentence of 2")
        << "--x" << 3 << 16 << QStringList{"--sentence", "a b"} << QStringList{"t0", "t1", "t2"}
        << "attention-lab: warning: the sentence has 2 tokens but X.npy has 3 rows; the rows are "
           "labelled t0, t1, ...\n"
        << 24 << 28;
}

void TestCommandLine::someMatricesFromNpy()
{
    QFETCH(QString, option);
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(QStringList, extra);
    QFETCH(QStringList, tokens);
    QFETCH(QString, warning);
    QFETCH(int, dK);
    QFETCH(int, dV);
    QTemporaryDir dir;
    const QString name = option == "--x" ? "X" : option == "--wq" ? "W_q" : "W_v";
    const attn::Matrix given = attn::Matrix::Random(rows, cols);
    QVERIFY(writeNpyFile(dir.filePath(name + ".npy"), given));
    const QString out = dir.filePath("out");
    const Run run =
        runApp(QStringList{option, dir.filePath(name + ".npy"), "--export-dir", out, "--format", "json,npy"}
               + extra);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(QString::fromUtf8(run.err), warning);
    const QJsonObject json = readJsonFile(out + "/attention.json");
    QCOMPARE(testdata::toMatrix(json[name]), given);
    QCOMPARE(strings(json["tokens"]), tokens);
    QCOMPARE(json["d_model"].toInt(), 16);
    QCOMPARE(json["d_k"].toInt(), dK);
    QCOMPARE(json["d_v"].toInt(), dV);
    // The others as the article's initialisation draws them at these
    // dimensions (in Article mode every draw after a changed size moves).
    attn::ModelConfig config;
    config.dK = dK;
    config.dV = dV;
    const auto expected = attnlab::computeSnapshot(config, attn::AttentionOptions());
    QVERIFY(expected.ok());
    const std::pair<const char*, const attn::Matrix*> drawn[] = {{"X", &expected->X},
                                                                 {"W_q", &expected->headWeights().Wq},
                                                                 {"W_k", &expected->headWeights().Wk},
                                                                 {"W_v", &expected->headWeights().Wv}};
    for (const auto& [key, m] : drawn) {
        if (name != key && (name == "X" || QString(key) != "X"))
            QVERIFY2(testdata::toMatrix(json[key]) == *m, key);
    }
    // The npy export carries the same numbers.
    const auto npy = attnlab::readNpyFile(out + "/" + name + ".npy");
    QVERIFY(npy.ok());
    QCOMPARE(npy.value(), given);
}

void TestCommandLine::badMatrixOrLabInput_data()
{
    // DIR stands for a scratch directory holding X.npy (6, 16), W_q.npy (16, 24),
    // W_k8.npy (16, 8), W_v.npy (16, 28), int.npy (dtype <i8), nan.npy,
    // big.npy (6, 16 with 1e31), bad.attnlab (truncated).
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("X against --d-model")
        << QStringList{"--x", "DIR/X.npy", "--d-model", "8"} << 2
        << "X.npy has shape (6, 16) but (any, 8) was expected (tokens x d_model)";
    QTest::newRow("needless --transpose-weights")
        << QStringList{"--x", "DIR/X.npy", "--wq", "DIR/W_q.npy", "--transpose-weights"} << 2
        << "W_q.npy transposed has shape (24, 16) but (16, 24) was expected (d_model x d_k); leave "
           "out --transpose-weights: the file is already d_in x d_out";
    QTest::newRow("W_k against W_q's d_k")
        << QStringList{"--wq", "DIR/W_q.npy", "--wk", "DIR/W_k8.npy"} << 2
        << "W_k8.npy has shape (16, 8) but (16, 24) was expected (d_model x d_k)";
    QTest::newRow("W_v as W_q against --d-k")
        << QStringList{"--wq", "DIR/W_v.npy", "--d-k", "24"} << 2
        << "W_v.npy has shape (16, 28) but (16, 24) was expected (d_model x d_k)";
    QTest::newRow("integers") << QStringList{"--x", "DIR/int.npy"} << 2
                              << "--x: int.npy: holds 64-bit integers (dtype '<i8')";
    QTest::newRow("NaN") << QStringList{"--wv", "DIR/nan.npy"} << 2
                         << "--wv: nan.npy: entry [2, 3] (row 3, column 4) is NaN";
    QTest::newRow("too large") << QStringList{"--x", "DIR/big.npy"} << 2
                               << "--x: big.npy: entry [0, 1] (row 1, column 2) is 1e+31; too large";
    QTest::newRow("missing npy") << QStringList{"--wk", "DIR/none.npy"} << 2 << "--wk: cannot open '";
    QTest::newRow("open with --x") << QStringList{"--open", "DIR/bad.attnlab", "--x", "DIR/X.npy"} << 2
                                   << "--open cannot be combined with --x: the lab file holds the model";
    QTest::newRow("open with --d-k") << QStringList{"--d-k", "3", "--open", "DIR/bad.attnlab"} << 2
                                     << "--open cannot be combined with --d-k";
    QTest::newRow("broken lab") << QStringList{"--open", "DIR/bad.attnlab"} << 2
                                << "--open: bad.attnlab: not a readable lab file: the file ends early";
    QTest::newRow("missing lab") << QStringList{"--open", "DIR/none.attnlab"} << 2 << "--open: cannot open '";
    QTest::newRow("transpose alone") << QStringList{"--transpose-weights"} << 2
                                     << "--transpose-weights needs --wq, --wk or --wv";
    QTest::newRow("picture size malformed")
        << QStringList{"--format", "png", "--size", "big"} << 2 << "--size needs WIDTHxHEIGHT";
    QTest::newRow("picture size too small")
        << QStringList{"--format", "png", "--size", "10x10"} << 2 << "--size needs WIDTHxHEIGHT";
    QTest::newRow("empty --save") << QStringList{"--save", ""} << 2 << "--save is empty; give a file name";
    QTest::newRow("save into a missing directory")
        << QStringList{"--save", "DIR/none/lab.attnlab"} << 1 << "cannot write '";
    // The export and the lab are one transaction: the export is not written.
    QTest::newRow("save onto a directory")
        << QStringList{"--save", "DIR/folder.attnlab"} << 1 << "folder.attnlab': it is a directory";
    QTest::newRow("save onto a symbolic link loop")
        << QStringList{"--save", "DIR/loop.attnlab"} << 1 << "loop.attnlab': it is a symbolic link loop";
}

void TestCommandLine::badMatrixOrLabInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir scratch;
    const QString dir = scratch.path();
    const attn::Matrix x = attn::Matrix::Random(6, 16);
    QVERIFY(writeNpyFile(dir + "/X.npy", x));
    QVERIFY(writeNpyFile(dir + "/W_q.npy", attn::Matrix::Random(16, 24)));
    QVERIFY(writeNpyFile(dir + "/W_k8.npy", attn::Matrix::Random(16, 8)));
    QVERIFY(writeNpyFile(dir + "/W_v.npy", attn::Matrix::Random(16, 28)));
    attn::Matrix nan = attn::Matrix::Random(16, 28);
    nan(2, 3) = std::nan("");
    QVERIFY(writeNpyFile(dir + "/nan.npy", nan));
    attn::Matrix big = x;
    big(0, 1) = 1e31;
    QVERIFY(writeNpyFile(dir + "/big.npy", big));
    {
        QByteArray ints = QByteArray::fromStdString(attnlab::npyBytes(x));
        ints.replace("'<f8'", "'<i8'");
        QFile f(dir + "/int.npy");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(ints);
        QFile lab(dir + "/bad.attnlab");
        QVERIFY(lab.open(QIODevice::WriteOnly));
        lab.write("{\"format\": \"attention-lab\", \"version\": 1, \"X\": [[1, 2");
    }
    QVERIFY(QDir(dir).mkdir("folder.attnlab"));
    QVERIFY(QFile::link(dir + "/loop.attnlab", dir + "/loop.attnlab"));
    const QStringList before = entries(dir);
    for (QString& a : arguments)
        a.replace("DIR", dir);
    const QString out = dir + "/out";
    const Run run = runApp(arguments + QStringList{"--export-dir", out});
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.startsWith("attention-lab: ") && run.err.count('\n') == 1, run.err.constData());
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    QCOMPARE(entries(dir), before);
    QVERIFY(QFileInfo(dir + "/loop.attnlab").isSymLink());
    QVERIFY(QFileInfo(dir + "/folder.attnlab").isDir());
}

// --save writes the state of the options; --open of it, saved again, gives
// the same bytes and exports the same numbers as the options did.
void TestCommandLine::saveThenOpen()
{
    QTemporaryDir dir;
    const QStringList options = {"--sentence", "one two three two", "--d-k",  "5", "--causal", "--scale", "3",
                                 "--init",     "unit-variance",     "--seed", "9"};
    const QString first = dir.filePath("first.attnlab");
    Run run = runApp(options + QStringList{"--save", first});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(run.out, QByteArray("Saved the lab to '") + first.toUtf8() + "'.\n");

    const auto lab = attnlab::readLabFile(first);
    QVERIFY(lab.ok());
    QCOMPARE(lab->config.sentence, std::string("one two three two"));
    QCOMPARE(lab->config.dK, 5);
    QCOMPARE(lab->config.seed, std::uint64_t(9));
    QVERIFY(lab->config.init == attn::InitMode::UnitVariance);
    QVERIFY(lab->options.causal);
    QCOMPARE(lab->options.customDivisor, 3.0);

    const QString second = dir.filePath("second.attnlab");
    run = runApp(
        {"--open", first, "--save", second, "--export-dir", dir.filePath("opened"), "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    QCOMPARE(readBytes(second), readBytes(first));

    run = runApp(options + QStringList{"--export-dir", dir.filePath("direct"), "--format", "json"});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject opened = readJsonFile(dir.filePath("opened/attention.json"));
    const QJsonObject direct = readJsonFile(dir.filePath("direct/attention.json"));
    QVERIFY(!opened.isEmpty());
    for (const QString& key : direct.keys())
        if (key != "generator")
            QVERIFY2(opened[key] == direct[key], qPrintable(key));
}

// A hand edit in the lab file is what the opened lab computes with.
void TestCommandLine::openHandEditedLab()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("lab.attnlab");
    QVERIFY(runApp({"--save", path}).exitCode == 0);
    auto lab = attnlab::readLabFile(path);
    QVERIFY(lab.ok());
    lab->X.row(1).setZero();  // "is" becomes the zero vector: its scores are all 0
    lab->X(0, 0) = 2.5;
    QVERIFY(attnlab::saveLabFile(path, lab.value()).ok());

    const Run run = runApp({"--open", path, "--export-dir", dir.filePath("out"), "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath("out/attention.json"));
    const attn::Matrix x = testdata::toMatrix(json["X"]);
    QCOMPARE(x(0, 0), 2.5);
    QVERIFY(x.row(1).isZero(0));
    const attn::Matrix weights = testdata::toMatrix(json["weights"]);
    for (int j = 0; j < 6; ++j)
        QVERIFY(std::abs(weights(1, j) - 1.0 / 6.0) < 1e-15);
    QVERIFY(testdata::toMatrix(json["weights"]) != testdata::toMatrix(out_["weights"]));
}

// A lab of a newer format may hold what this version cannot show: refused
// with one line naming the version, nothing written.
void TestCommandLine::openNewerVersionRefused()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("lab.attnlab");
    QVERIFY(runApp({"--save", path, "--d-model", "4"}).exitCode == 0);
    QByteArray text = readBytes(path);
    QVERIFY(text.contains("\"version\": 2,"));
    text.replace("\"version\": 2,", "\"version\": 3, \"layers\": 8,");
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    }
    const Run run = runApp({"--open", path, "--export-dir", dir.filePath("out")});
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err,
             QByteArray("attention-lab: --open: lab.attnlab: the file is version 3, written by a newer "
                        "Attention Lab (" ATTNLAB_VERSION "); this Attention Lab (" ATTNLAB_VERSION
                        ") reads versions 1 to 2\n"));
    QVERIFY(!QFileInfo::exists(dir.filePath("out")));
}

void TestCommandLine::windowGetsTheLab()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("lab.attnlab");
    attn::ModelConfig config;
    config.sentence = "hello there";
    config.dModel = 3;
    const auto snapshot = attnlab::computeSnapshot(config, attn::AttentionOptions());
    QVERIFY(snapshot.ok());
    const QJsonObject view{{"focus_row", 1}};
    QVERIFY(attnlab::saveLabFile(path, attnlab::labStateFromSnapshot(snapshot.value(), view)).ok());

    Argv open({"--open", path, "-platform", "offscreen"});
    const attnlab::CommandLineOutcome fromLab = attnlab::handleCommandLine(open.argc(), open.argv());
    QVERIFY(!fromLab.exitNow);
    QVERIFY(fromLab.haveLab && fromLab.haveConfig);
    QCOMPARE(fromLab.config.sentence, std::string("hello there"));
    QCOMPARE(fromLab.lab.X, snapshot->X);
    QCOMPARE(fromLab.lab.Wv, snapshot->headWeights().Wv);
    QCOMPARE(fromLab.lab.view, view);

    const QString x = dir.filePath("X.npy");
    const attn::Matrix given = attn::Matrix::Random(4, 16);
    QVERIFY(writeNpyFile(x, given));
    Argv files({"--x", x});
    const attnlab::CommandLineOutcome fromFiles = attnlab::handleCommandLine(files.argc(), files.argv());
    QVERIFY(!fromFiles.exitNow);
    QVERIFY(fromFiles.haveLab);
    QCOMPARE(fromFiles.lab.X, given);
    QCOMPARE(fromFiles.config.sentence, std::string("t0 t1 t2 t3"));
    QCOMPARE(fromFiles.lab.Wq.rows(), Eigen::Index(16));

    // A bare file name, as the desktop entry's "attention-lab %f" passes it.
    Argv bare({path});
    const attnlab::CommandLineOutcome fromBare = attnlab::handleCommandLine(bare.argc(), bare.argv());
    QVERIFY(!fromBare.exitNow && fromBare.haveLab);
    QCOMPARE(fromBare.lab.X, snapshot->X);

    Argv plain({"--d-k", "4"});
    QVERIFY(!attnlab::handleCommandLine(plain.argc(), plain.argv()).haveLab);
}

// --preset NAME and --list-presets: the presets of File > Presets.
void TestCommandLine::listPresets()
{
    const Run run = runApp({"--list-presets"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.err.isEmpty());
    const QString out = QString::fromUtf8(run.out);
    for (const QString& name : attnlab::presetNames())
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral("^%1 ").arg(name),
                                                 QRegularExpression::MultilineOption)),
                 qPrintable(name));
    QCOMPARE(attnlab::presetNames(), (QStringList{"article", "cinema", "scaling-demo"}));
    QVERIFY(
        out.contains("\"Jane is going to the cinema to watch a new film\", seed 123, "
                     "d_model 16, d_k 24, d_v 28, unit-variance initialisation"));
    QVERIFY(
        out.contains("\"Life is short, eat dessert first\", seed 123, d_model 16, d_k 24, "
                     "d_v 28, article initialisation"));
    const Run help = runApp({"--help"});
    QVERIFY(help.out.contains("--preset NAME"));
    QVERIFY(help.out.contains("--list-presets"));
    QVERIFY(help.out.contains("article, cinema, scaling-demo"));
}

void TestCommandLine::presetExport_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("sentence");
    QTest::addColumn<int>("dK");
    QTest::addColumn<int>("dV");
    QTest::addColumn<QString>("init");
    QTest::addColumn<bool>("causal");
    const QString cinema = "Jane is going to the cinema to watch a new film";
    const QString article = QString::fromLatin1(attn::kArticleSentence);
    QTest::newRow("cinema") << QStringList{"--preset", "cinema"} << cinema << 24 << 28 << "unit-variance"
                            << false;
    QTest::newRow("scaling demo") << QStringList{"--preset=scaling-demo"} << article << 512 << 16
                                  << "unit-variance" << false;
    // Later options change the preset's parameters; earlier ones are its.
    QTest::newRow("cinema, d_k 512, causal") << QStringList{"--preset", "cinema", "--d-k", "512", "--causal"}
                                             << cinema << 512 << 28 << "unit-variance" << true;
    QTest::newRow("d_k before the preset")
        << QStringList{"--d-k", "8", "--preset", "article"} << article << 24 << 28 << "article" << false;
    QTest::newRow("article, unit variance")
        << QStringList{"--preset", "article", "--init", "unit-variance", "--d-v", "4"} << article << 24 << 4
        << "unit-variance" << false;
}

void TestCommandLine::presetExport()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, sentence);
    QFETCH(int, dK);
    QFETCH(int, dV);
    QFETCH(QString, init);
    QFETCH(bool, causal);
    QTemporaryDir dir;
    const QString out = dir.filePath("out");
    const QString lab = dir.filePath("preset.attnlab");
    const Run run =
        runApp(arguments + QStringList{"--export-dir", out, "--format", "json,npy", "--save", lab});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.isEmpty(), run.err.constData());
    const QJsonObject json = readJsonFile(QDir(out).filePath("attention.json"));
    QCOMPARE(json["sentence"].toString(), sentence);
    QCOMPARE(json["seed"].toInt(), 123);
    QCOMPARE(json["d_model"].toInt(), 16);
    QCOMPARE(json["d_k"].toInt(), dK);
    QCOMPARE(json["d_v"].toInt(), dV);
    QCOMPARE(json["init"].toString(), init);
    QCOMPARE(json["causal"].toBool(), causal);
    QVERIFY(QFileInfo::exists(QDir(out).filePath("weights.npy")));
    // The numbers are the engine's for those parameters.
    attn::ModelConfig config;
    config.sentence = sentence.toStdString();
    config.dK = dK;
    config.dV = dV;
    attn::parseInitMode(init.toStdString(), &config.init);
    attn::AttentionOptions options;
    options.causal = causal;
    const auto snapshot = attnlab::computeSnapshot(config, options);
    QVERIFY(snapshot.ok());
    QCOMPARE(testdata::toMatrix(json["Q"]), snapshot->head().Q);
    // --save keeps the same lab.
    const attn::Expected<attnlab::LabState> saved = attnlab::readLabFile(lab);
    QVERIFY(saved.ok());
    QCOMPARE(saved->config.dK, dK);
    QCOMPARE(saved->X, snapshot->X);
}

void TestCommandLine::presetIsTheMenusLab()
{
    for (const attnlab::PresetEntry& preset : attnlab::presetEntries()) {
        const attn::Expected<attnlab::LabState> file = attnlab::readLabFile(preset.path);
        QVERIFY2(file.ok(), qPrintable(preset.path));
        Argv args({"--preset", preset.name});
        const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(args.argc(), args.argv());
        QVERIFY(!outcome.exitNow);
        QVERIFY(outcome.haveConfig && outcome.haveLab);
        QCOMPARE(outcome.lab.config.sentence, file->config.sentence);
        QCOMPARE(outcome.lab.X, file->X);
        QCOMPARE(outcome.lab.Wq, file->Wq);
        QCOMPARE(outcome.lab.view, file->view);
        QVERIFY(!outcome.lab.view.value("title").toString().isEmpty());
        // A preset is the seed's draw: changing a parameter after it and
        // back gives the same matrices.
        const attn::Expected<attn::Model> drawn = attn::buildModel(file->config);
        QVERIFY(drawn.ok());
        QCOMPARE(file->X, drawn->X);
        QCOMPARE(file->Wq, drawn->Wq);
        QCOMPARE(file->Wk, drawn->Wk);
        QCOMPARE(file->Wv, drawn->Wv);
    }
    Argv changed({"--preset", "cinema", "--seed", "7", "-platform", "offscreen"});
    const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(changed.argc(), changed.argv());
    QVERIFY(!outcome.exitNow && outcome.haveConfig && !outcome.haveLab);
    QCOMPARE(outcome.config.seed, std::uint64_t(7));
    QCOMPARE(outcome.config.init, attn::InitMode::UnitVariance);
    QCOMPARE(outcome.config.sentence, std::string("Jane is going to the cinema to watch a new film"));

    // With a matrix file: the preset's parameters, the file's X (its 11 rows
    // labelled with the preset's tokens), the rest drawn as the preset draws.
    QTemporaryDir dir;
    const QString x = dir.filePath("X.npy");
    const attn::Matrix given = attn::Matrix::Random(11, 16);
    QVERIFY(writeNpyFile(x, given));
    Argv withX({"--preset", "cinema", "--x", x});
    const attnlab::CommandLineOutcome fromX = attnlab::handleCommandLine(withX.argc(), withX.argv());
    QVERIFY(!fromX.exitNow && fromX.haveLab);
    QCOMPARE(fromX.lab.X, given);
    QCOMPARE(fromX.lab.config.init, attn::InitMode::UnitVariance);
    QCOMPARE(fromX.lab.config.sentence, std::string("Jane is going to the cinema to watch a new film"));
    const attn::Expected<attnlab::LabState> cinema = attnlab::readLabFile(attnlab::presetPath("cinema"));
    QVERIFY(cinema.ok());
    QCOMPARE(fromX.lab.Wq, cinema->Wq);
    QCOMPARE(fromX.lab.Wv, cinema->Wv);
}

void TestCommandLine::badPreset_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown") << QStringList{"--preset", "nope"}
                             << "attention-lab: unknown preset 'nope'; the presets are article, "
                                "cinema, scaling-demo (see --list-presets)\n";
    QTest::newRow("no name") << QStringList{"--preset"}
                             << "attention-lab: '--preset' needs a value; see --help\n";
    QTest::newRow("with --open") << QStringList{"--preset", "cinema", "--open", "x.attnlab"}
                                 << "attention-lab: --open cannot be combined with --preset: the "
                                    "lab file holds the model; change it in the window\n";
}

void TestCommandLine::badPreset()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath("out");
    const Run run = runApp(arguments + QStringList{"--export-dir", out});
    QCOMPARE(run.exitCode, attnlab::kExitUsageError);
    QCOMPARE(QString::fromUtf8(run.err), message);
    QVERIFY(!QFileInfo::exists(out));
}

QTEST_APPLESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
