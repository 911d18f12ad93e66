// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab --model DIR run as a user runs it (QProcess on the built
// executable): model_attention.json of both reference checkpoints
// (tests/data/gpt2/*/reference.json, a float64 NumPy forward) for every
// sentence there within issue 17's bounds; --scale none and --temperature
// checked against softmaxes computed here from the exported numbers; bad
// checkpoints and refused options exit 2 with one line and write nothing.

#include "runapp.h"
#include "gpt2cases.h"
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
#include <functional>
#include <utility>
#include <vector>

namespace {

using apptest::readJsonFile;
using apptest::Run;
using apptest::runApp;

constexpr double kWeightTolerance = 1e-5;  // absolute
constexpr double kRelativeTolerance = 1e-4;

QString checkpointDir(const QString& name)
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/") + name;
}

QString exportFile(const QTemporaryDir& dir)
{
    return dir.filePath(QStringLiteral("out/model_attention.json"));
}

Run exportModel(const QString& model, const QString& sentence, const QTemporaryDir& dir,
                const QStringList& more = {})
{
    QStringList arguments{"--model", model,          "--sentence",
                          sentence,  "--export-dir", dir.filePath(QStringLiteral("out"))};
    if (!more.contains(QStringLiteral("--format")))
        arguments << QStringLiteral("--format") << QStringLiteral("json");
    return runApp(arguments + more);
}

// |a - b| / max(|b|, 1e-3), as tst_gpt2reference compares scores.
double relative(double a, double b)
{
    return std::abs(a - b) / std::max(std::abs(b), 1e-3);
}

// A GPT-2 folder of `layers` x `heads` (n_embd = heads, head_dim 1) whose
// weights are all zero, with tiny-gpt2's tokenizer (50257 tokens) and 1024
// positions: 26 MB that the readers accept.
bool writeWideModel(const QString& folder, int layers, int heads)
{
    const qint64 e = heads, v = 50257, p = 1024;
    std::vector<std::pair<QString, std::vector<qint64>>> tensors = {
        {"wte.weight", {v, e}}, {"wpe.weight", {p, e}}, {"ln_f.weight", {e}}, {"ln_f.bias", {e}}};
    for (int i = 0; i < layers; ++i) {
        const QString h = QStringLiteral("h.%1.").arg(i);
        for (const auto& [name, shape] :
             std::vector<std::pair<const char*, std::vector<qint64>>>{{"ln_1.weight", {e}},
                                                                      {"ln_1.bias", {e}},
                                                                      {"attn.c_attn.weight", {e, 3 * e}},
                                                                      {"attn.c_attn.bias", {3 * e}},
                                                                      {"attn.c_proj.weight", {e, e}},
                                                                      {"attn.c_proj.bias", {e}},
                                                                      {"ln_2.weight", {e}},
                                                                      {"ln_2.bias", {e}},
                                                                      {"mlp.c_fc.weight", {e, 4 * e}},
                                                                      {"mlp.c_fc.bias", {4 * e}},
                                                                      {"mlp.c_proj.weight", {4 * e, e}},
                                                                      {"mlp.c_proj.bias", {e}}})
            tensors.emplace_back(h + QLatin1String(name), shape);
    }
    QJsonObject header;
    qint64 offset = 0;
    for (const auto& [name, shape] : tensors) {
        qint64 bytes = 4;
        QJsonArray dims;
        for (const qint64 d : shape) {
            bytes *= d;
            dims.append(d);
        }
        header.insert(name, QJsonObject{{"dtype", "F32"},
                                        {"shape", dims},
                                        {"data_offsets", QJsonArray{offset, offset + bytes}}});
        offset += bytes;
    }
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    json += QByteArray((8 - json.size() % 8) % 8, ' ');
    QByteArray length(8, 0);
    for (int i = 0; i < 8; ++i)
        length[i] = char((quint64(json.size()) >> (8 * i)) & 0xFF);
    QFile model(folder + "/model.safetensors");
    if (!model.open(QIODevice::WriteOnly) || model.write(length + json) != 8 + json.size()
        || !model.resize(8 + json.size() + offset))
        return false;
    model.close();
    const QJsonObject config{{"model_type", "gpt2"}, {"n_layer", layers},     {"n_head", heads},
                             {"n_embd", heads},      {"n_positions", int(p)}, {"vocab_size", int(v)}};
    QFile configFile(folder + "/config.json");
    if (!configFile.open(QIODevice::WriteOnly) || configFile.write(QJsonDocument(config).toJson()) < 0)
        return false;
    configFile.close();
    const QDir tiny(checkpointDir(QStringLiteral("tiny-gpt2")));
    return QFile::copy(tiny.filePath("vocab.json"), folder + "/vocab.json")
           && QFile::copy(tiny.filePath("merges.txt"), folder + "/merges.txt");
}

bool oneErrorLine(const Run& run)
{
    return run.err.startsWith("attention-lab: ") && run.err.endsWith('\n') && run.err.count('\n') == 1;
}

}  // namespace

class TestModelCommand : public QObject {
    Q_OBJECT

private slots:
    void reference_data();
    void reference();
    void scaleNone();
    void temperature();
    void pictures();
    void badCheckpoint_data();
    void badCheckpoint();
    void refused_data();
    void refused();
    void failureKeepsTheOldExport();
    void memoryBudget();
    void largeExportRefused();
    void help();
};

void TestModelCommand::reference_data()
{
    gpt2cases::addReferenceRows();
}

void TestModelCommand::reference()
{
    QFETCH(QString, checkpoint);
    QFETCH(int, index);
    const QJsonObject ref = testdata::readJson(QStringLiteral("gpt2/%1/reference.json").arg(checkpoint));
    const QJsonObject c = ref["cases"].toArray()[index].toObject();
    const QJsonObject config = ref["config"].toObject();
    const int nLayer = config["n_layer"].toInt();
    const int nHead = config["n_head"].toInt();

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Run run = exportModel(checkpointDir(checkpoint), c["sentence"].toString(), dir);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    QVERIFY(run.out.startsWith("Wrote 1 file"));
    const QJsonObject json = readJsonFile(exportFile(dir));

    const QJsonObject model = json["model"].toObject();
    QCOMPARE(model["model_type"].toString(), QStringLiteral("gpt2"));
    QCOMPARE(model["n_layer"].toInt(), nLayer);
    QCOMPARE(model["n_head"].toInt(), nHead);
    QCOMPARE(model["n_embd"].toInt(), config["n_embd"].toInt());
    QCOMPARE(model["vocab_size"].toInt(), config["vocab_size"].toInt());
    QCOMPARE(model["dtype"].toString(), ref["dtype"].toString());
    QCOMPARE(json["scale"].toObject()["mode"].toString(), QStringLiteral("sqrt-dk"));
    QCOMPARE(json["temperature"].toDouble(), 1.0);

    const QJsonArray ids = json["token_ids"].toArray();
    QCOMPARE(ids, c["token_ids"].toArray());
    const int n = int(ids.size());
    // Every reference sentence is cut into whole characters, so the
    // tokens' texts put together are the sentence.
    QString joined;
    for (const QJsonValue& token : json["tokens"].toArray())
        joined += token.toString();
    QCOMPARE(joined, c["sentence"].toString());

    const QJsonArray layers = json["layers"].toArray();
    const QJsonArray refLayers = c["layers"].toArray();
    QCOMPARE(int(layers.size()), nLayer);
    for (int l = 0; l < nLayer; ++l) {
        const QJsonArray heads = layers[l].toObject()["heads"].toArray();
        const QJsonArray refHeads = refLayers[l].toObject()["heads"].toArray();
        QCOMPARE(int(heads.size()), nHead);
        for (int h = 0; h < nHead; ++h) {
            const QJsonObject head = heads[h].toObject();
            const attn::Matrix refScores = testdata::toMatrix(refHeads[h].toObject()["scores"]);
            const attn::Matrix refWeights = testdata::toMatrix(refHeads[h].toObject()["weights"]);
            const QJsonArray scores = head["scores"].toArray();
            const QJsonArray weights = head["weights"].toArray();
            QCOMPARE(int(scores.size()), n);
            QCOMPARE(int(weights.size()), n);
            double worstScore = 0, worstWeight = 0;
            for (int i = 0; i < n; ++i) {
                const QJsonArray scoreRow = scores[i].toArray();
                const QJsonArray weightRow = weights[i].toArray();
                QCOMPARE(int(scoreRow.size()), n);
                QCOMPARE(int(weightRow.size()), n);
                for (int j = 0; j < n; ++j) {
                    worstWeight = std::max(worstWeight, std::abs(weightRow[j].toDouble() - refWeights(i, j)));
                    if (j > i) {
                        QVERIFY2(scoreRow[j].isNull(), "a masked score is null");
                    } else {
                        QVERIFY(scoreRow[j].isDouble());
                        worstScore = std::max(worstScore, relative(scoreRow[j].toDouble(), refScores(i, j)));
                    }
                }
            }
            QVERIFY2(
                worstWeight <= kWeightTolerance,
                qPrintable(QStringLiteral("layer %1 head %2 weights: %3").arg(l).arg(h).arg(worstWeight)));
            QVERIFY2(worstScore <= kRelativeTolerance,
                     qPrintable(QStringLiteral("layer %1 head %2 scores: %3").arg(l).arg(h).arg(worstScore)));
        }
    }

    const QJsonArray next = json["next_token"].toArray();
    const QJsonArray top5 = c["last_logits_top5"].toArray();
    QCOMPARE(int(next.size()), 10);
    double sum = 0;
    for (int k = 0; k < 10; ++k) {
        const QJsonObject t = next[k].toObject();
        sum += t["probability"].toDouble();
        QVERIFY(t["probability"].toDouble() > 0);
        if (k > 0)
            QVERIFY(t["logit"].toDouble() <= next[k - 1].toObject()["logit"].toDouble());
        if (k < 5) {
            const QJsonObject r = top5[k].toObject();
            QCOMPARE(t["id"].toInt(), r["id"].toInt());
            QVERIFY2(relative(t["logit"].toDouble(), r["logit"].toDouble()) <= kRelativeTolerance,
                     qPrintable(QStringLiteral("top logit %1").arg(k)));
        }
        // softmax: p_k / p_0 = exp(l_k - l_0), the normalisation cancelling.
        const QJsonObject first = next[0].toObject();
        const double ratio = t["probability"].toDouble() / first["probability"].toDouble();
        QVERIFY(std::abs(ratio - std::exp(t["logit"].toDouble() - first["logit"].toDouble())) <= 1e-12);
    }
    QVERIFY(sum <= 1.0 + 1e-12);
}

void TestModelCommand::scaleNone()
{
    // Without the division the weights are softmax(raw scores), causal.
    const QJsonObject ref = testdata::readJson(QStringLiteral("gpt2/tiny-gpt2/reference.json"));
    const QJsonObject c = ref["cases"].toArray()[0].toObject();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Run run = exportModel(checkpointDir(QStringLiteral("tiny-gpt2")), c["sentence"].toString(), dir,
                                {"--scale", "none"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(exportFile(dir));
    QCOMPARE(json["scale"].toObject()["mode"].toString(), QStringLiteral("none"));
    QCOMPARE(json["scale"].toObject()["divisor"].toDouble(), 1.0);

    const QJsonObject head = json["layers"].toArray()[1].toObject()["heads"].toArray()[2].toObject();
    QCOMPARE(head["divisor"].toDouble(), 1.0);
    const QJsonArray scores = head["scores"].toArray();
    const QJsonArray weights = head["weights"].toArray();
    const attn::Matrix refWeights =
        testdata::toMatrix(c["layers"].toArray()[1].toObject()["heads"].toArray()[2].toObject()["weights"]);
    const int n = int(scores.size());
    QCOMPARE(n, 10);
    double changed = 0;
    for (int i = 0; i < n; ++i) {
        const QJsonArray s = scores[i].toArray();
        double top = -INFINITY;
        for (int j = 0; j <= i; ++j)
            top = std::max(top, s[j].toDouble());
        double z = 0;
        for (int j = 0; j <= i; ++j)
            z += std::exp(s[j].toDouble() - top);
        for (int j = 0; j < n; ++j) {
            const double expected = j <= i ? std::exp(s[j].toDouble() - top) / z : 0.0;
            const double w = weights[i].toArray()[j].toDouble();
            QVERIFY2(std::abs(w - expected) <= 1e-12,
                     qPrintable(QStringLiteral("row %1 key %2").arg(i).arg(j)));
            changed = std::max(changed, std::abs(w - refWeights(i, j)));
        }
    }
    // Layer 1 sees layer 0's changed heads too: far from GPT-2's own weights.
    QVERIFY2(changed > 1e-2, qPrintable(QString::number(changed)));
}

void TestModelCommand::temperature()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Run run =
        exportModel(checkpointDir(QStringLiteral("tiny-gpt2-lmhead-f16")),
                    QStringLiteral("Life is short, eat dessert first"), dir, {"--temperature", "2.5"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(exportFile(dir));
    QCOMPARE(json["temperature"].toDouble(), 2.5);
    const QJsonArray next = json["next_token"].toArray();
    QCOMPARE(int(next.size()), 10);
    const QJsonObject first = next[0].toObject();
    for (int k = 1; k < 10; ++k) {
        const QJsonObject t = next[k].toObject();
        const double ratio = t["probability"].toDouble() / first["probability"].toDouble();
        QVERIFY(std::abs(ratio - std::exp((t["logit"].toDouble() - first["logit"].toDouble()) / 2.5))
                <= 1e-12);
    }
}

namespace {

// Pixels (every other one) whose colour `is` says.
int countPixels(const QImage& image, const std::function<bool(const QColor&)>& is)
{
    int count = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            count += is(image.pixelColor(x, y)) ? 1 : 0;
    return count;
}

}  // namespace

void TestModelCommand::pictures()
{
    // model_view, one head view per layer and next_token in every format,
    // at ModelPicturesExporter's sizes or at --size.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString model = checkpointDir(QStringLiteral("tiny-gpt2"));
    Run run = exportModel(model, QStringLiteral("Jane is going to the cinema"), dir,
                          {"--format", "json,png,svg,pdf"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.startsWith("Wrote 13 file"), run.out.constData());
    QVERIFY(QFileInfo::exists(exportFile(dir)));
    const QDir out(dir.filePath(QStringLiteral("out")));
    const QStringList stems{"model_view", "head_view_layer1", "head_view_layer2", "next_token"};
    for (const QString& stem : stems) {
        QFile svg(out.filePath(stem + QStringLiteral(".svg")));
        QVERIFY2(svg.open(QIODevice::ReadOnly), qPrintable(stem));
        QVERIFY(svg.readAll().contains("<svg"));
        QFile pdf(out.filePath(stem + QStringLiteral(".pdf")));
        QVERIFY2(pdf.open(QIODevice::ReadOnly), qPrintable(stem));
        QVERIFY(pdf.read(5) == "%PDF-");
    }
    const QImage grid(out.filePath(QStringLiteral("model_view.png")));
    QCOMPARE(grid.size(), QSize(1200, 900));
    // The weight maps' blues are there, not only the white page and the text.
    const int blues = countPixels(grid, [](const QColor& c) { return c.blue() > c.red() + 60; });
    QVERIFY2(blues > 1000, qPrintable(QString::number(blues)));
    const QImage lines(out.filePath(QStringLiteral("head_view_layer2.png")));
    QCOMPARE(lines.size(), QSize(1200, 900));
    // Heads 2 and 4's orange and red lines (Tableau 10), not only head 1's blue.
    const int warm = countPixels(lines, [](const QColor& c) { return c.red() > c.blue() + 80; });
    QVERIFY2(warm > 100, qPrintable(QString::number(warm)));
    const QImage next(out.filePath(QStringLiteral("next_token.png")));
    QCOMPARE(next.size(), QSize(1000, 620));
    // The bars in Tableau 10's blue, head 1's colour.
    const int bars = countPixels(next, [](const QColor& c) { return c == QColor(0x1f, 0x77, 0xb4); });
    QVERIFY2(bars > 1000, qPrintable(QString::number(bars)));

    QTemporaryDir sized;
    QVERIFY(sized.isValid());
    run = exportModel(model, QStringLiteral("Jane"), sized, {"--format", "png", "--size", "900x700"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    for (const QString& stem : stems)
        QCOMPARE(QImage(sized.filePath(QStringLiteral("out/") + stem + QStringLiteral(".png"))).size(),
                 QSize(900, 700));
    QVERIFY(!QFileInfo::exists(exportFile(sized)));  // png only

    // A what-if scale is named in the titles.
    QTemporaryDir none;
    QVERIFY(none.isValid());
    run = exportModel(model, QStringLiteral("Jane"), none, {"--format", "svg", "--scale", "none"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QFile svg(none.filePath(QStringLiteral("out/model_view.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("tiny-gpt2 (scale none: raw scores): attention weights"));
    // So is a what-if mask; the model's own is not.
    for (const QString& mask : {QStringLiteral("sliding:3"), QStringLiteral("causal")}) {
        QTemporaryDir masked;
        QVERIFY(masked.isValid());
        run =
            exportModel(model, QStringLiteral("Jane is going"), masked, {"--format", "svg", "--mask", mask});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile maskedSvg(masked.filePath(QStringLiteral("out/model_view.svg")));
        QVERIFY(maskedSvg.open(QIODevice::ReadOnly));
        const QByteArray title = mask == QLatin1String("causal")
                                     ? QByteArray("tiny-gpt2: attention weights")
                                     : QByteArray("tiny-gpt2 (mask sliding:3): attention weights");
        QVERIFY2(maskedSvg.readAll().contains(title), title.constData());
    }

    // --caption: a line under every picture's title (the manual's picture says "random weights").
    QTemporaryDir captioned;
    QVERIFY(captioned.isValid());
    run = exportModel(model, QStringLiteral("Jane"), captioned,
                      {"--format", "svg", "--caption", "Random weights: not a trained model"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    for (const QString& stem : stems) {
        QFile file(captioned.filePath(QStringLiteral("out/") + stem + QStringLiteral(".svg")));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(stem));
        QVERIFY2(file.readAll().contains("Random weights: not a trained model"), qPrintable(stem));
    }
    const Run alone = runApp({"--caption", "x", "--export-dir", captioned.filePath(QStringLiteral("other"))});
    QCOMPARE(alone.exitCode, 2);
    QVERIFY2(alone.err.contains("--caption labels the pictures of --model DIR"), alone.err.constData());
    QVERIFY(!QFileInfo::exists(captioned.filePath(QStringLiteral("other"))));
    // --temperature is the model's next-token softmax; without a model it is refused, not ignored.
    const Run lone =
        runApp({"--temperature", "2", "--export-dir", captioned.filePath(QStringLiteral("hot"))});
    QCOMPARE(lone.exitCode, 2);
    QVERIFY2(lone.err.contains("--temperature divides the next-token logits"), lone.err.constData());
    QVERIFY(!QFileInfo::exists(captioned.filePath(QStringLiteral("hot"))));
}

using Mutation = std::function<bool(const QDir&)>;
Q_DECLARE_METATYPE(Mutation)

namespace {
bool rewrite(const QString& path, const std::function<QByteArray(QByteArray)>& change)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray bytes = change(file.readAll());
    file.close();
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

Mutation replaceInConfig(const char* from, const char* to)
{
    return [from, to](const QDir& d) {
        QFile file(d.filePath(QStringLiteral("config.json")));
        if (!file.open(QIODevice::ReadOnly) || !file.readAll().contains(from))
            return false;  // the reference config is not as the case expects
        file.close();
        return rewrite(file.fileName(), [from, to](QByteArray b) { return b.replace(from, to); });
    };
}

// The same number of bytes replaced inside model.safetensors's JSON header
// (its first 2528 bytes), so the header length still holds.
Mutation replaceInHeader(const char* from, const char* to)
{
    return [from, to](const QDir& d) {
        if (qstrlen(from) != qstrlen(to))
            return false;
        return rewrite(d.filePath(QStringLiteral("model.safetensors")), [from, to](QByteArray b) {
            const qsizetype at = b.indexOf(from);
            return at >= 8 && at < 2536 ? b.replace(at, qstrlen(from), to) : QByteArray();
        });
    };
}

}  // namespace

void TestModelCommand::badCheckpoint_data()
{
    QTest::addColumn<Mutation>("mutate");
    QTest::addColumn<QStringList>("expected");  // parts of the message
    QTest::newRow("truncated model.safetensors") << Mutation([](const QDir& d) {
        return QFile::resize(d.filePath(QStringLiteral("model.safetensors")), 100000);
    }) << QStringList{"model.safetensors", "wte.weight", "truncated"};
    QTest::newRow("offsets that lie") << replaceInHeader("[3216448,3220544]", "[3216448,3220548]")
                                      << QStringList{"model.safetensors", "wpe.weight", "4096 bytes", "4100"};
    QTest::newRow("a shape that lies")
        << replaceInHeader("\"shape\":[64,16]", "\"shape\":[16,64]")
        << QStringList{"model.safetensors", "wpe.weight", "[16, 64]", "[64, 16]"};
    QTest::newRow("a missing tensor") << replaceInHeader("\"h.0.ln_1.bias\"", "\"h.0.ln_1.bia_\"")
                                      << QStringList{"model.safetensors", "h.0.ln_1.bias is missing"};
    QTest::newRow("dtype I32") << replaceInHeader("\"wte.weight\":{\"dtype\":\"F32\"",
                                                  "\"wte.weight\":{\"dtype\":\"I32\"")
                               << QStringList{"model.safetensors", "wte.weight", "I32 is not supported"};
    QTest::newRow("no merges.txt") << Mutation([](const QDir& d) {
        return QFile::remove(d.filePath(QStringLiteral("merges.txt")));
    }) << QStringList{"merges.txt", "No such file"};
    QTest::newRow("vocab.json cut short") << Mutation([](const QDir& d) {
        return rewrite(d.filePath(QStringLiteral("vocab.json")),
                       [](const QByteArray&) { return QByteArray("{\"a\": 1,"); });
    }) << QStringList{"vocab.json", "ends early"};
    QTest::newRow("model_type gemma")
        << replaceInConfig("\"model_type\": \"gpt2\"", "\"model_type\": \"gemma\"")
        << QStringList{"config.json", "gemma", "supported: gpt2, llama"};
    QTest::newRow("model_type llama on GPT-2's config")
        << replaceInConfig("\"model_type\": \"gpt2\"", "\"model_type\": \"llama\"")
        << QStringList{"config.json", "architectures", "GPT2LMHeadModel", "ForCausalLM"};
    QTest::newRow("no model_type") << replaceInConfig("\"model_type\": \"gpt2\",", "")
                                   << QStringList{"config.json", "no model_type", "supported: gpt2"};
    QTest::newRow("n_head 3") << replaceInConfig("\"n_head\": 4", "\"n_head\": 3")
                              << QStringList{"config.json", "n_head 3", "n_embd 16"};
    QTest::newRow("n_embd 32 against tensors of 16")
        << replaceInConfig("\"n_embd\": 16", "\"n_embd\": 32")
        << QStringList{"model.safetensors", "wte.weight", "[50257, 16]", "[50257, 32]"};
}

void TestModelCommand::badCheckpoint()
{
    QFETCH(Mutation, mutate);
    QFETCH(QStringList, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QDir model(dir.filePath(QStringLiteral("model")));
    QVERIFY(QDir().mkpath(model.path()));
    const QDir source(checkpointDir(QStringLiteral("tiny-gpt2")));
    for (const char* name : {"config.json", "model.safetensors", "vocab.json", "merges.txt"})
        QVERIFY(QFile::copy(source.filePath(QLatin1String(name)), model.filePath(QLatin1String(name))));
    QVERIFY(mutate(model));

    const Run run = exportModel(model.path(), QStringLiteral("Jane is going to the cinema"), dir);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(oneErrorLine(run), run.err.constData());
    QVERIFY(run.out.isEmpty());
    for (const QString& part : expected)
        QVERIFY2(run.err.contains(part.toUtf8()), qPrintable(QStringLiteral("%1 in %2").arg(part, run.err)));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("out"))));
}

void TestModelCommand::refused_data()
{
    QTest::addColumn<QStringList>("arguments");  // after --model and --sentence
    QTest::addColumn<QString>("expected");
    const QStringList out{"--export-dir", "OUT"};
    QTest::newRow("--heads") << (QStringList{"--heads", "2"} + out)
                             << QStringLiteral("--model cannot be combined with --heads");
    QTest::newRow("--x") << (QStringList{"--x", "x.npy"} + out)
                         << QStringLiteral("--model cannot be combined with --x");
    QTest::newRow("--wq") << (QStringList{"--wq", "wq.npy"} + out)
                          << QStringLiteral("--model cannot be combined with --wq");
    QTest::newRow("--preset") << (QStringList{"--preset", "cinema"} + out)
                              << QStringLiteral("--model cannot be combined with --preset");
    QTest::newRow("--open") << (QStringList{"--open", "lab.attnlab"} + out)
                            << QStringLiteral("--model cannot be combined with --open");
    QTest::newRow("--d-k") << (QStringList{"--d-k", "8"} + out)
                           << QStringLiteral("--model cannot be combined with --d-k");
    QTest::newRow("caption without pictures")
        << (QStringList{"--format", "json", "--caption", "random"} + out)
        << QStringLiteral("--caption labels the pictures: give --format png, svg or pdf");
    QTest::newRow("empty caption") << (QStringList{"--format", "svg", "--caption", " "} + out)
                                   << QStringLiteral("--caption is empty");
    QTest::newRow("caption in the window")
        << QStringList{"--caption", "random"} << QStringLiteral("--caption with --model is for the export");
    QTest::newRow("csv") << (QStringList{"--format", "json,csv"} + out)
                         << QStringLiteral("--model writes json");
    QTest::newRow("scale out of range")
        << (QStringList{"--scale", "1e9"} + out) << QStringLiteral("--scale:");
    QTest::newRow("temperature 0") << (QStringList{"--temperature", "0"} + out)
                                   << QStringLiteral("--temperature must be a number from 0.001");
    // Without --export-dir the window opens the model (tst_commandline); the
    // export's own options are refused there.
    QTest::newRow("format without export dir")
        << QStringList{"--format", "png"} << QStringLiteral("--format with --model is for the export");
    // 65 tokens: "a" and 64 times " a".
    QTest::newRow("too long")
        << (QStringList{"--sentence", QStringLiteral("a") + QStringLiteral(" a").repeated(64)} + out)
        << QStringLiteral("--sentence is 65 tokens; this model takes at most 64");
}

void TestModelCommand::refused()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("out"));
    arguments.replaceInStrings(QStringLiteral("OUT"), out);
    if (!arguments.contains(QStringLiteral("--sentence")))
        arguments << QStringLiteral("--sentence") << QStringLiteral("Jane is going");
    const Run run = runApp(QStringList{"--model", checkpointDir(QStringLiteral("tiny-gpt2"))} + arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(oneErrorLine(run), run.err.constData());
    QVERIFY2(run.err.contains(expected.toUtf8()), run.err.constData());
    QVERIFY(!QFileInfo::exists(out));
}

void TestModelCommand::failureKeepsTheOldExport()
{
    // A run that fails after a good one leaves the good one's file as it was.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString model = checkpointDir(QStringLiteral("tiny-gpt2"));
    QCOMPARE(exportModel(model, QStringLiteral("Jane is going"), dir).exitCode, 0);
    QFile file(exportFile(dir));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray before = file.readAll();
    file.close();
    const Run run = exportModel(model, QStringLiteral("a") + QStringLiteral(" a").repeated(64), dir);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), before);
    QCOMPARE(QDir(dir.filePath(QStringLiteral("out")))
                 .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{"model_attention.json"});
}

// A folder the readers accept whose pass cannot be kept in memory (64
// layers x 64 heads at 1,000 tokens: 31375 MiB of maps) is refused before
// the pass with the window's budget and message (modelmapbudget.h), at once,
// instead of ending in std::bad_alloc.
void TestModelCommand::memoryBudget()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeWideModel(dir.path(), 64, 64));
    const QString out = dir.filePath(QStringLiteral("out"));
    const QString sentence = QStringLiteral("a") + QStringLiteral(" a").repeated(999);
    for (const char* format : {"json", "png"}) {
        const Run run = runApp({"--model", dir.path(), "--sentence", sentence, "--export-dir", out,
                                "--format", QLatin1String(format)});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(oneErrorLine(run), run.err.constData());
        QVERIFY2(
            run.err.contains("--sentence: The sentence is 1000 GPT-2 tokens; every head's maps would take "
                             "31375 MiB, more than the 1024 MiB a pass keeps. Shorten it to see its "
                             "attention."),
            run.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }
}

// An export of gigabytes is refused before the pass, naming its size and
// how to narrow it, unless --allow-large-export asks for it: 64 x 64 heads
// at 150 tokens keep 722 MiB of maps (within the budget) but would write
// about 2.4 GB of JSON.
void TestModelCommand::largeExportRefused()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeWideModel(dir.path(), 64, 64));
    const QString out = dir.filePath(QStringLiteral("out"));
    const QString sentence = QStringLiteral("a") + QStringLiteral(" a").repeated(149);
    const Run run = runApp({"--model", dir.path(), "--sentence", sentence, "--export-dir", out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(oneErrorLine(run), run.err.constData());
    QVERIFY2(
        run.err.contains("--format json would write model_attention.json of about 2.4 GB (4096 heads' "
                         "scores and weights over 150 tokens), more than the 1 GB written unasked; "
                         "shorten --sentence, write only the pictures (--format png, svg or pdf), or give "
                         "--allow-large-export to write it"),
        run.err.constData());
    QVERIFY(!QFileInfo::exists(out));

    // The flag is accepted with --model (a small export is written as
    // without it) and refused without.
    QTemporaryDir small;
    const Run allowed = exportModel(checkpointDir(QStringLiteral("tiny-gpt2")),
                                    QStringLiteral("Jane is going"), small, {"--allow-large-export"});
    QVERIFY2(allowed.exitCode == 0, allowed.err.constData());
    QVERIFY(QFileInfo::exists(exportFile(small)));
    const Run alone = runApp({"--allow-large-export", "--export-dir", out});
    QCOMPARE(alone.exitCode, 2);
    QVERIFY2(alone.err.contains("--allow-large-export lets --model DIR --export-dir OUT write"),
             alone.err.constData());
}

void TestModelCommand::help()
{
    const Run run = runApp({"--help"});
    QCOMPARE(run.exitCode, 0);
    for (const char* text :
         {"--model DIR", "--temperature T", "--caption TEXT", "model_attention.json", "head_view_layerN"})
        QVERIFY2(run.out.contains(text), text);
}

QTEST_GUILESS_MAIN(TestModelCommand)
#include "tst_modelcommand.moc"
