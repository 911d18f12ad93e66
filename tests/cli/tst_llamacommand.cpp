// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab --model DIR on the Llama family's reference folders
// (tests/data/llama/tiny-llama: F32, 4 query / 2 key/value heads;
// tiny-qwen3: BF16, head_dim 16, q/k norm, Qwen3's own tokenizer), run as a
// user runs it: the GPT-2 contract unchanged (model_attention.json), each
// sentence's text tokenised to the reference ids, every head's kv_head,
// raw scores and weights and the ten most likely next tokens within issue
// 38's bounds, and its score variance, largest weight and entropy against
// plain loops over the reference's scores and weights; --scale none against the reference's unscaled top ten;
// the model object's new keys; a folder without tokenizer.json exits 2 with one line and writes nothing.

#include "llama.h"
#include "modelfamilies.h"
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

// The d_k lab's readouts written again: the population variance of the
// visible raw scores (and of them / divisor), the mean over the rows of the
// largest weight and of -sum w ln w.
struct Readouts {
    double variance = 0, scaledVariance = 0, maxWeight = 0, entropy = 0;
};

Readouts plainReadouts(const QJsonArray& scores, const QJsonArray& weights, double divisor)
{
    Readouts r;
    double sum = 0, count = 0;
    for (const QJsonValue& row : scores)
        for (const QJsonValue& s : row.toArray())
            if (!s.isNull()) {
                sum += s.toDouble();
                ++count;
            }
    const double mean = sum / count;
    for (const QJsonValue& row : scores)
        for (const QJsonValue& s : row.toArray())
            if (!s.isNull())
                r.variance += (s.toDouble() - mean) * (s.toDouble() - mean) / count;
    r.scaledVariance = r.variance / (divisor * divisor);
    for (const QJsonValue& row : weights) {
        double top = 0, h = 0;
        for (const QJsonValue& w : row.toArray()) {
            top = std::max(top, w.toDouble());
            if (w.toDouble() > 0)
                h -= w.toDouble() * std::log(w.toDouble());
        }
        r.maxWeight += top / double(weights.size());
        r.entropy += h / double(weights.size());
    }
    return r;
}

double tensorAt(const attn::FloatTensor& t, int r, int c)
{
    return double(t.data[std::size_t(r) * std::size_t(t.cols) + std::size_t(c)]);
}

// Layer 0 head `head`'s weights written again as plain float64 loops from
// the checkpoint's stored numbers, without q_norm and k_norm: RMSNorm of the
// embeddings, the head's q and its key/value head's k, rotate_half RoPE by
// position, causal softmax of q.k / sqrt(head_dim).
std::vector<std::vector<double>> plainLayer0WeightsWithoutQkNorm(const attn::LlamaWeights& w,
                                                                 const std::vector<int>& ids, int head)
{
    const attn::LlamaConfig& c = w.config;
    const int n = int(ids.size()), hd = c.headDim, half = hd / 2, kv = head / (c.heads / c.kvHeads);
    const attn::LlamaBlock& b = w.blocks[0];
    std::vector<std::vector<double>> q(static_cast<std::size_t>(n)), k(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        std::vector<double> a(static_cast<std::size_t>(c.width));
        double ss = 0;
        for (int j = 0; j < c.width; ++j) {
            a[std::size_t(j)] = tensorAt(w.embed, ids[std::size_t(i)], j);
            ss += a[std::size_t(j)] * a[std::size_t(j)];
        }
        const double inv = 1.0 / std::sqrt(ss / c.width + c.rmsNormEps);
        for (int j = 0; j < c.width; ++j)
            a[std::size_t(j)] = tensorAt(b.inputNorm, 0, j) * (a[std::size_t(j)] * inv);
        for (const bool isQ : {true, false}) {
            const attn::FloatTensor& W = isQ ? b.q : b.k;
            const attn::FloatTensor& bias = isQ ? b.qBias : b.kBias;
            const int row0 = (isQ ? head : kv) * hd;
            std::vector<double> x(static_cast<std::size_t>(hd));
            for (int d = 0; d < hd; ++d) {
                double s = bias.empty() ? 0.0 : tensorAt(bias, 0, row0 + d);
                for (int j = 0; j < c.width; ++j)
                    s += a[std::size_t(j)] * tensorAt(W, row0 + d, j);
                x[std::size_t(d)] = s;
            }
            std::vector<double> r(static_cast<std::size_t>(hd));
            for (int d = 0; d < half; ++d) {
                const double angle = i * std::pow(c.ropeTheta, -2.0 * d / hd);
                r[std::size_t(d)] =
                    x[std::size_t(d)] * std::cos(angle) - x[std::size_t(d + half)] * std::sin(angle);
                r[std::size_t(d + half)] =
                    x[std::size_t(d + half)] * std::cos(angle) + x[std::size_t(d)] * std::sin(angle);
            }
            (isQ ? q : k)[std::size_t(i)] = r;
        }
    }
    std::vector<std::vector<double>> weights(std::size_t(n), std::vector<double>(std::size_t(n), 0.0));
    for (int i = 0; i < n; ++i) {
        std::vector<double> s(static_cast<std::size_t>(i + 1));
        double top = -INFINITY, sum = 0;
        for (int j = 0; j <= i; ++j) {
            double dot = 0;
            for (int d = 0; d < hd; ++d)
                dot += q[std::size_t(i)][std::size_t(d)] * k[std::size_t(j)][std::size_t(d)];
            s[std::size_t(j)] = dot / std::sqrt(double(hd));
            top = std::max(top, s[std::size_t(j)]);
        }
        for (int j = 0; j <= i; ++j)
            sum += weights[std::size_t(i)][std::size_t(j)] = std::exp(s[std::size_t(j)] - top);
        for (int j = 0; j <= i; ++j)
            weights[std::size_t(i)][std::size_t(j)] /= sum;
    }
    return weights;
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
    void noQkNorm();
    void noQkNormWithoutQkNorm();
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
            // How the head keeps its scores in range, against plain loops
            // over the reference's own scores and weights.
            const Readouts plain = plainReadouts(refScores, refWeights, head["divisor"].toDouble());
            const QString where = QStringLiteral("layer %1 head %2 ").arg(l).arg(h);
            QVERIFY2(relative(head["score_variance"].toDouble(), plain.variance) <= 1e-3,
                     qPrintable(where + "score_variance"));
            QVERIFY2(relative(head["scaled_score_variance"].toDouble(), plain.scaledVariance) <= 1e-3,
                     qPrintable(where + "scaled_score_variance"));
            QVERIFY2(std::abs(head["mean_max_weight"].toDouble() - plain.maxWeight) <= kWeightTolerance,
                     qPrintable(where + "mean_max_weight"));
            QVERIFY2(std::abs(head["mean_entropy"].toDouble() - plain.entropy) <= 1e-4,
                     qPrintable(where + "mean_entropy"));
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

void TestLlamaCommand::noQkNorm()
{
    const QJsonObject ref = testdata::readJson(QStringLiteral("llama/tiny-qwen3/reference.json"));
    const QJsonObject c = ref["cases"].toArray()[0].toObject();
    QTemporaryDir dir;
    const Run run =
        exportModel(folderOf(QStringLiteral("tiny-qwen3")), c["sentence"].toString(), dir, {"--no-qk-norm"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath(QStringLiteral("out/model_attention.json")));
    QVERIFY(json["model"].toObject()["qk_norm"].toBool());
    QVERIFY(json["qk_norm_removed"].toBool());
    QCOMPARE(json["token_ids"].toArray(), c["token_ids"].toArray());

    const attn::Expected<attnlab::ModelFolder> folder = attnlab::readModelFolder(folderOf("tiny-qwen3"));
    QVERIFY(folder.ok());
    const auto* llama = dynamic_cast<const attn::LlamaDecoderModel*>(folder->decoder.get());
    QVERIFY(llama);
    std::vector<int> ids;
    for (const QJsonValue& id : c["token_ids"].toArray())
        ids.push_back(id.toInt());
    for (int head = 0; head < llama->config().heads; ++head) {
        const std::vector<std::vector<double>> want =
            plainLayer0WeightsWithoutQkNorm(llama->weights(), ids, head);
        const auto headWeights = [head](const QJsonArray& layers) {
            return layers.at(0).toObject()["heads"].toArray().at(head).toObject()["weights"].toArray();
        };
        const QJsonArray got = headWeights(json["layers"].toArray());
        const QJsonArray normed = headWeights(c["layers"].toArray());
        double worst = 0, change = 0;
        for (int i = 0; i < int(ids.size()); ++i)
            for (int j = 0; j < int(ids.size()); ++j) {
                const double w = got[i].toArray()[j].toDouble();
                worst = std::max(worst, std::abs(w - want[std::size_t(i)][std::size_t(j)]));
                change = std::max(change, std::abs(w - normed[i].toArray()[j].toDouble()));
            }
        QVERIFY2(worst <= 1e-10, qPrintable(QStringLiteral("head %1: %2").arg(head).arg(worst)));
        // Without the norm the weights are not the model's own.
        QVERIFY2(change > 1e-3, qPrintable(QStringLiteral("head %1 unchanged: %2").arg(head).arg(change)));
    }
}

void TestLlamaCommand::noQkNormWithoutQkNorm()
{
    QTemporaryDir dir;
    const Run run =
        exportModel(folderOf(QStringLiteral("tiny-llama")), QStringLiteral("Jane"), dir, {"--no-qk-norm"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.startsWith("attention-lab: ") && run.err.count('\n') == 1, run.err.constData());
    QVERIFY2(run.err.contains("no QK-norm"), run.err.constData());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("out/model_attention.json"))));
    // The tiny Llama's own file says it has none and none was removed.
    const Run plain = exportModel(folderOf(QStringLiteral("tiny-llama")), QStringLiteral("Jane"), dir);
    QVERIFY2(plain.exitCode == 0, plain.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath(QStringLiteral("out/model_attention.json")));
    QVERIFY(json["model"].toObject().contains("qk_norm"));
    QVERIFY(!json["model"].toObject()["qk_norm"].toBool());
    QVERIFY(json.contains("qk_norm_removed"));
    QVERIFY(!json["qk_norm_removed"].toBool());
}

QTEST_GUILESS_MAIN(TestLlamaCommand)
#include "tst_llamacommand.moc"
