// SPDX-License-Identifier: GPL-3.0-or-later
// The head lab's options through the real program (QProcess) on the
// tiny-gpt2 reference checkpoint: head_scores.json parsed and held to the
// core's numbers (core/head_scores.h over readModelFolder's model, the
// doubles exactly) and to plain loops over reference.json's NumPy weights
// (1e-12); --ablate's next tokens are the core's ablated and intact
// passes'; --probe's tokens are the documented draw and its losses the
// core's; the options together with --scale and --temperature in one run;
// bad values exit 2 with one line and write nothing.

#include "gpt2cases.h"
#include "head_scores.h"
#include "lens_rollout.h"
#include "modelfamilies.h"
#include "plainheadscores.h"
#include "runapp.h"
#include "testdata.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>
#include <vector>

namespace {

using apptest::readJsonFile;
using apptest::Run;
using apptest::runApp;
using namespace plainheadscores;

QString tinyFolder()
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
}

attnlab::ModelFolder tinyModel()
{
    attn::Expected<attnlab::ModelFolder> model = attnlab::readModelFolder(tinyFolder());
    if (!model)
        qFatal("readModelFolder: %s", model.error().message.c_str());
    return std::move(model).value();
}

std::vector<int> idsOf(const QJsonArray& array)
{
    std::vector<int> ids;
    for (const QJsonValue& id : array)
        ids.push_back(id.toInt());
    return ids;
}

bool sameScore(const QJsonValue& value, const Scores& score)
{
    if (!score)
        return value.isNull();
    return value.isDouble() && value.toDouble() == *score;
}

// The file's scores are `table`'s, exactly.
void compareScores(const QJsonObject& json, const attn::HeadScoreTable& table)
{
    const QJsonArray layers = json["layers"].toArray();
    QCOMPARE(int(layers.size()), table.layers);
    for (int l = 0; l < table.layers; ++l) {
        const QJsonArray heads = layers[l].toObject()["heads"].toArray();
        QCOMPARE(int(heads.size()), table.heads);
        for (int h = 0; h < table.heads; ++h)
            for (const attn::HeadScoreKind kind : attn::kAllHeadScoreKinds)
                QVERIFY2(sameScore(heads[h].toObject()[QLatin1String(attn::headScoreName(kind))],
                                   table.at(l, h)[kind]),
                         qPrintable(QStringLiteral("%1.%2 %3").arg(l).arg(h).arg(attn::headScoreName(kind))));
    }
}

// The file's next tokens are `top`, exactly.
void compareTop(const QJsonArray& file, const std::vector<attn::TopToken>& top)
{
    QCOMPARE(int(file.size()), int(top.size()));
    for (int i = 0; i < file.size(); ++i) {
        const QJsonObject t = file[i].toObject();
        QCOMPARE(t["id"].toInt(), top[std::size_t(i)].id);
        QVERIFY(t["logit"].toDouble() == top[std::size_t(i)].logit);
        QVERIFY(t["probability"].toDouble() == top[std::size_t(i)].probability);
    }
}

bool oneErrorLine(const Run& run)
{
    return run.err.startsWith("attention-lab: ") && run.err.endsWith('\n') && run.err.count('\n') == 1;
}

}  // namespace

class TestHeadLabCommand : public QObject {
    Q_OBJECT

private slots:
    void headScores_data();
    void headScores();
    void ablation();
    void probeWithEverything();
    void lensAndRollout_data();
    void lensAndRollout();
    void compare();
    void refused_data();
    void refused();
    void refusedWithoutModel();
};

void TestHeadLabCommand::headScores_data()
{
    QTest::addColumn<int>("index");
    const QJsonArray cases = gpt2cases::reference(QStringLiteral("tiny-gpt2"))["cases"].toArray();
    for (int i = 0; i < cases.size(); ++i)
        QTest::addRow("%s", qPrintable(cases[i].toObject()["sentence"].toString())) << i;
}

void TestHeadLabCommand::headScores()
{
    QFETCH(int, index);
    const QJsonObject c =
        gpt2cases::reference(QStringLiteral("tiny-gpt2"))["cases"].toArray()[index].toObject();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("out"));
    const Run run = runApp({"--model", tinyFolder(), "--sentence", c["sentence"].toString(), "--head-scores",
                            "--export-dir", out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.startsWith("Wrote 2 file"), run.out.constData());
    const QJsonObject json = readJsonFile(out + QStringLiteral("/head_scores.json"));
    QCOMPARE(json["token_ids"].toArray(), c["token_ids"].toArray());
    const std::vector<int> ids = idsOf(c["token_ids"].toArray());

    // The core's numbers on the same pass.
    const attnlab::ModelFolder model = tinyModel();
    const auto pass = model.decoder->run(ids);
    QVERIFY(pass.ok());
    const auto table = attn::headScores(*model.decoder, *pass);
    QVERIFY(table.ok());
    compareScores(json, *table);

    // The plain loops over the reference's weights.
    const QJsonArray layers = json["layers"].toArray();
    const QJsonArray refLayers = c["layers"].toArray();
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) {
            const attn::Matrix a =
                testdata::toMatrix(refLayers[l].toObject()["heads"].toArray()[h].toObject()["weights"]);
            const QJsonObject head = layers[l].toObject()["heads"].toArray()[h].toObject();
            attn::HeadTypeScores fromFile;
            for (const attn::HeadScoreKind kind : attn::kAllHeadScoreKinds) {
                const QJsonValue v = head[QLatin1String(attn::headScoreName(kind))];
                const Scores s = v.isNull() ? Scores() : Scores(v.toDouble());
                switch (kind) {
                case attn::HeadScoreKind::PreviousToken: fromFile.previousToken = s; break;
                case attn::HeadScoreKind::DuplicateToken: fromFile.duplicateToken = s; break;
                case attn::HeadScoreKind::Induction: fromFile.induction = s; break;
                case attn::HeadScoreKind::FirstToken: fromFile.firstToken = s; break;
                }
            }
            compareWithPlain(fromFile, a, ids, 1e-12, QStringLiteral("layer %1 head %2").arg(l).arg(h));
            if (QTest::currentTestFailed())
                return;
        }
}

void TestHeadLabCommand::ablation()
{
    const QString sentence = QStringLiteral("Jane is going to the cinema to watch a new");
    const attnlab::ModelFolder model = tinyModel();
    const std::vector<int> ids = model.tokenizer->encodeIds(sentence);
    for (const bool mean : {false, true}) {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(QStringLiteral("out"));
        QStringList arguments{"--model",  tinyFolder(), "--sentence",   sentence,
                              "--ablate", "1.2,0.0",    "--export-dir", out};
        if (mean)
            arguments << QStringLiteral("--ablation") << QStringLiteral("mean");
        const Run run = runApp(arguments);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(run.out.startsWith("Wrote 1 file"));
        const QJsonObject json = readJsonFile(out + QStringLiteral("/model_attention.json"));
        QCOMPARE(json["ablated"].toArray(), (QJsonArray{QJsonArray{1, 2}, QJsonArray{0, 0}}));
        QCOMPARE(json["ablation"].toString(), mean ? QStringLiteral("mean") : QStringLiteral("zero"));

        attn::DecoderRunOptions options;
        options.topK = 10;
        const auto intact = model.decoder->run(ids, options);
        options.headOutput =
            attn::ablationHook({{1, 2}, {0, 0}}, mean ? attn::HeadAblation::Mean : attn::HeadAblation::Zero);
        const auto ablated = model.decoder->run(ids, options);
        QVERIFY(intact.ok() && ablated.ok());
        compareTop(json["next_token"].toArray(), ablated->top);
        compareTop(json["next_token_intact"].toArray(), intact->top);
        QVERIFY(ablated->top.front().probability != intact->top.front().probability);
        // Layer 1's maps are the ablated pass's (layer 0's ablation reaches them).
        const attn::Matrix written = testdata::toMatrix(json["layers"][1]["heads"][3]["weights"]);
        QCOMPARE(testdata::maxAbsDiff(written, ablated->layers[1].heads[3].weightsMatrix()), 0.0);
        QVERIFY(testdata::maxAbsDiff(written, intact->layers[1].heads[3].weightsMatrix()) > 0.0);
    }
}

void TestHeadLabCommand::probeWithEverything()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("out"));
    const Run run = runApp({"--model", tinyFolder(), "--probe", "repeat:12:99", "--head-scores", "--ablate",
                            "0.2", "--scale", "none", "--temperature", "2", "--export-dir", out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject scores = readJsonFile(out + QStringLiteral("/head_scores.json"));
    const QJsonObject attention = readJsonFile(out + QStringLiteral("/model_attention.json"));

    const attn::TokenIdRange range = attn::repeatProbeIdRange(50257);
    const std::vector<int> ids = attn::repeatedSpanIds(12, 99, range).value();
    QCOMPARE(idsOf(scores["token_ids"].toArray()), ids);
    QCOMPARE(idsOf(attention["token_ids"].toArray()), ids);
    QCOMPARE(scores["scale"].toObject()["mode"].toString(), QStringLiteral("none"));
    QCOMPARE(attention["temperature"].toDouble(), 2.0);
    QCOMPARE(scores["ablated"].toArray(), (QJsonArray{QJsonArray{0, 2}}));

    const attnlab::ModelFolder model = tinyModel();
    attn::DecoderRunOptions options;
    options.divisors = model.decoder->standardDivisors();
    QVERIFY(options.divisors.set(attn::ScaleMode::None, 1.0, 4));
    options.temperature = 2.0;
    options.keepHidden = true;
    options.headOutput = attn::ablationHook({{0, 2}}, attn::HeadAblation::Zero);
    const auto pass = model.decoder->run(ids, options);
    QVERIFY(pass.ok());
    compareScores(scores, attn::headScores(*model.decoder, *pass).value());
    compareTop(attention["next_token"].toArray(), pass->top);
    const attn::RepeatLoss loss =
        attn::repeatLoss(attn::nextTokenLosses(*model.decoder, *pass).value(), 12).value();
    const QJsonObject probe = scores["probe"].toObject();
    QCOMPARE(probe, attention["probe"].toObject());
    QCOMPARE(probe["span"].toInt(), 12);
    QCOMPARE(probe["seed"].toInt(), 99);
    QVERIFY(probe["loss_first"].toDouble() == loss.first);
    QVERIFY(probe["loss_second"].toDouble() == loss.second);
    // Every induction row of the probe is in its second repeat: defined everywhere.
    QVERIFY(!scores["layers"][0]["heads"][0]["induction"].isNull());
}

void TestHeadLabCommand::lensAndRollout_data()
{
    QTest::addColumn<bool>("ablate");
    QTest::addRow("intact") << false;
    QTest::addRow("head 0.3 ablated, temperature 1.5") << true;
}

void TestHeadLabCommand::lensAndRollout()
{
    QFETCH(bool, ablate);
    const QJsonObject c = gpt2cases::reference(QStringLiteral("tiny-gpt2"))["cases"].toArray()[0].toObject();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("out"));
    QStringList arguments{"--model",      tinyFolder(), "--sentence",   c["sentence"].toString(),
                          "--logit-lens", "--rollout",  "--export-dir", out};
    if (ablate)
        arguments << QStringList{"--ablate", "0.3", "--temperature", "1.5"};
    const Run run = runApp(arguments);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject lensFile = readJsonFile(out + QStringLiteral("/logit_lens.json"));
    const QJsonObject attention = readJsonFile(out + QStringLiteral("/model_attention.json"));

    const attnlab::ModelFolder model = tinyModel();
    const std::vector<int> ids = idsOf(c["token_ids"].toArray());
    attn::DecoderRunOptions options;
    options.keepHidden = true;
    if (ablate) {
        options.temperature = 1.5;
        options.headOutput = attn::ablationHook({{0, 3}}, attn::HeadAblation::Zero);
    }
    const auto pass = model.decoder->run(ids, options);
    QVERIFY(pass.ok());
    const attn::LogitLens lens = attn::logitLens(*model.decoder, *pass, 5, options.temperature).value();
    const QJsonArray layers = lensFile["layers"].toArray();
    QCOMPARE(int(layers.size()), 2);
    for (int l = 0; l < 2; ++l) {
        const QJsonArray positions = layers[l].toObject()["positions"].toArray();
        QCOMPARE(int(positions.size()), int(ids.size()));
        for (int i = 0; i < positions.size(); ++i) {
            const QJsonArray top = positions[i].toObject()["top"].toArray();
            QCOMPARE(int(top.size()), 5);
            for (int k = 0; k < 5; ++k) {
                const QJsonObject t = top[k].toObject();
                QCOMPARE(t["id"].toInt(), lens.at(l, i)[std::size_t(k)].id);
                QVERIFY(t["probability"].toDouble() == lens.at(l, i)[std::size_t(k)].probability);
                QCOMPARE(t["token"].toString(),
                         QString::fromUtf8(model.tokenizer->tokenBytes(t["id"].toInt())));
            }
        }
    }
    // The last layer's lens at the last position is the next token.
    QCOMPARE(
        layers[1].toObject()["positions"].toArray().last().toObject()["top"].toArray()[0].toObject()["id"],
        attention["next_token"].toArray()[0].toObject()["id"]);

    const attn::Matrix rollout = testdata::toMatrix(attention["rollout"]);
    QCOMPARE(testdata::maxAbsDiff(rollout, attn::attentionRollout(*model.decoder, *pass).value()), 0.0);
    for (Eigen::Index i = 0; i < rollout.rows(); ++i)
        QVERIFY(std::abs(rollout.row(i).sum() - 1.0) <= 1e-12);
    if (ablate)
        return;
    // Intact: the definition over reference.json's NumPy weights.
    const Eigen::Index n = Eigen::Index(ids.size());
    attn::Matrix expected = attn::Matrix::Identity(n, n);
    for (const QJsonValue& layer : c["layers"].toArray()) {
        attn::Matrix b = attn::Matrix::Zero(n, n);
        const QJsonArray heads = layer.toObject()["heads"].toArray();
        for (const QJsonValue& head : heads)
            b += testdata::toMatrix(head.toObject()["weights"]);
        b = 0.5 * b / double(heads.size());
        for (Eigen::Index i = 0; i < n; ++i) {
            b(i, i) += 0.5;
            b.row(i) /= b.row(i).sum();
        }
        expected = attn::Matrix(b * expected);
    }
    QVERIFY2(testdata::maxAbsDiff(rollout, expected) <= 1e-12,
             qPrintable(QString::number(testdata::maxAbsDiff(rollout, expected))));
}

// One head's weights in a model_attention.json (null above the diagonal: 0).
attn::Matrix headWeights(const QJsonObject& attention, int layer, int head)
{
    const QJsonArray rows = attention["layers"]
                                .toArray()[layer]
                                .toObject()["heads"]
                                .toArray()[head]
                                .toObject()["weights"]
                                .toArray();
    attn::Matrix m = attn::Matrix::Zero(rows.size(), rows.size());
    for (int i = 0; i < rows.size(); ++i)
        for (int j = 0; j < rows.size(); ++j)
            m(i, j) = rows[i].toArray()[j].toDouble();
    return m;
}

// --compare: map A and map B are those the same options write into
// model_attention.json on their own (a run with --scale none, with
// --ablate, over the other sentence), and difference = b - a exactly.
void TestHeadLabCommand::compare()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString sentence = QStringLiteral("The cat sat on the mat. The cat");
    const auto run = [&](const QString& name, const QStringList& more) {
        const Run r = runApp(
            QStringList{"--model", tinyFolder(), "--sentence", sentence, "--export-dir", dir.filePath(name)}
            + more);
        return r.exitCode == 0 ? std::optional<QString>(dir.filePath(name)) : std::nullopt;
    };
    const std::optional<QString> plain = run(QStringLiteral("plain"), {"--rollout"});
    const std::optional<QString> none = run(QStringLiteral("none"), {"--scale", "none"});
    const std::optional<QString> ablated = run(QStringLiteral("ablated"), {"--ablate", "0.1", "--rollout"});
    QVERIFY(plain && none && ablated);
    const QJsonObject plainJson = readJsonFile(*plain + QStringLiteral("/model_attention.json"));

    // Scaled vs unscaled, head 1.2.
    const std::optional<QString> unscaled =
        run(QStringLiteral("unscaled"),
            {"--compare", "unscaled", "--compare-map", "1.2", "--format", "json,png"});
    QVERIFY(unscaled);
    QJsonObject d = readJsonFile(*unscaled + QStringLiteral("/difference.json"));
    QCOMPARE(d["comparison"].toString(), QStringLiteral("unscaled"));
    QCOMPARE(d["map"].toString(), QStringLiteral("head"));
    QCOMPARE(d["layer"].toInt(), 1);
    QCOMPARE(d["head"].toInt(), 2);
    attn::Matrix a = testdata::toMatrix(d["a"]);
    attn::Matrix b = testdata::toMatrix(d["b"]);
    QCOMPARE(testdata::maxAbsDiff(a, headWeights(plainJson, 1, 2)), 0.0);
    QCOMPARE(testdata::maxAbsDiff(
                 b, headWeights(readJsonFile(*none + QStringLiteral("/model_attention.json")), 1, 2)),
             0.0);
    QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(d["difference"]), attn::Matrix(b - a)), 0.0);
    QVERIFY(d["largest_change"].toDouble() == (b - a).cwiseAbs().maxCoeff());
    QVERIFY(d["largest_change"].toDouble() > 1e-3);
    QVERIFY(QFileInfo::exists(*unscaled + QStringLiteral("/difference.png")));

    // Intact vs ablated, the rollout: A the intact run's, B the ablated run's.
    const std::optional<QString> both =
        run(QStringLiteral("both"), {"--compare", "ablated", "--ablate", "0.1"});
    QVERIFY(both);
    d = readJsonFile(*both + QStringLiteral("/difference.json"));
    QCOMPARE(d["map"].toString(), QStringLiteral("rollout"));
    QCOMPARE(d["ablated"].toArray()[0].toArray()[1].toInt(), 1);
    QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(d["a"]), testdata::toMatrix(plainJson["rollout"])), 0.0);
    QCOMPARE(
        testdata::maxAbsDiff(
            testdata::toMatrix(d["b"]),
            testdata::toMatrix(readJsonFile(*ablated + QStringLiteral("/model_attention.json"))["rollout"])),
        0.0);
    QVERIFY(d["largest_change"].toDouble() > 1e-6);

    // Another sentence of as many tokens, head 0.0.
    const QString other = QStringLiteral("The dog ran on the rug. The dog");
    const Run otherRun = runApp({"--model", tinyFolder(), "--sentence", other, "--export-dir",
                                 dir.filePath(QStringLiteral("other"))});
    QVERIFY2(otherRun.exitCode == 0, otherRun.err.constData());
    const QJsonObject otherJson = readJsonFile(dir.filePath(QStringLiteral("other/model_attention.json")));
    const std::optional<QString> sentences =
        run(QStringLiteral("sentences"),
            {"--compare", QStringLiteral("sentence:") + other, "--compare-map", "0.0"});
    QVERIFY(sentences);
    d = readJsonFile(*sentences + QStringLiteral("/difference.json"));
    QCOMPARE(d["other_sentence"].toString(), other);
    QCOMPARE(d["other_token_ids"].toArray(), otherJson["token_ids"].toArray());
    QCOMPARE(d["token_ids"].toArray(), plainJson["token_ids"].toArray());
    QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(d["a"]), headWeights(plainJson, 0, 0)), 0.0);
    QCOMPARE(testdata::maxAbsDiff(testdata::toMatrix(d["b"]), headWeights(otherJson, 0, 0)), 0.0);
}

void TestHeadLabCommand::refused_data()
{
    QTest::addColumn<QStringList>("arguments");  // after --model DIR
    QTest::addColumn<QString>("expected");
    const QStringList out{"--export-dir", "OUT"};
    const QStringList sentence{"--sentence", "Jane is going"};
    QTest::newRow("malformed list") << (sentence + QStringList{"--ablate", "1,2"} + out)
                                    << QStringLiteral("--ablate must be a list of LAYER.HEAD");
    QTest::newRow("empty item") << (sentence + QStringList{"--ablate", "0.1,"} + out)
                                << QStringLiteral("--ablate must be a list of LAYER.HEAD");
    QTest::newRow("negative") << (sentence + QStringList{"--ablate", "0.-1"} + out)
                              << QStringLiteral("--ablate must be a list of LAYER.HEAD");
    QTest::newRow("layer out of range")
        << (sentence + QStringList{"--ablate", "2.0"} + out)
        << QStringLiteral("--ablate 2.0: layer 2 does not exist; the model has layers 0 to 1");
    QTest::newRow("head out of range")
        << (sentence + QStringList{"--ablate", "0.1,1.4"} + out)
        << QStringLiteral("--ablate 1.4: head 4 does not exist; each layer has heads 0 to 3");
    QTest::newRow("twice") << (sentence + QStringList{"--ablate", "0.1,0.1"} + out)
                           << QStringLiteral("--ablate names head 0.1 twice");
    QTest::newRow("ablation alone") << (sentence + QStringList{"--ablation", "mean"} + out)
                                    << QStringLiteral("--ablation says how --ablate removes heads");
    QTest::newRow("ablation kind") << (sentence + QStringList{"--ablate", "0.1", "--ablation", "half"} + out)
                                   << QStringLiteral("--ablation must be zero or mean, not 'half'");
    QTest::newRow("probe and sentence")
        << (sentence + QStringList{"--probe", "repeat:5"} + out)
        << QStringLiteral("--probe runs the model over random tokens instead of --sentence");
    QTest::newRow("probe malformed") << (QStringList{"--probe", "copy:5"} + out)
                                     << QStringLiteral("--probe must be repeat:R or repeat:R:SEED");
    QTest::newRow("probe R 1") << (QStringList{"--probe", "repeat:1"} + out)
                               << QStringLiteral("--probe must be repeat:R or repeat:R:SEED");
    QTest::newRow("probe seed") << (QStringList{"--probe", "repeat:5:-3"} + out)
                                << QStringLiteral("--probe: SEED must be a whole number");
    QTest::newRow("probe beyond the positions") << (QStringList{"--probe", "repeat:33"} + out)
                                                << QStringLiteral(
                                                       "--probe repeat:33 is 66 tokens; this model takes at "
                                                       "most 64 (its config.json): give R up to 32");
    QTest::newRow("rollout without json") << (sentence + QStringList{"--rollout", "--format", "png"} + out)
                                          << QStringLiteral("--rollout adds rollout to model_attention.json");
    QTest::newRow("compare kind") << (sentence + QStringList{"--compare", "scaled"} + out)
                                  << QStringLiteral("--compare must be ablated, unscaled or sentence:TEXT");
    QTest::newRow("compare ablated alone")
        << (sentence + QStringList{"--compare", "ablated"} + out) << QStringLiteral("give --ablate L.H too");
    QTest::newRow("compare unscaled with scale")
        << (sentence + QStringList{"--compare", "unscaled", "--scale", "none"} + out)
        << QStringLiteral("drop --scale");
    QTest::newRow("compare sentence empty") << (sentence + QStringList{"--compare", "sentence:"} + out)
                                            << QStringLiteral("needs the other sentence after the colon");
    QTest::newRow("compare another length")
        << (sentence + QStringList{"--compare", "sentence:Jane is going to the cinema"} + out)
        << QStringLiteral("TEXT is 6 tokens and --sentence 3");
    QTest::newRow("compare map alone")
        << (sentence + QStringList{"--compare-map", "0.1"} + out) << QStringLiteral("give --compare too");
    QTest::newRow("compare map malformed")
        << (sentence + QStringList{"--compare", "unscaled", "--compare-map", "first"} + out)
        << QStringLiteral("--compare-map must be one head as LAYER.HEAD");
    QTest::newRow("compare map out of range")
        << (sentence + QStringList{"--compare", "unscaled", "--compare-map", "0.4"} + out)
        << QStringLiteral("--compare-map 0.4: head 4 does not exist");
    QTest::newRow("in the window") << (sentence + QStringList{"--head-scores"})
                                   << QStringLiteral("--head-scores with --model is for the export");
}

void TestHeadLabCommand::refused()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("out"));
    arguments.replaceInStrings(QStringLiteral("OUT"), out);
    const Run run = runApp(QStringList{"--model", tinyFolder()} + arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(oneErrorLine(run), run.err.constData());
    QVERIFY2(run.err.contains(expected.toUtf8()), run.err.constData());
    QVERIFY(!QFileInfo::exists(out));
}

void TestHeadLabCommand::refusedWithoutModel()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("out"));
    for (const char* option :
         {"--head-scores", "--probe", "--ablate", "--ablation", "--logit-lens", "--rollout", "--rope"}) {
        QStringList lone{QLatin1String(option)};
        if (QLatin1String(option) == QLatin1String("--probe")
            || QLatin1String(option) == QLatin1String("--rope")
            || QLatin1String(option) == QLatin1String("--ablate")
            || QLatin1String(option) == QLatin1String("--ablation"))
            lone << QStringLiteral("x");
        const Run alone = runApp(lone + QStringList{"--export-dir", out});
        QCOMPARE(alone.exitCode, 2);
        QVERIFY2(alone.err.contains("is the head lab's, over a model's heads: give it with --model DIR"),
                 alone.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }
}

QTEST_GUILESS_MAIN(TestHeadLabCommand)
#include "tst_headlabcommand.moc"
