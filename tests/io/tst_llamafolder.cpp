// SPDX-License-Identifier: GPL-3.0-or-later
// The Llama family's folder reader (llamafolder.h, llamacheckpoint.h,
// safetensorsshards.h) on copies of tests/data/llama/tiny-llama in a
// temporary folder: a table of bad folders, each refused with its one line
// naming the file, the key or the tensor (an edited config.json, no
// tokenizer.json, a missing shard, a tensor of the wrong shape); the same
// checkpoint split into shards by model.safetensors.index.json gives the
// same numbers as the single file; Mistral's sliding_window and Qwen2's
// biases are read as the config says.

#include "llama.h"
#include "llamacheckpoint.h"
#include "llamafolder.h"
#include "modelfolder.h"
#include "safetensors.h"
#include "safetensorsshards.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <cstring>
#include <functional>
#include <string>

namespace {

QString tinyLlama()
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-llama");
}

QJsonObject tinyConfig()
{
    QFile file(tinyLlama() + QStringLiteral("/config.json"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("no tiny-llama config.json");
    return QJsonDocument::fromJson(file.readAll()).object();
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// A copy of tiny-llama in `dir` (its large files linked) with `config`
// as config.json.
bool makeFolder(const QTemporaryDir& dir, const QJsonObject& config, bool tokenizer = true)
{
    bool ok = writeFile(dir.filePath(QStringLiteral("config.json")), QJsonDocument(config).toJson());
    ok = ok
         && QFile::link(tinyLlama() + QStringLiteral("/model.safetensors"),
                        dir.filePath(QStringLiteral("model.safetensors")));
    if (tokenizer)
        ok = ok
             && QFile::link(tinyLlama() + QStringLiteral("/tokenizer.json"),
                            dir.filePath(QStringLiteral("tokenizer.json")));
    return ok;
}

// The tensors of `file` whose names `pick` chooses, as a safetensors file.
QByteArray safetensorsOf(const attnlab::SafetensorsFile& file,
                         const std::function<bool(const std::string&)>& pick)
{
    QJsonObject header;
    QByteArray data;
    for (const attnlab::SafetensorsTensor& t : file.tensors()) {
        if (!pick(t.name))
            continue;
        QJsonArray shape;
        for (const std::int64_t d : t.shape)
            shape.append(double(d));
        const qint64 begin = data.size();
        data.append(reinterpret_cast<const char*>(t.bytes), qsizetype(t.byteSize()));
        header.insert(
            QString::fromStdString(t.name),
            QJsonObject{{QStringLiteral("dtype"), QString::fromStdString(t.dtype)},
                        {QStringLiteral("shape"), shape},
                        {QStringLiteral("data_offsets"), QJsonArray{double(begin), double(data.size())}}});
    }
    const QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    QByteArray out(8, '\0');
    qToLittleEndian<quint64>(quint64(json.size()), out.data());
    return out + json + data;
}

// Refusals come before the tokenizer is read; a reader that fails the test
// if it is reached.
attn::Expected<std::shared_ptr<const attnlab::ModelTokenizer>> unreachedTokenizer(const QString&)
{
    return attn::Error{"the tokenizer was read"};
}

std::string readError(const QString& folder)
{
    QFile config(folder + QStringLiteral("/config.json"));
    if (!config.open(QIODevice::ReadOnly))
        return "no config.json";
    const auto read = attnlab::readLlamaFolder(folder, config.readAll(), &unreachedTokenizer);
    return read.ok() ? std::string("read") : read.error().message;
}

}  // namespace

class TestLlamaFolder : public QObject {
    Q_OBJECT
private slots:
    void refused_data();
    void refused();
    void noTokenizer();
    void shards();
    void missingShard();
    void shardIdentity();
    void configOptions();
    void tiedEmbeddingShared();
    void bf16MatricesInPlace();
};

void TestLlamaFolder::refused_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("kv heads not dividing heads")
        << "num_key_value_heads" << QJsonValue(3)
        << "config.json: num_key_value_heads 3 does not divide num_attention_heads 4";
    QTest::newRow("odd head_dim") << "head_dim" << QJsonValue(7)
                                  << "config.json: head_dim 7 is odd (RoPE rotates pairs of dimensions)";
    QTest::newRow("unknown rope_scaling")
        << "rope_scaling" << QJsonValue(QJsonObject{{"rope_type", "yarn"}, {"factor", 4}})
        << "config.json: rope_scaling type \"yarn\" is not supported (supported: llama3)";
    QTest::newRow("old rope_scaling key")
        << "rope_scaling" << QJsonValue(QJsonObject{{"type", "linear"}, {"factor", 2}})
        << "config.json: rope_scaling type \"linear\" is not supported (supported: llama3)";
    QTest::newRow("llama3 without its factors")
        << "rope_scaling" << QJsonValue(QJsonObject{{"rope_type", "llama3"}, {"factor", 8}})
        << "config.json: rope_scaling's low_freq_factor is missing (llama3 needs it)";
    QTest::newRow("not a causal LM")
        << "architectures" << QJsonValue(QJsonArray{"LlamaForSequenceClassification"})
        << "config.json: architectures names \"LlamaForSequenceClassification\", not a causal language model "
           "(*ForCausalLM)";
    QTest::newRow("no hidden_size") << "hidden_size" << QJsonValue() << "config.json: no hidden_size";
    QTest::newRow("another activation")
        << "hidden_act" << QJsonValue("gelu")
        << "config.json: hidden_act \"gelu\" is not supported (the family uses silu)";
    QTest::newRow("tensor of the wrong shape")
        << "intermediate_size" << QJsonValue(65)
        << "model.safetensors: tensor model.layers.0.mlp.gate_proj.weight has shape [64, 32] but [65, 32] "
           "was "
           "expected (intermediate_size x hidden_size)";
    QTest::newRow("head_dim the tensors do not have")
        << "head_dim" << QJsonValue(16)
        << "model.safetensors: tensor model.layers.0.self_attn.q_proj.weight has shape [32, 32] but [64, 32] "
           "was expected (heads x head_dim, hidden_size)";
    QTest::newRow("fewer layers than the tensors")
        << "num_hidden_layers" << QJsonValue(1)
        << "model.safetensors: tensor model.layers.1.input_layernorm.weight is beyond config.json's "
           "num_hidden_layers 1";
    QTest::newRow("untied without lm_head")
        << "tie_word_embeddings" << QJsonValue(false)
        << "model.safetensors: tensor lm_head.weight is missing (config.json's tie_word_embeddings is false)";
    QTest::newRow("attention_bias without biases")
        << "attention_bias" << QJsonValue(true)
        << "model.safetensors: tensor model.layers.0.self_attn.q_proj.bias is missing";
}

void TestLlamaFolder::refused()
{
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QFETCH(QString, message);
    QJsonObject config = tinyConfig();
    if (value.isUndefined())
        config.remove(key);
    else
        config.insert(key, value);
    QTemporaryDir dir;
    QVERIFY(makeFolder(dir, config));
    QCOMPARE(QString::fromStdString(readError(dir.path())), message);
}

void TestLlamaFolder::noTokenizer()
{
    QTemporaryDir dir;
    QVERIFY(makeFolder(dir, tinyConfig(), false));
    QCOMPARE(readError(dir.path()),
             std::string("tokenizer.json is missing (the model's tokenizer, in Hugging Face's format)"));
    // And a folder with no checkpoint names both forms it looks for.
    QTemporaryDir empty;
    QVERIFY(writeFile(empty.filePath(QStringLiteral("config.json")), QJsonDocument(tinyConfig()).toJson()));
    QCOMPARE(
        QString::fromStdString(readError(empty.path())),
        QDir(empty.path()).dirName()
            + QStringLiteral(": neither model.safetensors nor model.safetensors.index.json is there (only "
                             "safetensors checkpoints are read)"));
}

// tiny-llama split in two shards: layer 1 in the second, the rest in the
// first, and the index naming them.
void writeShards(const QTemporaryDir& dir, bool secondShard = true, const QString& misnamed = {})
{
    const auto file = attnlab::SafetensorsFile::open(tinyLlama() + QStringLiteral("/model.safetensors"));
    QVERIFY(file.ok());
    const auto second = [](const std::string& name) { return name.rfind("model.layers.1.", 0) == 0; };
    const QString one = QStringLiteral("model-00001-of-00002.safetensors");
    const QString two = QStringLiteral("model-00002-of-00002.safetensors");
    QVERIFY(
        writeFile(dir.filePath(one), safetensorsOf(*file, [&](const std::string& n) { return !second(n); })));
    if (secondShard)
        QVERIFY(writeFile(dir.filePath(two), safetensorsOf(*file, second)));
    QJsonObject map;
    for (const attnlab::SafetensorsTensor& t : file->tensors())
        map.insert(QString::fromStdString(t.name), second(t.name) ? two : one);
    if (!misnamed.isEmpty())
        map.insert(misnamed, two);
    QVERIFY(writeFile(
        dir.filePath(QStringLiteral("model.safetensors.index.json")),
        QJsonDocument(QJsonObject{{"metadata", QJsonObject{{"total_size", 0}}}, {"weight_map", map}})
            .toJson()));
    QVERIFY(writeFile(dir.filePath(QStringLiteral("config.json")), QJsonDocument(tinyConfig()).toJson()));
}

void TestLlamaFolder::shards()
{
    QTemporaryDir dir;
    writeShards(dir);
    if (QTest::currentTestFailed())
        return;
    const QByteArray config = QJsonDocument(tinyConfig()).toJson();
    auto sharded = attnlab::readLlamaCheckpoint(dir.path(), config);
    QVERIFY2(sharded.ok(), sharded.ok() ? "" : sharded.error().message.c_str());
    auto single = attnlab::readLlamaCheckpoint(tinyLlama(), config);
    QVERIFY(single.ok());
    QCOMPARE(sharded->dtype, std::string("F32"));
    auto a = attn::LlamaDecoderModel::create(std::move(sharded->weights));
    auto b = attn::LlamaDecoderModel::create(std::move(single->weights));
    QVERIFY(a.ok() && b.ok());
    const std::vector<int> ids{464, 3797, 3332, 319};
    const auto ra = (*a)->run(ids), rb = (*b)->run(ids);
    QVERIFY(ra.ok() && rb.ok());
    QCOMPARE(ra->lastLogits, rb->lastLogits);
    QCOMPARE(ra->layers[1].heads[3].scores, rb->layers[1].heads[3].scores);
}

void TestLlamaFolder::missingShard()
{
    QTemporaryDir dir;
    writeShards(dir, false);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(
        readError(dir.path()),
        std::string("model.safetensors.index.json: the shard model-00002-of-00002.safetensors it names (for "
                    "tensor model.layers.1.input_layernorm.weight) is missing"));
    // A tensor the index puts in a shard that does not hold it.
    QTemporaryDir wrong;
    writeShards(wrong, true, QStringLiteral("model.norm.weight"));
    QCOMPARE(readError(wrong.path()),
             std::string("model.safetensors.index.json: tensor model.norm.weight is not in "
                         "model-00002-of-00002.safetensors as weight_map says"));
}

// A sharded folder's identity covers each shard as model.safetensors is
// covered: a byte of a shard's data, its size or its modification time
// changed gives another identity; read again unchanged, the same.
void TestLlamaFolder::shardIdentity()
{
    QTemporaryDir dir;
    writeShards(dir);
    if (QTest::currentTestFailed())
        return;
    const std::vector<const char*> files = attnlab::llamaFamilies().front().files;
    const QString path = dir.filePath(QStringLiteral("model-00002-of-00002.safetensors"));
    const QString first = attnlab::folderIdentity(dir.path(), files);
    QCOMPARE(attnlab::folderIdentity(dir.path(), files), first);
    QFile shard(path);
    QVERIFY(shard.open(QIODevice::ReadWrite));
    const QDateTime stamp = shard.fileTime(QFileDevice::FileModificationTime);
    const qint64 size = shard.size();
    // The last byte, beyond the header: the data of layer 1's last tensor.
    QVERIFY(shard.seek(size - 1));
    const QByteArray last = shard.read(1);
    QVERIFY(shard.seek(size - 1));
    QCOMPARE(shard.write(QByteArray(1, char(last[0] ^ 0x5a))), qint64(1));
    shard.flush();
    QVERIFY(shard.setFileTime(stamp, QFileDevice::FileModificationTime));
    const QString edited = attnlab::folderIdentity(dir.path(), files);
    QVERIFY(edited != first);
    // The byte put back, with the old time: the first identity again.
    QVERIFY(shard.seek(size - 1));
    QCOMPARE(shard.write(last), qint64(1));
    shard.flush();
    QVERIFY(shard.setFileTime(stamp, QFileDevice::FileModificationTime));
    QCOMPARE(attnlab::folderIdentity(dir.path(), files), first);
    // The same bytes, a second later.
    QVERIFY(shard.setFileTime(stamp.addSecs(1), QFileDevice::FileModificationTime));
    QVERIFY(attnlab::folderIdentity(dir.path(), files) != first);
    // One byte longer, with the old time.
    QVERIFY(shard.resize(size + 1));
    QVERIFY(shard.setFileTime(stamp, QFileDevice::FileModificationTime));
    QVERIFY(attnlab::folderIdentity(dir.path(), files) != first);
}

void TestLlamaFolder::configOptions()
{
    // tiny-llama's tensors read as Mistral with a window of 3.
    QJsonObject mistral = tinyConfig();
    mistral.insert("model_type", "mistral");
    mistral.insert("architectures", QJsonArray{"MistralForCausalLM"});
    mistral.insert("sliding_window", 3);
    const auto read = attnlab::readLlamaCheckpoint(tinyLlama(), QJsonDocument(mistral).toJson());
    QVERIFY(read.ok());
    QCOMPARE(read->weights.config.slidingWindow, 3);
    auto model = attn::LlamaDecoderModel::create(read->weights);
    QVERIFY(model.ok());
    QCOMPARE((*model)->config().slidingWindow, 3);
    const auto r = (*model)->run({1, 2, 3, 4, 5});
    QVERIFY(r.ok());
    QCOMPARE(r->layers[0].heads[0].weights(4, 1), 0.0);
    QVERIFY(r->layers[0].heads[0].weights(4, 2) > 0.0);
    // null: no window.
    mistral.insert("sliding_window", QJsonValue::Null);
    QCOMPARE(attnlab::readLlamaCheckpoint(tinyLlama(), QJsonDocument(mistral).toJson())
                 ->weights.config.slidingWindow,
             0);

    // Qwen2 always has q, k and v biases: these tensors do not.
    QJsonObject qwen2 = tinyConfig();
    qwen2.insert("model_type", "qwen2");
    const auto q2 = attnlab::readLlamaCheckpoint(tinyLlama(), QJsonDocument(qwen2).toJson());
    QVERIFY(!q2.ok());
    QCOMPARE(q2.error().message,
             std::string("model.safetensors: tensor model.layers.0.self_attn.q_proj.bias is missing"));
    qwen2.insert("use_sliding_window", true);
    QCOMPARE(attnlab::readLlamaCheckpoint(tinyLlama(), QJsonDocument(qwen2).toJson()).error().message,
             std::string("config.json: use_sliding_window true is not supported"));

    // llama3 rope scaling read whole.
    QJsonObject llama3 = tinyConfig();
    llama3.insert("rope_scaling", QJsonObject{{"rope_type", "llama3"},
                                              {"factor", 32.0},
                                              {"low_freq_factor", 1.0},
                                              {"high_freq_factor", 4.0},
                                              {"original_max_position_embeddings", 8192}});
    const auto l3 = attnlab::readLlamaCheckpoint(tinyLlama(), QJsonDocument(llama3).toJson());
    QVERIFY(l3.ok());
    const attn::Llama3RopeScaling& s = l3->weights.config.ropeScaling;
    QVERIFY(s.enabled);
    QCOMPARE(s.factor, 32.0);
    QCOMPARE(s.highFreqFactor, 4.0);
    QCOMPARE(s.originalMaxPositions, 8192);
}

// Tied embeddings: the logits read the embedding's own floats, not a copy
// (SmolLM2-135M's would be 113 MB more), whether they are the file's F32
// bytes (tiny-llama) or BF16 converted (tiny-qwen3).
void TestLlamaFolder::tiedEmbeddingShared()
{
    for (const char* name : {"tiny-llama", "tiny-qwen3"}) {
        const QString folder = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/") + QLatin1String(name);
        QFile config(folder + QStringLiteral("/config.json"));
        QVERIFY(config.open(QIODevice::ReadOnly));
        const auto checkpoint = attnlab::readLlamaCheckpoint(folder, config.readAll());
        QVERIFY2(checkpoint.ok(), name);
        const attn::LlamaWeights& w = checkpoint->weights;
        QVERIFY(w.lmHeadTied);
        QCOMPARE(w.lmHead.data, w.embed.data);
        QCOMPARE(w.lmHead.rows, w.embed.rows);
        QCOMPARE(w.lmHead.cols, w.embed.cols);
    }
}

// tiny-qwen3 (BF16) with its matrices left as the file's bfloat16 and
// with them converted: the matrices point into the bytes read, the vectors
// are float32, and a whole pass gives the same numbers bit for bit (every
// head's scores and context, the logits). Small checkpoints are converted
// unless asked (Bf16Matrices::Auto).
void TestLlamaFolder::bf16MatricesInPlace()
{
    const QString folder = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-qwen3");
    QFile configFile(folder + QStringLiteral("/config.json"));
    QVERIFY(configFile.open(QIODevice::ReadOnly));
    const auto config = attnlab::parseLlamaConfig(configFile.readAll(), "config.json");
    QVERIFY(config.ok());
    std::unique_ptr<attn::LlamaDecoderModel> models[2];
    for (const attnlab::Bf16Matrices mode :
         {attnlab::Bf16Matrices::Converted, attnlab::Bf16Matrices::InPlace}) {
        auto shards = attnlab::SafetensorsShards::open(folder);
        QVERIFY(shards.ok());
        QVERIFY(shards->dataBytes() < attnlab::kBf16InPlaceBytes);
        auto checkpoint = attnlab::llamaFromShards(config.value(), shards.value(), mode);
        QVERIFY(checkpoint.ok());
        const attn::LlamaWeights& w = checkpoint->weights;
        const bool inPlace = mode == attnlab::Bf16Matrices::InPlace;
        QCOMPARE(w.blocks[0].q.bf16 != nullptr, inPlace);
        QCOMPARE(w.blocks[0].q.data == nullptr, inPlace);
        QCOMPARE(w.embed.bf16 != nullptr, inPlace);
        QCOMPARE(w.lmHead.bf16, w.embed.bf16);
        QVERIFY(w.blocks[0].inputNorm.data && !w.blocks[0].inputNorm.bf16);
        QVERIFY(w.blocks[0].qNorm.data && !w.blocks[0].qNorm.bf16);
        auto model = attn::LlamaDecoderModel::create(std::move(checkpoint->weights));
        QVERIFY(model.ok());
        models[inPlace ? 1 : 0] = std::move(model).value();
    }
    const auto sameBits = [](const auto& a, const auto& b) {
        return a.size() == b.size()
               && std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(double)) == 0;
    };
    const std::vector<int> ids = {9707, 11, 1879, 0, 151643, 42, 7};
    const auto converted = models[0]->run(ids);
    const auto inPlace = models[1]->run(ids);
    QVERIFY(converted.ok() && inPlace.ok());
    QVERIFY(sameBits(converted->lastLogits, inPlace->lastLogits));
    for (std::size_t l = 0; l < converted->layers.size(); ++l)
        for (std::size_t h = 0; h < converted->layers[l].heads.size(); ++h) {
            const attn::AttentionResult& a = converted->layers[l].heads[h];
            const attn::AttentionResult& b = inPlace->layers[l].heads[h];
            QVERIFY(sameBits(a.scores, b.scores));
            QVERIFY(sameBits(a.context, b.context));
        }
}

QTEST_GUILESS_MAIN(TestLlamaFolder)
#include "tst_llamafolder.moc"
