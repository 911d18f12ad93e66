// SPDX-License-Identifier: GPL-3.0-or-later
// The one list of model families (modelfamilies.h): GPT-2 registered as
// "gpt2", the Llama family as "llama", "qwen2", "qwen3", "mistral"; a folder read through it gives the
// family, its name, the decoder of config.json's shape and its tokenizer; config.json without a model_type,
// or with one no family has, is refused with one line naming config.json, the value and the families
// supported, before any other file of the folder is opened.

#include "gpt2checkpoint.h"
#include "gpt2folder.h"
#include "modelfamilies.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QString tinyFolder()
{
    return QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/gpt2/tiny-gpt2");
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

}  // namespace

class TestModelFamilies : public QObject {
    Q_OBJECT
private slots:
    void gpt2IsRegistered();
    void readsGpt2Folder();
    void refusedConfig_data();
    void refusedConfig();
    void unknownTypeOpensNothingElse();
};

void TestModelFamilies::gpt2IsRegistered()
{
    QCOMPARE(int(attnlab::modelFamilies().size()), 5);
    const attnlab::ModelFamily* gpt2 = attnlab::findModelFamily("gpt2");
    QVERIFY(gpt2);
    QCOMPARE(QString::fromUtf8(gpt2->name), QStringLiteral("GPT-2"));
    QCOMPARE(QString::fromUtf8(gpt2->files.front()), QStringLiteral("config.json"));
    QCOMPARE(int(gpt2->files.size()), 4);
    for (const char* type : {"llama", "qwen2", "qwen3", "mistral"}) {
        const attnlab::ModelFamily* family = attnlab::findModelFamily(type);
        QVERIFY(family);
        QCOMPARE(QString::fromUtf8(family->files.front()), QStringLiteral("config.json"));
    }
    QCOMPARE(QString::fromUtf8(attnlab::findModelFamily("qwen3")->name), QStringLiteral("Qwen3"));
    QVERIFY(!attnlab::findModelFamily("gemma"));
    QVERIFY(!attnlab::findModelFamily("GPT2"));
    QVERIFY(!attnlab::findModelFamily(""));
    QCOMPARE(attnlab::supportedModelTypes(), std::string("gpt2, llama, qwen2, qwen3, mistral"));
    QCOMPARE(attnlab::supportedFamilyNames(), QStringLiteral("GPT-2, Llama, Qwen2, Qwen3, Mistral"));
}

// tiny-gpt2's config.json: 2 layers of 4 heads, n_embd 16, 64 positions.
void TestModelFamilies::readsGpt2Folder()
{
    const attn::Expected<attnlab::ModelFolder> model = attnlab::readModelFolder(tinyFolder());
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    QCOMPARE(model->family, QStringLiteral("gpt2"));
    QCOMPARE(model->familyName, QStringLiteral("GPT-2"));
    QCOMPARE(model->folder, tinyFolder());
    QCOMPARE(model->identity, attnlab::gpt2FolderIdentity(tinyFolder()));
    QCOMPARE(model->dtype, std::string("F32"));
    const attn::DecoderConfig& c = model->config();
    QCOMPARE(c.family, std::string("gpt2"));
    QCOMPARE(c.layers, 2);
    QCOMPARE(c.heads, 4);
    QCOMPARE(c.kvHeads, 4);
    QCOMPARE(c.headDim, 4);
    QCOMPARE(c.width, 16);
    QCOMPARE(c.maxPositions, 64);
    QCOMPARE(c.vocabSize, 50257);
    QVERIFY(model->tokenizer);
    QCOMPARE(model->tokenizer->name(), QStringLiteral("GPT-2 byte-level BPE"));
    QCOMPARE(model->tokenizer->vocabSize(), c.vocabSize);
    QVERIFY(attnlab::gpt2Weights(*model));
    QCOMPARE(attnlab::gpt2Weights(*model)->config.nLayer, 2);
}

void TestModelFamilies::refusedConfig_data()
{
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QString>("message");
    QTest::newRow("gemma") << QByteArray(R"({"model_type": "gemma", "num_hidden_layers": 2})")
                           << QStringLiteral(
                                  "config.json: model_type \"gemma\" is not supported (supported: gpt2, "
                                  "llama, qwen2, qwen3, mistral)");
    QTest::newRow("bert") << QByteArray(R"({"model_type": "bert"})")
                          << QStringLiteral(
                                 "config.json: model_type \"bert\" is not supported (supported: gpt2, llama, "
                                 "qwen2, qwen3, mistral)");
    QTest::newRow("upper case") << QByteArray(R"({"model_type": "GPT2"})")
                                << QStringLiteral(
                                       "config.json: model_type \"GPT2\" is not supported (supported: gpt2, "
                                       "llama, qwen2, qwen3, mistral)");
    QTest::newRow("empty") << QByteArray(R"({"model_type": ""})")
                           << QStringLiteral(
                                  "config.json: model_type \"\" is not supported (supported: gpt2, llama, "
                                  "qwen2, qwen3, mistral)");
    QTest::newRow("missing")
        << QByteArray(R"({"n_layer": 2})")
        << QStringLiteral("config.json: no model_type (supported: gpt2, llama, qwen2, qwen3, mistral)");
    QTest::newRow("a number")
        << QByteArray(R"({"model_type": 2})")
        << QStringLiteral("config.json: no model_type (supported: gpt2, llama, qwen2, qwen3, mistral)");
    QTest::newRow("null")
        << QByteArray(R"({"model_type": null})")
        << QStringLiteral("config.json: no model_type (supported: gpt2, llama, qwen2, qwen3, mistral)");
    QTest::newRow("an array") << QByteArray(R"(["gpt2"])")
                              << QStringLiteral("config.json: not a JSON object");
    QTest::newRow("cut short") << QByteArray(R"({"model_type": "gpt2")")
                               << QStringLiteral(
                                      "config.json: not valid JSON: unterminated string at byte 21");
}

void TestModelFamilies::refusedConfig()
{
    QFETCH(QByteArray, config);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeFile(dir.filePath(QStringLiteral("config.json")), config));
    const attn::Expected<attnlab::ModelFolder> model = attnlab::readModelFolder(dir.path());
    QVERIFY(!model.ok());
    QCOMPARE(QString::fromStdString(model.error().message), message);
    // GPT-2's own reader refuses it too.
    QVERIFY(!attnlab::parseGpt2Config(config, "config.json").ok());
}

// GPT-2's files beside a config.json of another type: the type is refused,
// not the files read as GPT-2's.
void TestModelFamilies::unknownTypeOpensNothingElse()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QDir source(tinyFolder());
    for (const char* name : {"model.safetensors", "vocab.json", "merges.txt"})
        QVERIFY(QFile::copy(source.filePath(QLatin1String(name)), dir.filePath(QLatin1String(name))));
    QFile config(source.filePath(QStringLiteral("config.json")));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QJsonObject o = QJsonDocument::fromJson(config.readAll()).object();
    o[QStringLiteral("model_type")] = QStringLiteral("gemma");
    QVERIFY(writeFile(dir.filePath(QStringLiteral("config.json")), QJsonDocument(o).toJson()));
    const attn::Expected<attnlab::ModelFolder> model = attnlab::readModelFolder(dir.path());
    QVERIFY(!model.ok());
    QCOMPARE(QString::fromStdString(model.error().message),
             QStringLiteral("config.json: model_type \"gemma\" is not supported (supported: gpt2, llama, "
                            "qwen2, qwen3, mistral)"));
    // The same folder as GPT-2 again reads.
    o[QStringLiteral("model_type")] = QStringLiteral("gpt2");
    QVERIFY(writeFile(dir.filePath(QStringLiteral("config.json")), QJsonDocument(o).toJson()));
    QVERIFY(attnlab::readModelFolder(dir.path()).ok());
}

QTEST_APPLESS_MAIN(TestModelFamilies)
#include "tst_modelfamilies.moc"
