// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab --training-lab through the real program: training_lab.json
// holds every setting and, per run, every step's measures equal to a run of
// the core's TrainingLab with the same settings (bit for bit: the numbers
// read back exactly); training_lab.csv the same, one row per run and step;
// help; bad options and bad numbers exit 2 with one line and write nothing;
// the plots (the Training tab's, registered by main()) as PNG at twice
// 820 x 560 pixels, SVG of that size and PDF, one of each per plot.

#include "runapp.h"
#include "training_lab.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using apptest::Run;
using apptest::runApp;

namespace {

const char* const kMeasures[] = {"loss",       "accuracy", "grad_norm_q",    "grad_norm_k",
                                 "max_weight", "entropy",  "saturated_wrong"};

const std::vector<double>& measure(const attn::TrainingRunCurves& c, int i)
{
    const std::vector<double>* all[] = {&c.loss,      &c.accuracy, &c.gradNormQ,     &c.gradNormK,
                                        &c.maxWeight, &c.entropy,  &c.saturatedWrong};
    return *all[i];
}

QStringList withLab(const QStringList& arguments)
{
    return QStringList{"--training-lab"} + arguments;
}

}  // namespace

class TestTrainingLabCommand : public QObject {
    Q_OBJECT
private slots:
    void matchesTheCoreLab_data();
    void matchesTheCoreLab();
    void defaultsAndFormats();
    void help();
    void writesPictures();
    void refused_data();
    void refused();
};

void TestTrainingLabCommand::matchesTheCoreLab_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<bool>("sgd");
    QTest::addColumn<double>("divisor");
    QTest::newRow("adam, custom divisor")
        << QStringList{"--d-k",   "12",       "--steps", "25",        "--seed",    "9",         "--lr",
                       "0.01",    "--n-keys", "6",       "--d-model", "8",         "--classes", "3",
                       "--batch", "10",       "--beta",  "4",         "--divisor", "2.5"}
        << false << 2.5;
    QTest::newRow("sgd, two runs") << QStringList{
        "--d-k=64",        "--steps=15",  "--seed=18446744073709551615",
        "--optimizer=sgd", "--lr=0.5",    "--n-keys=5",
        "--d-model=7",     "--classes=2", "--batch=3",
        "--beta=1.5"} << true << 0.0;
}

void TestTrainingLabCommand::matchesTheCoreLab()
{
    QFETCH(QStringList, arguments);
    QFETCH(bool, sgd);
    QFETCH(double, divisor);
    QTemporaryDir dir;
    const QString out = dir.filePath("out");
    const Run run = runApp(withLab(arguments) + QStringList{"--export-dir", out, "--format", "json,csv"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    QCOMPARE(QDir(out).entryList(QDir::Files), (QStringList{"training_lab.csv", "training_lab.json"}));

    // The same settings, independently: the values the arguments name.
    attn::TrainingSettings s;
    QStringList values;
    for (const QString& a : arguments)
        values += a.split('=');
    auto intOf = [&values](const char* name) { return values[values.indexOf(name) + 1].toInt(); };
    auto doubleOf = [&values](const char* name) { return values[values.indexOf(name) + 1].toDouble(); };
    s.dK = intOf("--d-k");
    s.steps = intOf("--steps");
    s.seed = values[values.indexOf("--seed") + 1].toULongLong();
    s.learningRate = doubleOf("--lr");
    s.task.nKeys = intOf("--n-keys");
    s.task.dModel = intOf("--d-model");
    s.task.classes = intOf("--classes");
    s.task.batch = intOf("--batch");
    s.task.beta = doubleOf("--beta");
    s.optimizer = sgd ? attn::TrainingOptimizer::Sgd : attn::TrainingOptimizer::Adam;
    s.customDivisor = divisor;
    QVERIFY(attn::validateTrainingSettings(s).ok());
    attn::TrainingLab lab(s);
    lab.run();

    const QJsonObject json = apptest::readJsonFile(out + "/training_lab.json");
    const QJsonObject task = json["task"].toObject();
    QCOMPARE(task["n_keys"].toInt(), s.task.nKeys);
    QCOMPARE(task["d_model"].toInt(), s.task.dModel);
    QCOMPARE(task["classes"].toInt(), s.task.classes);
    QCOMPARE(task["batch"].toInt(), s.task.batch);
    QCOMPARE(task["beta"].toDouble(), s.task.beta);
    QCOMPARE(task["query_noise"].toDouble(), 0.5);
    QCOMPARE(task["steps"].toInt(), s.steps);
    QCOMPARE(task["optimizer"].toString(), QString(sgd ? "sgd" : "adam"));
    QCOMPARE(task["lr"].toDouble(), s.learningRate);
    QCOMPARE(task["adam_beta1"].toDouble(), 0.9);
    QCOMPARE(task["adam_beta2"].toDouble(), 0.999);
    QCOMPARE(task["adam_eps"].toDouble(), 1e-8);
    QVERIFY(task.contains("seed"));
    if (divisor > 0)
        QCOMPARE(task["divisor"].toDouble(), divisor);
    else
        QVERIFY(task["divisor"].isNull());
    QCOMPARE(json["d_k"].toInt(), s.dK);
    const QJsonArray runs = json["runs"].toArray();
    QCOMPARE(runs.size(), divisor > 0 ? 3 : 2);
    const char* names[] = {"sqrt-dk", "none", "custom"};
    for (int r = 0; r < runs.size(); ++r) {
        const QJsonObject o = runs[r].toObject();
        const attn::TrainingRunCurves& c = lab.curves()[std::size_t(r)];
        QCOMPARE(o["scale"].toString(), QString(names[r]));
        QCOMPARE(o["divisor"].toDouble(), r == 0 ? std::sqrt(double(s.dK)) : r == 1 ? 1.0 : divisor);
        for (int m = 0; m < 7; ++m) {
            const QJsonArray values = o[kMeasures[m]].toArray();
            QCOMPARE(values.size(), s.steps);
            for (int i = 0; i < s.steps; ++i)
                QVERIFY2(values[i].toDouble() == measure(c, m)[std::size_t(i)],  // exactly
                         qPrintable(QStringLiteral("run %1 %2 step %3").arg(names[r], kMeasures[m]).arg(i)));
        }
    }
    // Saturation on a wrong key is a fraction of the batch.
    for (const QJsonValue& v : runs[1].toObject()["saturated_wrong"].toArray())
        QVERIFY(v.toDouble() >= 0 && v.toDouble() <= 1);

    QFile csv(out + "/training_lab.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 1 + int(runs.size()) * s.steps);
    QCOMPARE(lines[0],
             QByteArray("scale,divisor,step,loss,accuracy,grad_norm_q,grad_norm_k,max_weight,entropy,"
                        "saturated_wrong"));
    for (int r = 0; r < runs.size(); ++r)
        for (int i = 0; i < s.steps; ++i) {
            const QList<QByteArray> cells = lines[1 + r * s.steps + i].split(',');
            QCOMPARE(cells.size(), 10);
            QCOMPARE(cells[0], QByteArray(names[r]));
            QCOMPARE(cells[2].toInt(), i + 1);
            for (int m = 0; m < 7; ++m)
                QVERIFY(cells[3 + m].toDouble() == measure(lab.curves()[std::size_t(r)], m)[std::size_t(i)]);
        }
}

// The defaults as the core's, d_k 64 and 400 steps; json alone.
void TestTrainingLabCommand::defaultsAndFormats()
{
    QTemporaryDir dir;
    const QString out = dir.filePath("json");
    const Run run = runApp(withLab({"--steps", "3", "--export-dir", out, "--format", "json"}));
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(QDir(out).entryList(QDir::Files), QStringList{"training_lab.json"});
    const QJsonObject json = apptest::readJsonFile(out + "/training_lab.json");
    const attn::TrainingSettings d;
    QCOMPARE(json["d_k"].toInt(), d.dK);
    const QJsonObject task = json["task"].toObject();
    QCOMPARE(task["n_keys"].toInt(), d.task.nKeys);
    QCOMPARE(task["d_model"].toInt(), d.task.dModel);
    QCOMPARE(task["classes"].toInt(), d.task.classes);
    QCOMPARE(task["batch"].toInt(), d.task.batch);
    QCOMPARE(task["beta"].toDouble(), d.task.beta);
    QCOMPARE(task["seed"].toInteger(), qint64(d.seed));
    QCOMPARE(task["lr"].toDouble(), d.learningRate);
    QCOMPARE(task["optimizer"].toString(), QStringLiteral("adam"));
    attn::TrainingSettings s = d;
    s.steps = 3;
    attn::TrainingLab lab(s);
    lab.run();
    const QJsonArray loss = json["runs"].toArray()[1].toObject()["loss"].toArray();
    QCOMPARE(loss.size(), 3);
    QVERIFY(loss[2].toDouble() == lab.curves()[1].loss[2]);

    const QString csvOnly = dir.filePath("csv");
    QCOMPARE(runApp(withLab({"--steps", "2", "--export-dir", csvOnly, "--format", " CSV "})).exitCode, 0);
    QCOMPARE(QDir(csvOnly).entryList(QDir::Files), QStringList{"training_lab.csv"});
}

void TestTrainingLabCommand::help()
{
    const Run run = runApp(withLab({"--help"}));
    QCOMPARE(run.exitCode, 0);
    for (const char* text : {"--optimizer O", "--divisor X", "training_lab.json", "training_lab.csv",
                             "saturated_wrong", "(default 400)"})
        QVERIFY2(run.out.contains(text), text);
    const Run main = runApp({"--help"});
    QVERIFY(main.out.contains("--training-lab       see attention-lab --training-lab --help"));
}

void TestTrainingLabCommand::refused_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("no export dir")
        << QStringList{"--steps", "3"}
        << "--training-lab needs --export-dir DIR (see attention-lab --training-lab "
           "--help)";
    QTest::newRow("unknown option") << QStringList{"--momentum", "0.9", "--export-dir", "OUT"}
                                    << "unknown option '--momentum' for --training-lab (see attention-lab "
                                       "--training-lab --help)";
    QTest::newRow("window option") << QStringList{"--causal", "--export-dir", "OUT"}
                                   << "unknown option '--causal' for --training-lab (see attention-lab "
                                      "--training-lab --help)";
    QTest::newRow("d_k 0") << QStringList{"--d-k", "0", "--export-dir", "OUT"}
                           << "--d-k must be a whole number from 1 to 1024, not '0'";
    QTest::newRow("d_k 1e3") << QStringList{"--d-k", "1e3", "--export-dir", "OUT"}
                             << "--d-k must be a whole number from 1 to 1024, not '1e3'";
    QTest::newRow("steps -1") << QStringList{"--steps=-1", "--export-dir", "OUT"}
                              << "--steps must be a whole number from 1 to 100000, not '-1'";
    QTest::newRow("seed too large") << QStringList{"--seed", "18446744073709551616", "--export-dir", "OUT"}
                                    << "--seed must be a whole number from 0 to 18446744073709551615, not "
                                       "'18446744073709551616'";
    QTest::newRow("one key") << QStringList{"--n-keys", "1", "--export-dir", "OUT"}
                             << "--n-keys must be a whole number from 2 to 1024, not '1'";
    QTest::newRow("classes 2000") << QStringList{"--classes", "2000", "--export-dir", "OUT"}
                                  << "--classes must be a whole number from 2 to 1024, not '2000'";
    QTest::newRow("batch x") << QStringList{"--batch", "x", "--export-dir", "OUT"}
                             << "--batch must be a whole number from 1 to 4096, not 'x'";
    QTest::newRow("d_model 0") << QStringList{"--d-model", "0", "--export-dir", "OUT"}
                               << "--d-model must be a whole number from 1 to 1024, not '0'";
    QTest::newRow("lr abc") << QStringList{"--lr", "abc", "--export-dir", "OUT"}
                            << "--lr must be a number above 0 and at most 10, not 'abc'";
    QTest::newRow("lr 0") << QStringList{"--lr", "0", "--export-dir", "OUT"}
                          << "--lr must be a number above 0 and at most 10, not '0'";
    QTest::newRow("lr nan") << QStringList{"--lr", "nan", "--export-dir", "OUT"}
                            << "--lr must be a number above 0 and at most 10, not 'nan'";
    QTest::newRow("lr inf") << QStringList{"--lr", "inf", "--export-dir", "OUT"}
                            << "--lr must be a number above 0 and at most 10, not 'inf'";
    QTest::newRow("lr with a blank") << QStringList{"--lr", "0.1 ", "--export-dir", "OUT"}
                                     << "--lr must be a number above 0 and at most 10, not '0.1 '";
    QTest::newRow("beta 1000") << QStringList{"--beta", "1000", "--export-dir", "OUT"}
                               << "--beta must be a number above 0 and at most 100, not '1000'";
    QTest::newRow("beta -1") << QStringList{"--beta=-1", "--export-dir", "OUT"}
                             << "--beta must be a number above 0 and at most 100, not '-1'";
    QTest::newRow("divisor 0") << QStringList{"--divisor", "0", "--export-dir", "OUT"}
                               << "--divisor must be a number from 0.001 to 1000000, not '0'";
    QTest::newRow("divisor infinity") << QStringList{"--divisor", "infinity", "--export-dir", "OUT"}
                                      << "--divisor must be a number from 0.001 to 1000000, not 'infinity'";
    QTest::newRow("optimizer") << QStringList{"--optimizer", "rmsprop", "--export-dir", "OUT"}
                               << "--optimizer must be adam or sgd, not 'rmsprop'";
    QTest::newRow("format gif") << QStringList{"--format", "json,gif", "--export-dir", "OUT"}
                                << "--format takes json, csv, png, svg and pdf, comma-separated, not 'gif'";
    QTest::newRow("repeated") << QStringList{"--steps", "3", "--steps", "4", "--export-dir", "OUT"}
                              << "--steps is given twice ('3' and '4'); give it once";
    QTest::newRow("too many key entries")
        << QStringList{"--batch", "4096", "--n-keys", "1024", "--export-dir", "OUT"}
        << "A batch of 4096 examples with 1024 keys of d_model 64 has 268435456 key entries; batch * keys * "
           "d_model must be at most 16777216.";
}

void TestTrainingLabCommand::refused()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath("out");
    arguments.replaceInStrings(QStringLiteral("OUT"), out);
    const Run run = runApp(withLab(arguments));
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(QString::fromUtf8(run.err), QStringLiteral("attention-lab: ") + message + "\n");
    QVERIFY(run.out.isEmpty());
    QVERIFY(!QFileInfo::exists(out));
}

void TestTrainingLabCommand::writesPictures()
{
    QTemporaryDir dir;
    const QString out = dir.filePath("out");
    const Run run = runApp(withLab({"--steps", "6", "--n-keys", "8", "--d-model", "8", "--batch", "8",
                                    "--d-k", "16", "--format", "png,svg,pdf", "--export-dir", out}));
    QCOMPARE(run.exitCode, 0);
    const char* const stems[] = {"training_loss",       "training_accuracy", "training_grad_norm",
                                 "training_max_weight", "training_entropy",  "training_saturated_wrong"};
    for (const char* stem : stems) {
        const QString base = QDir(out).filePath(QLatin1String(stem));
        QImage png(base + ".png");
        QCOMPARE(png.size(), QSize(1640, 1120));
        // Not blank: the curves and the axes are drawn on the white background.
        int dark = 0;
        for (int y = 0; y < png.height(); y += 4)
            for (int x = 0; x < png.width(); x += 4)
                dark += qGray(png.pixel(x, y)) < 128;
        QVERIFY2(dark > 100, stem);
        QFile svg(base + ".svg");
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray svgText = svg.readAll();
        QVERIFY2(svgText.contains("width=\"820\"") && svgText.contains("height=\"560\""), stem);
        QFile pdf(base + ".pdf");
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.size() > 1000);
        QVERIFY(pdf.read(5) == "%PDF-");
    }
}

QTEST_APPLESS_MAIN(TestTrainingLabCommand)
#include "tst_traininglabcommand.moc"
