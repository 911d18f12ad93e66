// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab --model DIR --sentence TEXT --rope L.H through the real
// program (rotaryexport.h): rope.json against plain loops written here from
// the definition (theta_i = rope_theta^(-2i/d), llama3's rescaling as
// transformers' _compute_llama3_parameters writes it, rotate_half, dot
// products) and its rotated scores against the float64 NumPy reference of
// tests/data/llama (a copy of ../shared/reference/llama); a folder of
// tiny-llama with llama3's rope_scaling (no reference has one) against the
// plain loops; rope.png at its size; a GPT-2 folder, a head out of range
// and a malformed head exit 2 with one line and write nothing.

#include "runapp.h"
#include "testdata.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <vector>

namespace {

using apptest::readJsonFile;
using apptest::Run;
using apptest::runApp;

using Rows = std::vector<std::vector<double>>;

QString folderOf(const QString& name)
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/") + name;
}

Rows rowsOf(const QJsonValue& value)
{
    Rows out;
    for (const QJsonValue& row : value.toArray()) {
        out.emplace_back();
        for (const QJsonValue& x : row.toArray())
            out.back().push_back(x.toDouble());
    }
    return out;
}

double relative(double a, double b)
{
    return std::abs(a - b) / std::max(std::abs(b), 1e-3);
}

Run ropeRun(const QString& model, const QString& sentence, const QString& head, const QString& out,
            const QString& formats = QStringLiteral("json"))
{
    return runApp(
        {"--model", model, "--sentence", sentence, "--rope", head, "--export-dir", out, "--format", formats});
}

// transformers' default inverse frequencies, then _compute_llama3_parameters
// when `scaling` (factor, low_freq_factor, high_freq_factor,
// original_max_position_embeddings) is given.
std::vector<double> plainFrequencies(double theta, int headDim, const QJsonObject& scaling = {})
{
    std::vector<double> f;
    for (int i = 0; i < headDim / 2; ++i)
        f.push_back(1.0 / std::pow(theta, 2.0 * i / headDim));
    if (scaling.isEmpty())
        return f;
    const double factor = scaling["factor"].toDouble(), low = scaling["low_freq_factor"].toDouble();
    const double high = scaling["high_freq_factor"].toDouble();
    const double old = scaling["original_max_position_embeddings"].toDouble();
    const double pi = std::acos(-1.0);
    for (double& x : f) {
        const double wavelength = 2 * pi / x;
        if (wavelength > old / low) {
            x = x / factor;
        } else if (wavelength >= old / high) {
            const double smooth = (old / wavelength - low) / (high - low);
            x = (1 - smooth) * x / factor + smooth * x;
        }
    }
    return f;
}

// rotate_half: pair (i, i + d/2) of row p turned by p * f[i].
Rows plainRotated(const Rows& x, const std::vector<double>& f)
{
    Rows out = x;
    const std::size_t half = f.size();
    for (std::size_t p = 0; p < x.size(); ++p)
        for (std::size_t i = 0; i < half; ++i) {
            const double a = double(p) * f[i];
            out[p][i] = x[p][i] * std::cos(a) - x[p][i + half] * std::sin(a);
            out[p][i + half] = x[p][i + half] * std::cos(a) + x[p][i] * std::sin(a);
        }
    return out;
}

Rows plainScores(const Rows& q, const Rows& k)
{
    Rows s(q.size(), std::vector<double>(k.size(), 0.0));
    for (std::size_t i = 0; i < q.size(); ++i)
        for (std::size_t j = 0; j < k.size(); ++j)
            for (std::size_t d = 0; d < q[i].size(); ++d)
                s[i][j] += q[i][d] * k[j][d];
    return s;
}

// The largest relative difference between two matrices of one shape (-1: shapes differ).
double worst(const Rows& got, const Rows& want)
{
    if (got.size() != want.size())
        return -1;
    double w = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i].size() != want[i].size())
            return -1;
        for (std::size_t j = 0; j < got[i].size(); ++j)
            w = std::max(w, relative(got[i][j], want[i][j]));
    }
    return w;
}

// rope.json's own numbers against the plain loops over its q and k and
// the frequencies `f`.
void checkAgainstPlainLoops(const QJsonObject& json, const std::vector<double>& f)
{
    const QJsonArray frequencies = json["frequencies"].toArray();
    QCOMPARE(std::size_t(frequencies.size()), f.size());
    for (std::size_t i = 0; i < f.size(); ++i)
        QVERIFY2(relative(frequencies[int(i)].toDouble(), f[i]) <= 1e-14, qPrintable(QString::number(i)));
    const Rows angles = rowsOf(json["angles"]);
    const Rows q = rowsOf(json["q"]), k = rowsOf(json["k"]);
    QCOMPARE(angles.size(), q.size());
    for (std::size_t p = 0; p < angles.size(); ++p)
        for (std::size_t i = 0; i < f.size(); ++i)
            QVERIFY(relative(angles[p][i], double(p) * f[i]) <= 1e-14);
    QCOMPARE(int(q.front().size()), json["head_dim"].toInt());
    const Rows qRot = plainRotated(q, f), kRot = plainRotated(k, f);
    QVERIFY(worst(rowsOf(json["q_rot"]), qRot) <= 1e-12);
    QVERIFY(worst(rowsOf(json["k_rot"]), kRot) <= 1e-12);
    QVERIFY(worst(rowsOf(json["scores_without_rotation"]), plainScores(q, k)) <= 1e-10);
    QVERIFY(worst(rowsOf(json["scores_with_rotation"]), plainScores(qRot, kRot)) <= 1e-10);
    // Position 0 is not turned: its row of q is the same before and after.
    QCOMPARE(rowsOf(json["q_rot"]).front(), q.front());
}

// The one line of a refusal, and nothing written.
void checkRefused(const Run& run, const QString& out, const char* words)
{
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.startsWith("attention-lab: ") && run.err.count('\n') == 1, run.err.constData());
    QVERIFY2(run.err.contains(words), run.err.constData());
    QVERIFY(!QFileInfo::exists(out));
}

}  // namespace

class TestRopeCommand : public QObject {
    Q_OBJECT
private slots:
    void reference_data();
    void reference();
    void llama3Scaling();
    void refused_data();
    void refused();
};

void TestRopeCommand::reference_data()
{
    QTest::addColumn<QString>("checkpoint");
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("head");
    QTest::addColumn<QString>("formats");
    QTest::newRow("tiny-llama 1.3, json and png")
        << QStringLiteral("tiny-llama") << 1 << 3 << QStringLiteral("json,png");
    QTest::newRow("tiny-qwen3 0.2 (q_norm, k_norm)")
        << QStringLiteral("tiny-qwen3") << 0 << 2 << QStringLiteral("json");
}

void TestRopeCommand::reference()
{
    QFETCH(QString, checkpoint);
    QFETCH(int, layer);
    QFETCH(int, head);
    QFETCH(QString, formats);
    const QJsonObject ref = testdata::readJson(QStringLiteral("llama/%1/reference.json").arg(checkpoint));
    const QJsonObject c = ref["cases"].toArray()[1].toObject();
    const QJsonObject want = c["layers"].toArray()[layer].toObject()["heads"].toArray()[head].toObject();
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out"));
    const Run run = ropeRun(folderOf(checkpoint), c["sentence"].toString(),
                            QStringLiteral("%1.%2").arg(layer).arg(head), out, formats);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(QDir(out).filePath(QStringLiteral("rope.json")));
    QCOMPARE(json["layer"].toInt(-1), layer);
    QCOMPARE(json["head"].toInt(-1), head);
    QCOMPARE(json["kv_head"].toInt(-1), want["kv_head"].toInt());
    QCOMPARE(json["token_ids"].toArray(), c["token_ids"].toArray());
    const QJsonObject config = ref["config"].toObject();
    const int headDim = config.contains("head_dim") ? config["head_dim"].toInt() : 8;
    QCOMPARE(json["head_dim"].toInt(), headDim);
    checkAgainstPlainLoops(json, plainFrequencies(config["rope_theta"].toDouble(), headDim));
    if (QTest::currentTestFailed())
        return;
    // The rotated scores are the reference's, where the mask shows them.
    const QJsonArray scores = json["scores_with_rotation"].toArray();
    const QJsonArray visible = json["visible"].toArray();
    const QJsonArray refScores = want["scores"].toArray();
    QCOMPARE(scores.size(), refScores.size());
    double w = 0;
    for (int i = 0; i < scores.size(); ++i)
        for (int j = 0; j < scores.size(); ++j) {
            const QJsonValue r = refScores[i].toArray()[j];
            QCOMPARE(visible[i].toArray()[j].toBool(), !r.isNull());
            if (!r.isNull())
                w = std::max(w, relative(scores[i].toArray()[j].toDouble(), r.toDouble()));
        }
    QVERIFY2(w <= 1e-4, qPrintable(QString::number(w)));
    // Without the rotation the scores differ off the first column and row.
    QVERIFY(worst(rowsOf(json["scores_without_rotation"]), rowsOf(json["scores_with_rotation"])) > 1e-3);
    // The model files are written beside it, and the picture when asked for.
    QVERIFY(QFileInfo::exists(QDir(out).filePath(QStringLiteral("model_attention.json"))));
    if (formats.contains(QLatin1String("png"))) {
        QImage picture(QDir(out).filePath(QStringLiteral("rope.png")));
        QCOMPARE(picture.size(), QSize(1400, 760));
    } else {
        QVERIFY(!QFileInfo::exists(QDir(out).filePath(QStringLiteral("rope.png"))));
    }
}

void TestRopeCommand::llama3Scaling()
{
    // tiny-llama with llama3's rope_scaling: with head_dim 8 and theta
    // 10000 the wavelengths 2π/θ_i are 6.3, 63, 628 and 6283 positions;
    // against 64 / 1 and 64 / 4 the first stays, the second is smoothed,
    // the last two are divided by the factor.
    QTemporaryDir dir;
    QDir model(dir.filePath(QStringLiteral("model")));
    QVERIFY(QDir().mkpath(model.path()));
    for (const char* name : {"model.safetensors", "tokenizer.json"})
        QVERIFY(QFile::link(QDir(folderOf(QStringLiteral("tiny-llama"))).filePath(QLatin1String(name)),
                            model.filePath(QLatin1String(name))));
    QJsonObject config = testdata::readJson(QStringLiteral("llama/tiny-llama/config.json"));
    const QJsonObject scaling{{"rope_type", "llama3"},
                              {"factor", 8.0},
                              {"low_freq_factor", 1.0},
                              {"high_freq_factor", 4.0},
                              {"original_max_position_embeddings", 64}};
    config.insert("rope_scaling", scaling);
    QFile file(model.filePath(QStringLiteral("config.json")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(config).toJson());
    file.close();

    const QString sentence = QStringLiteral("The cat sat on the mat and the cat sat on it");
    const QString scaledOut = dir.filePath(QStringLiteral("scaled"));
    const Run scaled = ropeRun(model.path(), sentence, QStringLiteral("0.1"), scaledOut);
    QVERIFY2(scaled.exitCode == 0, scaled.err.constData());
    const QJsonObject json = readJsonFile(QDir(scaledOut).filePath(QStringLiteral("rope.json")));
    QCOMPARE(json["model"].toObject()["rope_scaling"].toString(), QStringLiteral("llama3"));
    const std::vector<double> f = plainFrequencies(10000.0, 8, scaling);
    const std::vector<double> unscaled = plainFrequencies(10000.0, 8);
    QCOMPARE(f[0], unscaled[0]);
    QVERIFY(f[1] < unscaled[1] && f[1] > unscaled[1] / 8);
    QVERIFY(relative(f[3], unscaled[3] / 8) <= 1e-15);
    checkAgainstPlainLoops(json, f);
    if (QTest::currentTestFailed())
        return;
    // Layer 0's q and k before the rotation do not depend on it.
    const QString plainOut = dir.filePath(QStringLiteral("plain"));
    const Run plain =
        ropeRun(folderOf(QStringLiteral("tiny-llama")), sentence, QStringLiteral("0.1"), plainOut);
    QVERIFY2(plain.exitCode == 0, plain.err.constData());
    const QJsonObject own = readJsonFile(QDir(plainOut).filePath(QStringLiteral("rope.json")));
    QCOMPARE(rowsOf(json["q"]), rowsOf(own["q"]));
    QCOMPARE(rowsOf(json["k"]), rowsOf(own["k"]));
    QVERIFY(worst(rowsOf(json["scores_with_rotation"]), rowsOf(own["scores_with_rotation"])) > 1e-6);
}

void TestRopeCommand::refused_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("head");
    QTest::addColumn<QString>("words");
    QTest::newRow("GPT-2 has no RoPE") << QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2")
                                       << QStringLiteral("0.0") << QStringLiteral("learned positions");
    QTest::newRow("layer out of range") << folderOf(QStringLiteral("tiny-llama")) << QStringLiteral("2.0")
                                        << QStringLiteral("--rope 2.0: layer 2 does not exist");
    QTest::newRow("head out of range") << folderOf(QStringLiteral("tiny-llama")) << QStringLiteral("1.4")
                                       << QStringLiteral("--rope 1.4: head 4 does not exist");
    QTest::newRow("not L.H") << folderOf(QStringLiteral("tiny-llama")) << QStringLiteral("1")
                             << QStringLiteral("--rope must be one head as LAYER.HEAD");
}

void TestRopeCommand::refused()
{
    QFETCH(QString, model);
    QFETCH(QString, head);
    QFETCH(QString, words);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out"));
    checkRefused(ropeRun(model, QStringLiteral("The cat"), head, out), out, qPrintable(words));
}

QTEST_GUILESS_MAIN(TestRopeCommand)
#include "tst_ropecommand.moc"
