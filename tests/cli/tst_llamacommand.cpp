// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab --model DIR on the Llama family's reference folders
// (tests/data/llama/tiny-llama: F32, 4 query / 2 key/value heads;
// tiny-qwen3: BF16, head_dim 16, q/k norm, Qwen3's own tokenizer), run as a
// user runs it: the GPT-2 contract unchanged (model_attention.json), each
// sentence's text tokenised to the reference ids, every head's kv_head,
// raw scores and weights and the ten most likely next tokens within issue
// 38's bounds; --scale none against the reference's unscaled top ten; the
// model object's new keys; a folder without tokenizer.json exits 2 with one
// line and writes nothing.

#include "runapp.h"
#include "testdata.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

namespace {

using apptest::readJsonFile;
using apptest::Run;
using apptest::runApp;

constexpr double kWeightTolerance = 1e-5;  // absolute
constexpr double kRelativeTolerance = 1e-4;

QString folderOf(const QString& name)
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/") + name;
}

Run exportModel(const QString& model, const QString& sentence, const QTemporaryDir& dir,
                const QStringList& more = {})
{
    return runApp(QStringList{"--model", model, "--sentence", sentence, "--export-dir",
                              dir.filePath(QStringLiteral("out")), "--format", "json"}
                  + more);
}

double relative(double a, double b)
{
    return std::abs(a - b) / std::max(std::abs(b), 1e-3);
}

void compareTop(const QJsonArray& next, const QJsonArray& want)
{
    QCOMPARE(int(next.size()), 10);
    QCOMPARE(int(want.size()), 10);
    for (int k = 0; k < 10; ++k) {
        const QJsonObject got = next[k].toObject(), ref = want[k].toObject();
        QCOMPARE(got["id"].toInt(), ref["id"].toInt());
        QVERIFY(relative(got["logit"].toDouble(), ref["logit"].toDouble()) <= kRelativeTolerance);
    }
}

}  // namespace

class TestLlamaCommand : public QObject {
    Q_OBJECT

private slots:
    void reference_data();
    void reference();
    void scaleNone_data();
    void scaleNone();
    void noTokenizer();
};

void TestLlamaCommand::reference_data()
{
    QTest::addColumn<QString>("checkpoint");
    QTest::addColumn<int>("index");
    for (const QString& checkpoint : {QStringLiteral("tiny-llama"), QStringLiteral("tiny-qwen3")})
        for (int i = 0; i < 5; ++i)
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(checkpoint).arg(i))) << checkpoint << i;
}

void TestLlamaCommand::reference()
{
    QFETCH(QString, checkpoint);
    QFETCH(int, index);
    const QJsonObject ref = testdata::readJson(QStringLiteral("llama/%1/reference.json").arg(checkpoint));
    const QJsonObject config = ref["config"].toObject();
    const QJsonObject c = ref["cases"].toArray()[index].toObject();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Run run = exportModel(folderOf(checkpoint), c["sentence"].toString(), dir);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    const QJsonObject json = readJsonFile(dir.filePath(QStringLiteral("out/model_attention.json")));

    const QJsonObject model = json["model"].toObject();
    QCOMPARE(model["model_type"].toString(), config["model_type"].toString());
    QCOMPARE(model["n_layer"].toInt(), config["num_hidden_layers"].toInt());
    QCOMPARE(model["n_head"].toInt(), config["num_attention_heads"].toInt());
    QCOMPARE(model["num_key_value_heads"].toInt(), config["num_key_value_heads"].toInt());
    QCOMPARE(model["head_dim"].toInt(), config.contains("head_dim") ? config["head_dim"].toInt() : 8);
    QCOMPARE(model["n_embd"].toInt(), config["hidden_size"].toInt());
    QCOMPARE(model["vocab_size"].toInt(), config["vocab_size"].toInt());
    QCOMPARE(model["rope_theta"].toDouble(), config["rope_theta"].toDouble());
    QVERIFY(model["rope_scaling"].isNull());
    QVERIFY(model["sliding_window"].isNull());
    QCOMPARE(model["dtype"].toString(), checkpoint == QLatin1String("tiny-llama") ? "F32" : "BF16");
    QCOMPARE(json["token_ids"].toArray(), c["token_ids"].toArray());

    const QJsonArray layers = json["layers"].toArray();
    const QJsonArray refLayers = c["layers"].toArray();
    QCOMPARE(layers.size(), refLayers.size());
    for (int l = 0; l < layers.size(); ++l) {
        const QJsonArray heads = layers[l].toObject()["heads"].toArray();
        const QJsonArray refHeads = refLayers[l].toObject()["heads"].toArray();
        QCOMPARE(heads.size(), refHeads.size());
        for (int h = 0; h < heads.size(); ++h) {
            const QJsonObject head = heads[h].toObject(), want = refHeads[h].toObject();
            QCOMPARE(head["kv_head"].toInt(-1), want["kv_head"].toInt());
            const QJsonArray scores = head["scores"].toArray(), refScores = want["scores"].toArray();
            const QJsonArray weights = head["weights"].toArray(), refWeights = want["weights"].toArray();
            QCOMPARE(scores.size(), refScores.size());
            double worstScore = 0, worstWeight = 0;
            for (int i = 0; i < scores.size(); ++i)
                for (int j = 0; j < scores.size(); ++j) {
                    const QJsonValue s = scores[i].toArray()[j], r = refScores[i].toArray()[j];
                    QCOMPARE(s.isNull(), r.isNull());
                    if (!s.isNull())
                        worstScore = std::max(worstScore, relative(s.toDouble(), r.toDouble()));
                    worstWeight = std::max(worstWeight, std::abs(weights[i].toArray()[j].toDouble()
                                                                 - refWeights[i].toArray()[j].toDouble()));
                }
            QVERIFY2(worstScore <= kRelativeTolerance, qPrintable(QString::number(worstScore)));
            QVERIFY2(worstWeight <= kWeightTolerance, qPrintable(QString::number(worstWeight)));
        }
    }
    compareTop(json["next_token"].toArray(), c["top10"].toArray());
}

void TestLlamaCommand::scaleNone_data()
{
    QTest::addColumn<QString>("checkpoint");
    QTest::newRow("tiny-llama") << QStringLiteral("tiny-llama");
    QTest::newRow("tiny-qwen3") << QStringLiteral("tiny-qwen3");
}

void TestLlamaCommand::scaleNone()
{
    QFETCH(QString, checkpoint);
    const QJsonObject ref = testdata::readJson(QStringLiteral("llama/%1/reference.json").arg(checkpoint));
    QTemporaryDir dir;
    const Run run =
        exportModel(folderOf(checkpoint), ref["cases"].toArray()[0].toObject()["sentence"].toString(), dir,
                    {"--scale", "none"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath(QStringLiteral("out/model_attention.json")));
    QCOMPARE(json["scale"].toObject()["mode"].toString(), QStringLiteral("none"));
    compareTop(json["next_token"].toArray(), ref["unscaled_first_sentence_top10"].toArray());
}

void TestLlamaCommand::noTokenizer()
{
    QTemporaryDir dir;
    const QDir model(dir.filePath(QStringLiteral("model")));
    QVERIFY(QDir().mkpath(model.path()));
    for (const char* name : {"config.json", "model.safetensors"})
        QVERIFY(QFile::copy(QDir(folderOf(QStringLiteral("tiny-llama"))).filePath(QLatin1String(name)),
                            model.filePath(QLatin1String(name))));
    const Run run = exportModel(model.path(), QStringLiteral("Jane"), dir);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.startsWith("attention-lab: ") && run.err.count('\n') == 1, run.err.constData());
    QVERIFY2(run.err.contains("tokenizer.json is missing"), run.err.constData());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("out/model_attention.json"))));
}

QTEST_GUILESS_MAIN(TestLlamaCommand)
#include "tst_llamacommand.moc"
