// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab --model DIR --sentence TEXT --generate N (issue 40) through
// the real program on the reference folders (tests/data/gpt2: tiny-gpt2 F32
// and tiny-gpt2-lmhead-f16; tests/data/llama: tiny-llama, 4 query heads
// sharing 2 key/value heads, and tiny-qwen3, q/k norms and head_dim 16):
// greedy generation.json against repeated whole passes of the model read
// again (the argmax of each, the token appended), each probability within
// 1e-12 relative, the cache's bytes worked by hand from the README's
// shapes; --sample with a seed against the same draw written again from
// std::mt19937 over whole passes, reproducible, and --top-k 1 equal to
// greedy; --ablate's tokens against whole ablated passes; bad values exit
// 2 with one line and write nothing.

#include "decoder_model.h"
#include "modelfamilies.h"
#include "runapp.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

using apptest::readJsonFile;
using apptest::Run;
using apptest::runApp;

constexpr double kRelative = 1e-12;
const QString kSentence = QStringLiteral("The cat sat on the mat because");

QString folderOf(const QString& name)
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/") + name;
}

attnlab::ModelFolder readFolder(const QString& name)
{
    attn::Expected<attnlab::ModelFolder> model = attnlab::readModelFolder(folderOf(name));
    if (!model)
        qFatal("readModelFolder: %s", model.error().message.c_str());
    return std::move(model).value();
}

Run generate(const QString& model, const QTemporaryDir& dir, const QString& out, const QStringList& more)
{
    return runApp(
        QStringList{"--model", folderOf(model), "--sentence", kSentence, "--export-dir", dir.filePath(out)}
        + more);
}

std::vector<int> idsOf(const QJsonValue& value)
{
    std::vector<int> ids;
    for (const QJsonValue& v : value.toArray())
        ids.push_back(v.toInt());
    return ids;
}

// The whole pass's last logits over `ids` (keeping no maps).
attn::RowVector lastLogits(const attnlab::ModelFolder& model, const std::vector<int>& ids,
                           attn::DecoderRunOptions options = attn::DecoderRunOptions())
{
    options.keepMaps = false;
    attn::Expected<attn::DecoderResult> r = model.decoder->run(ids, options);
    if (!r)
        qFatal("run: %s", r.error().message.c_str());
    return r->lastLogits;
}

double softmaxAt(const attn::RowVector& logits, int id, double temperature)
{
    const attn::RowVector z = logits / temperature;
    const double top = z.maxCoeff();
    return std::exp(z[id] - top) / (z.array() - top).exp().sum();
}

bool closeTo(double got, double want)
{
    return std::abs(got - want) <= kRelative * std::abs(want);
}

// Exit 2, one line on stderr, nothing on stdout, no directory made.
void refused(const Run& run, const QString& directory, const char* words)
{
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.count('\n') == 1 && run.err.endsWith('\n'), run.err.constData());
    QVERIFY2(run.err.contains(words), run.err.constData());
    QVERIFY(run.out.isEmpty());
    QVERIFY(!QFileInfo::exists(directory));
}

}  // namespace

class TestGenerateCommand : public QObject {
    Q_OBJECT

private slots:
    void greedyEqualsRepeatedPasses_data();
    void greedyEqualsRepeatedPasses();
    void samplingAgainstPlainDraw_data();
    void samplingAgainstPlainDraw();
    void whatIfsEveryStep();
    void ablatedEveryStep_data();
    void ablatedEveryStep();
    void topKOneIsGreedy();
    void badValues_data();
    void badValues();
};

void TestGenerateCommand::greedyEqualsRepeatedPasses_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("bytesPerToken");  // 2 x layers x kv heads x head_dim x 8
    QTest::addColumn<int>("bytesPerTokenPerHead");
    // tiny-gpt2: 2 layers of 4 heads of 4 (n_embd 16): 2 x 2 x 4 x 4 x 8.
    QTest::newRow("tiny-gpt2") << QStringLiteral("gpt2/tiny-gpt2") << 512 << 512;
    // tiny-gpt2-lmhead-f16: 3 layers of 2 heads of 4 (n_embd 8): 2 x 3 x 2 x 4 x 8.
    QTest::newRow("tiny-gpt2-lmhead-f16") << QStringLiteral("gpt2/tiny-gpt2-lmhead-f16") << 384 << 384;
    // tiny-llama: 2 layers, 2 key/value heads of 8 for 4 query heads.
    QTest::newRow("tiny-llama") << QStringLiteral("llama/tiny-llama") << 2 * 2 * 2 * 8 * 8
                                << 2 * 2 * 4 * 8 * 8;
    // tiny-qwen3: 2 layers, 2 key/value heads of 16 for 4 query heads.
    QTest::newRow("tiny-qwen3") << QStringLiteral("llama/tiny-qwen3") << 2 * 2 * 2 * 16 * 8
                                << 2 * 2 * 4 * 16 * 8;
}

void TestGenerateCommand::greedyEqualsRepeatedPasses()
{
    QFETCH(QString, model);
    QFETCH(int, bytesPerToken);
    QFETCH(int, bytesPerTokenPerHead);
    QTemporaryDir dir;
    const Run run = generate(model, dir, QStringLiteral("out"), {"--generate", "8"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath(QStringLiteral("out/generation.json")));
    QCOMPARE(json["mode"].toString(), QStringLiteral("greedy"));
    QVERIFY(json["seed"].isNull());
    QCOMPARE(json["kv_cache"].toObject()["bytes_per_number"].toInt(), 8);

    const attnlab::ModelFolder folder = readFolder(model);
    std::vector<int> ids = folder.tokenizer->encodeIds(kSentence);
    QCOMPARE(idsOf(json["prompt_ids"]), ids);
    const QJsonArray steps = json["steps"].toArray();
    QCOMPARE(int(steps.size()), 8);
    std::vector<int> generated;
    for (const QJsonValue& value : steps) {
        const QJsonObject step = value.toObject();
        const attn::RowVector logits = lastLogits(folder, ids);
        int want = 0;
        for (int j = 1; j < int(logits.size()); ++j)
            if (logits[j] > logits[want])
                want = j;
        QCOMPARE(step["id"].toInt(), want);
        QVERIFY(closeTo(step["probability"].toDouble(), softmaxAt(logits, want, 1.0)));
        QCOMPARE(step["position"].toInt(), int(ids.size()));
        QCOMPARE(step["cache_tokens"].toInt(), int(ids.size()));
        QCOMPARE(step["cache_bytes"].toDouble(), double(bytesPerToken) * double(ids.size()));
        QCOMPARE(step["cache_bytes_one_kv_per_head"].toDouble(),
                 double(bytesPerTokenPerHead) * double(ids.size()));
        QCOMPARE(step["token"].toString(), QString::fromUtf8(folder.tokenizer->tokenBytes(want)));
        ids.push_back(want);
        generated.push_back(want);
    }
    QCOMPARE(idsOf(json["generated_ids"]), generated);
    QCOMPARE(json["text"].toString(), folder.tokenizer->decode(ids).value());
    QCOMPARE(json["continuation"].toString(), folder.tokenizer->decode(generated).value());
}

// --mask and --no-qk-norm hold for every step, as for --model's pass: the
// tokens are the argmax of whole passes with the same what-ifs, and
// generation.json says them; a model without QK-norm refuses the flag.
void TestGenerateCommand::whatIfsEveryStep()
{
    const struct {
        const char* model;
        QStringList flags;
        const char* mask;
        bool skipQkNorm;
    } cases[] = {{"llama/tiny-llama", {"--mask", "sink:1,window:2"}, "sink:1,window:2", false},
                 {"llama/tiny-qwen3", {"--no-qk-norm"}, "causal", true}};
    for (const auto& c : cases) {
        QTemporaryDir dir;
        const Run run = generate(QLatin1String(c.model), dir, QStringLiteral("out"),
                                 QStringList{"--generate", "4"} + c.flags);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = readJsonFile(dir.filePath(QStringLiteral("out/generation.json")));
        QCOMPARE(json["mask"].toString(), QLatin1String(c.mask));
        QCOMPARE(json["qk_norm_removed"].toBool(), c.skipQkNorm);
        const attnlab::ModelFolder folder = readFolder(QLatin1String(c.model));
        attn::DecoderRunOptions options;
        options.mask = attn::parseAttentionMask(c.mask).value();
        options.skipQkNorm = c.skipQkNorm;
        std::vector<int> ids = folder.tokenizer->encodeIds(kSentence);
        for (const QJsonValue& value : json["steps"].toArray()) {
            const attn::RowVector logits = lastLogits(folder, ids, options);
            Eigen::Index want = 0;
            logits.maxCoeff(&want);
            QCOMPARE(value.toObject()["id"].toInt(), int(want));
            ids.push_back(int(want));
        }
    }
    QTemporaryDir dir;
    refused(generate(QStringLiteral("llama/tiny-llama"), dir, QStringLiteral("out"),
                     {"--generate", "2", "--no-qk-norm"}),
            dir.filePath(QStringLiteral("out")), "no QK-norm");
}

// --ablate with --generate: every token is the argmax of the whole pass
// over the text so far without those heads (the head lab's ablated pass),
// its probability within 1e-12; generation.json names the heads, and mean
// ablation, a whole pass a step, writes no cache (null).
void TestGenerateCommand::ablatedEveryStep_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("mode");
    QTest::newRow("tiny-gpt2 zero") << QStringLiteral("gpt2/tiny-gpt2") << QStringLiteral("zero");
    QTest::newRow("tiny-gpt2 mean") << QStringLiteral("gpt2/tiny-gpt2") << QStringLiteral("mean");
    QTest::newRow("tiny-llama mean") << QStringLiteral("llama/tiny-llama") << QStringLiteral("mean");
}

void TestGenerateCommand::ablatedEveryStep()
{
    QFETCH(QString, model);
    QFETCH(QString, mode);
    QTemporaryDir dir;
    const Run run = generate(model, dir, QStringLiteral("out"),
                             {"--generate", "6", "--ablate", "1.2,0.1", "--ablation", mode});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject json = readJsonFile(dir.filePath(QStringLiteral("out/generation.json")));
    QCOMPARE(json["ablation"].toString(), mode);
    const QJsonArray heads = json["ablated"].toArray();
    QCOMPARE(int(heads.size()), 2);
    QCOMPARE(heads[0].toArray()[0].toInt(), 1);
    QCOMPARE(heads[0].toArray()[1].toInt(), 2);
    QCOMPARE(heads[1].toArray()[0].toInt(), 0);
    QCOMPARE(heads[1].toArray()[1].toInt(), 1);
    const bool mean = mode == QLatin1String("mean");
    const attnlab::ModelFolder folder = readFolder(model);
    attn::DecoderRunOptions options;
    options.headOutput =
        attn::ablationHook({{1, 2}, {0, 1}}, mean ? attn::HeadAblation::Mean : attn::HeadAblation::Zero);
    std::vector<int> ids = folder.tokenizer->encodeIds(kSentence);
    bool differs = false;
    for (const QJsonValue& value : json["steps"].toArray()) {
        const QJsonObject step = value.toObject();
        const attn::RowVector logits = lastLogits(folder, ids, options);
        Eigen::Index want = 0;
        logits.maxCoeff(&want);
        QCOMPARE(step["id"].toInt(), int(want));
        QVERIFY(closeTo(step["probability"].toDouble(), softmaxAt(logits, int(want), 1.0)));
        QCOMPARE(step["cache_tokens"].isNull(), mean);
        QCOMPARE(step["cache_bytes"].isNull(), mean);
        if (!mean)
            QCOMPARE(step["cache_tokens"].toInt(), int(ids.size()));
        differs = differs || (lastLogits(folder, ids) - logits).cwiseAbs().maxCoeff() > 1e-9;
        ids.push_back(int(want));
    }
    QVERIFY(differs);  // the heads matter to these logits
    // Without --ablate the file has no such keys.
    const Run intact = generate(model, dir, QStringLiteral("intact"), {"--generate", "1"});
    QVERIFY2(intact.exitCode == 0, intact.err.constData());
    const QJsonObject plain = readJsonFile(dir.filePath(QStringLiteral("intact/generation.json")));
    QVERIFY(!plain.contains(QStringLiteral("ablated")) && !plain.contains(QStringLiteral("ablation")));
}

// With --ablate the draw is from the whole ablated pass's distribution,
// zero or mean, as greedy is.
void TestGenerateCommand::samplingAgainstPlainDraw_data()
{
    QTest::addColumn<QString>("ablation");
    QTest::newRow("intact") << QString();
    QTest::newRow("zero") << QStringLiteral("zero");
    QTest::newRow("mean") << QStringLiteral("mean");
}

void TestGenerateCommand::samplingAgainstPlainDraw()
{
    QFETCH(QString, ablation);
    const double temperature = 1.5;
    const int topK = 40;
    const quint32 seed = 2024;
    attn::DecoderRunOptions passOptions;
    if (!ablation.isEmpty())
        passOptions.headOutput = attn::ablationHook({{1, 0}, {0, 1}}, ablation == QLatin1String("mean")
                                                                          ? attn::HeadAblation::Mean
                                                                          : attn::HeadAblation::Zero);
    for (const QString& model : {QStringLiteral("gpt2/tiny-gpt2"), QStringLiteral("llama/tiny-llama")}) {
        QTemporaryDir dir;
        QStringList options{"--generate", "6",  "--sample", "--temperature", "1.5",
                            "--top-k",    "40", "--seed",   "2024"};
        if (!ablation.isEmpty())
            options << QStringLiteral("--ablate") << QStringLiteral("1.0,0.1") << QStringLiteral("--ablation")
                    << ablation;
        const Run run = generate(model, dir, QStringLiteral("a"), options);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const Run again = generate(model, dir, QStringLiteral("b"), options);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QFile a(dir.filePath(QStringLiteral("a/generation.json"))),
            b(dir.filePath(QStringLiteral("b/generation.json")));
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(a.readAll(), b.readAll());

        const QJsonObject json = readJsonFile(dir.filePath(QStringLiteral("a/generation.json")));
        QCOMPARE(json["mode"].toString(), QStringLiteral("sample"));
        QCOMPARE(json["top_k"].toInt(), topK);
        QCOMPARE(json["seed"].toInt(), int(seed));
        const attnlab::ModelFolder folder = readFolder(model);
        std::vector<int> ids = folder.tokenizer->encodeIds(kSentence);
        std::mt19937 engine{seed};
        for (const QJsonValue& value : json["steps"].toArray()) {
            const attn::RowVector logits = lastLogits(folder, ids, passOptions);
            const std::uint64_t hi = engine(), lo = engine();
            const double u = double(((hi << 32) | lo) & ((1ull << 53) - 1)) / 9007199254740992.0;
            const attn::RowVector z = logits / temperature;
            const attn::RowVector e = (z.array() - z.maxCoeff()).exp();
            const double partition = e.sum();
            std::vector<std::pair<double, int>> p;
            for (int j = 0; j < int(logits.size()); ++j)
                p.push_back({e[j] / partition, j});
            std::stable_sort(p.begin(), p.end(),
                             [](const auto& x, const auto& y) { return x.first > y.first; });
            double total = 0, sum = 0;
            for (int i = 0; i < topK; ++i)
                total += p[std::size_t(i)].first;
            int want = p[std::size_t(topK - 1)].second;
            for (int i = 0; i < topK; ++i) {
                sum += p[std::size_t(i)].first;
                if (sum > u * total) {
                    want = p[std::size_t(i)].second;
                    break;
                }
            }
            const QJsonObject step = value.toObject();
            QCOMPARE(step["id"].toInt(), want);
            QVERIFY(closeTo(step["probability"].toDouble(), softmaxAt(logits, want, temperature)));
            ids.push_back(want);
        }
    }
}

void TestGenerateCommand::topKOneIsGreedy()
{
    QTemporaryDir dir;
    const Run greedy = generate(QStringLiteral("llama/tiny-qwen3"), dir, QStringLiteral("g"),
                                {"--generate", "5", "--temperature", "0.7"});
    const Run one =
        generate(QStringLiteral("llama/tiny-qwen3"), dir, QStringLiteral("s"),
                 {"--generate", "5", "--temperature", "0.7", "--sample", "--top-k", "1", "--seed", "3"});
    QVERIFY2(greedy.exitCode == 0 && one.exitCode == 0, (greedy.err + one.err).constData());
    const QJsonObject a = readJsonFile(dir.filePath(QStringLiteral("g/generation.json")));
    const QJsonObject b = readJsonFile(dir.filePath(QStringLiteral("s/generation.json")));
    QCOMPARE(idsOf(b["generated_ids"]), idsOf(a["generated_ids"]));
    QCOMPARE(b["steps"].toArray(), a["steps"].toArray());
}

void TestGenerateCommand::badValues_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("words");
    const QString gpt2 = folderOf(QStringLiteral("gpt2/tiny-gpt2"));
    const QStringList base{"--model", gpt2, "--sentence", "Hello world"};
    QTest::newRow("N 0") << base + QStringList{"--generate", "0"}
                         << "--generate must be a whole number from 1 to 4096";
    QTest::newRow("N absurd") << base + QStringList{"--generate", "99999999999999999999"} << "from 1 to 4096";
    QTest::newRow("N not a number") << base + QStringList{"--generate", "ten"} << "not 'ten'";
    // tiny-gpt2 takes 64 positions; "Hello world" is 2 tokens.
    QTest::newRow("N beyond the positions") << base + QStringList{"--generate", "63"} << "at most 64";
    QTest::newRow("top-k 0") << base + QStringList{"--generate", "3", "--sample", "--top-k", "0"}
                             << "--top-k must be";
    QTest::newRow("top-k without sample")
        << base + QStringList{"--generate", "3", "--top-k", "5"} << "give --sample";
    QTest::newRow("seed without sample")
        << base + QStringList{"--generate", "3", "--seed", "5"} << "give --sample";
    QTest::newRow("temperature 0") << base + QStringList{"--generate", "3", "--sample", "--temperature", "0"}
                                   << "--temperature must be";
    QTest::newRow("temperature huge")
        << base + QStringList{"--generate", "3", "--temperature", "1e9"} << "--temperature must be";
    QTest::newRow("sample without generate") << base + QStringList{"--sample"} << "give --generate N";
    QTest::newRow("with head scores")
        << base + QStringList{"--generate", "3", "--head-scores"} << "--head-scores";
    QTest::newRow("ablate a head out of range")
        << base + QStringList{"--generate", "3", "--ablate", "0.4"} << "head 4 does not exist";
    QTest::newRow("ablation without ablate")
        << base + QStringList{"--generate", "3", "--ablation", "mean"} << "give --ablate L.H too";
    QTest::newRow("no sentence") << QStringList{"--model", gpt2, "--generate", "3"} << "--sentence";
    QTest::newRow("no model") << QStringList{"--sentence", "hi", "--generate", "3"} << "--model DIR";
}

void TestGenerateCommand::badValues()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, words);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out"));
    const Run run = runApp(arguments + QStringList{"--export-dir", out});
    refused(run, out, qPrintable(words));
}

QTEST_GUILESS_MAIN(TestGenerateCommand)
#include "tst_generatecommand.moc"
