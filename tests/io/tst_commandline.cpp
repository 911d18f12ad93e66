// attention-lab run as a user runs it (QProcess on the built executable):
// the article's command writes files whose numbers match PyTorch's, --help
// and --version answer, and every bad input fails with one line on stderr and
// no file left behind. handleCommandLine is also called directly for what it
// hands the window.

#include "commandline.h"
#include "matrixio.h"
#include "testdata.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <vector>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runApp(const QStringList& arguments)
{
    QProcess process;
    process.start(QStringLiteral(ATTNLAB_EXECUTABLE), arguments);
    Run run;
    if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit) {
        process.kill();
        run.err = "did not finish";
        return run;
    }
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

QJsonObject readJsonFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
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

const QStringList kArticleCommand = {
    "--sentence", "Life is short, eat dessert first", "--seed", "123", "--d-model", "16",
    "--d-k", "24", "--d-v", "28", "--init", "article"};

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
    const Run run = runApp(kArticleCommand
                           + QStringList{"--export-dir", articleDir_, "--format", "json,csv"});
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
    QTest::newRow("X") << "X" << "embedded_sentence" << false << 0.0 << 5e-7;
    QTest::newRow("W_q") << "W_q" << "W_query" << true << 0.0 << 0.0;
    QTest::newRow("W_k") << "W_k" << "W_key" << true << 0.0 << 0.0;
    QTest::newRow("W_v") << "W_v" << "W_value" << true << 0.0 << 0.0;
    QTest::newRow("Q") << "Q" << "Q" << false << 1e-5 << 1e-5;
    QTest::newRow("K") << "K" << "K" << false << 1e-5 << 1e-5;
    QTest::newRow("V") << "V" << "V" << false << 1e-5 << 1e-5;
    QTest::newRow("scores") << "scores" << "scores" << false << 1e-4 << 5e-5;
    QTest::newRow("scaled_scores") << "scaled_scores" << "scaled_scores" << false << 1e-4 << 1e-5;
    QTest::newRow("weights") << "weights" << "weights" << false << 0.0 << 1e-6;
    QTest::newRow("context") << "context" << "context" << false << 1e-5 << 1e-5;
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
    QVERIFY2(over <= 0, qPrintable(QString("%1: largest difference %2")
                                       .arg(ours)
                                       .arg(testdata::maxAbsDiff(mine, expected))));
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
    for (const auto& name : {"X", "W_q", "W_k", "W_v", "Q", "K", "V", "scores", "scaled_scores",
                             "weights", "context"})
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
    QCOMPARE(xTable->rowLabels,
             (std::vector<std::string>{"Life", "is", "short", "eat", "dessert", "first"}));
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
        for (const char* option : {"--sentence", "--seed", "--d-model", "--d-k", "--d-v", "--init",
                                   "--tokenizer", "--scale", "--causal", "--export-dir",
                                   "--format", "--help", "--version", "Example", "sqrt-dk",
                                   "unit-variance", "punctuation"})
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
    QTest::newRow("unknown option") << QStringList{"--colour", "red"} << 2
                                    << "unknown option '--colour'";
    QTest::newRow("single-dash unknown") << QStringList{"-x"} << 2 << "unknown option '-x'";
    QTest::newRow("stray argument") << QStringList{"hello"} << 2 << "unexpected argument 'hello'";
    QTest::newRow("missing value at the end") << QStringList{"--d-k"} << 2
                                              << "'--d-k' needs a value";
    QTest::newRow("option as value") << QStringList{"--sentence", "--causal"} << 2
                                     << "'--sentence' needs a value";
    QTest::newRow("non-numeric d_k") << QStringList{"--d-k", "abc"} << 2
                                     << "--d-k must be a whole number from 1 to 1024, not 'abc'";
    QTest::newRow("fractional d_k") << QStringList{"--d-k", "2.5"} << 2 << "--d-k must be";
    QTest::newRow("d_k zero") << QStringList{"--d-k", "0"} << 2 << "not '0'";
    QTest::newRow("d_k too large") << QStringList{"--d-k", "1025"} << 2 << "not '1025'";
    QTest::newRow("d_model negative") << QStringList{"--d-model", "-3"} << 2
                                      << "--d-model must be a whole number";
    QTest::newRow("d_v overflow") << QStringList{"--d-v", "99999999999999999999"} << 2
                                  << "--d-v must be";
    QTest::newRow("seed negative") << QStringList{"--seed", "-1"} << 2 << "--seed must be";
    QTest::newRow("invalid init") << QStringList{"--init", "xavier"} << 2
                                  << "--init must be article, normal or unit-variance, not 'xavier'";
    QTest::newRow("invalid tokenizer") << QStringList{"--tokenizer", "bpe"} << 2
                                       << "--tokenizer must be article or punctuation";
    QTest::newRow("invalid format") << QStringList{"--format", "xml"} << 2
                                    << "unknown export format 'xml'";
    QTest::newRow("empty sentence") << QStringList{"--sentence", ""} << 2 << "--sentence is empty";
    QTest::newRow("sentence without tokens") << QStringList{"--sentence", " , , "} << 2
                                             << "--sentence:";
    QTest::newRow("divisor zero") << QStringList{"--scale", "0"} << 2
                                  << "--scale must be sqrt-dk, none or a positive number, not '0'";
    QTest::newRow("divisor negative") << QStringList{"--scale", "-2"} << 2 << "--scale must be";
    QTest::newRow("divisor infinite") << QStringList{"--scale", "inf"} << 2 << "--scale must be";
    QTest::newRow("causal with value") << QStringList{"--causal=yes"} << 2
                                       << "--causal takes no value";
    QTest::newRow("OUT below a file") << QStringList{"--export-dir", "FILE/sub"} << 1
                                      << "cannot create the directory";
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
    Argv args({"--d-k", "8", "--causal", "--sentence=a b c", "--scale", "none",
               "--tokenizer", "punctuation", "--seed", "18446744073709551615", "-platform",
               "offscreen", "-reverse"});
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

QTEST_APPLESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
