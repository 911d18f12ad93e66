// SPDX-License-Identifier: GPL-3.0-or-later
// GPT-2 checkpoints: the two reference folders load with the values numpy
// reads from their files; folders built here (config.json and a
// model.safetensors written tensor by tensor) load with the head untied or
// tied and the stored dtype said, and every config or tensor that does not
// make a GPT-2 is refused with its message.

#include "gpt2checkpoint.h"
#include "gpt2folder.h"
#include "modelfamilies.h"
#include "safetensors.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstring>

#include <sys/stat.h>

namespace {

const QString kData = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/gpt2/");

struct Tensor {
    QByteArray name;
    QByteArray dtype;  // F32, F16, BF16, I64
    std::vector<qint64> shape;
};

// Tensor j's entry i is j + i / 1024 (exact in float32 and in float16 for
// the sizes used here); F16 and BF16 store the same values rounded by
// truncation of float32's bits, I64 stores zeros.
QByteArray tensorData(int j, const Tensor& t)
{
    qint64 count = 1;
    for (const qint64 d : t.shape)
        count *= d;
    QByteArray out;
    for (qint64 i = 0; i < count; ++i) {
        const float v = float(j) + float(i) / 1024.0f;
        quint32 bits;
        std::memcpy(&bits, &v, 4);
        uchar b[8] = {};
        if (t.dtype == "F32") {
            qToLittleEndian(bits, b);
            out.append(reinterpret_cast<const char*>(b), 4);
        } else if (t.dtype == "BF16") {
            qToLittleEndian(quint16(bits >> 16), b);
            out.append(reinterpret_cast<const char*>(b), 2);
        } else if (t.dtype == "F16") {
            // Normal values only: rebias the exponent, keep 10 mantissa bits.
            const quint32 exponent = (bits >> 23) & 0xFF;
            const quint16 half = v == 0 ? 0 : quint16(((exponent - 112) << 10) | ((bits >> 13) & 0x3FF));
            qToLittleEndian(half, b);
            out.append(reinterpret_cast<const char*>(b), 2);
        } else {
            out.append(reinterpret_cast<const char*>(b), 8);
        }
    }
    return out;
}

QByteArray safetensors(const std::vector<Tensor>& tensors)
{
    QJsonObject header{{"__metadata__", QJsonObject{{"format", "pt"}}}};
    QByteArray data;
    for (std::size_t j = 0; j < tensors.size(); ++j) {
        const QByteArray bytes = tensorData(int(j), tensors[j]);
        QJsonArray shape;
        for (const qint64 d : tensors[j].shape)
            shape.append(d);
        header.insert(QString::fromLatin1(tensors[j].name),
                      QJsonObject{{"dtype", QString::fromLatin1(tensors[j].dtype)},
                                  {"shape", shape},
                                  {"data_offsets", QJsonArray{data.size(), data.size() + bytes.size()}}});
        data += bytes;
    }
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (json.size() % 8 != 0)
        json += ' ';
    uchar length[8];
    qToLittleEndian(quint64(json.size()), length);
    return QByteArray(reinterpret_cast<const char*>(length), 8) + json + data;
}

// A GPT-2 of `layers` blocks, E 4, 5 tokens, 3 positions.
std::vector<Tensor> gpt2Tensors(int layers, const QByteArray& prefix = {}, const QByteArray& dtype = "F32")
{
    const qint64 e = 4, v = 5, p = 3;
    std::vector<Tensor> out = {{prefix + "wte.weight", dtype, {v, e}},
                               {prefix + "wpe.weight", dtype, {p, e}}};
    for (int i = 0; i < layers; ++i) {
        const QByteArray h = prefix + "h." + QByteArray::number(i) + ".";
        out.insert(out.end(), {{h + "ln_1.weight", dtype, {e}},
                               {h + "ln_1.bias", dtype, {e}},
                               {h + "attn.c_attn.weight", dtype, {e, 3 * e}},
                               {h + "attn.c_attn.bias", dtype, {3 * e}},
                               {h + "attn.c_proj.weight", dtype, {e, e}},
                               {h + "attn.c_proj.bias", dtype, {e}},
                               {h + "ln_2.weight", dtype, {e}},
                               {h + "ln_2.bias", dtype, {e}},
                               {h + "mlp.c_fc.weight", dtype, {e, 4 * e}},
                               {h + "mlp.c_fc.bias", dtype, {4 * e}},
                               {h + "mlp.c_proj.weight", dtype, {4 * e, e}},
                               {h + "mlp.c_proj.bias", dtype, {e}},
                               {h + "attn.bias", dtype, {1, 1, p, p}}});
    }
    out.insert(out.end(), {{prefix + "ln_f.weight", dtype, {e}}, {prefix + "ln_f.bias", dtype, {e}}});
    return out;
}

QJsonObject gpt2Config(int layers)
{
    return QJsonObject{{"model_type", "gpt2"},
                       {"n_layer", layers},
                       {"n_head", 2},
                       {"n_embd", 4},
                       {"n_positions", 3},
                       {"vocab_size", 5},
                       {"layer_norm_epsilon", 1e-05},
                       {"activation_function", "gelu_new"}};
}

std::vector<Tensor> without(std::vector<Tensor> tensors, const QByteArray& name)
{
    tensors.erase(
        std::remove_if(tensors.begin(), tensors.end(), [&](const Tensor& t) { return t.name == name; }),
        tensors.end());
    return tensors;
}

std::vector<Tensor> with(std::vector<Tensor> tensors, const Tensor& t)
{
    for (Tensor& old : tensors)
        if (old.name == t.name) {
            old = t;
            return tensors;
        }
    tensors.push_back(t);
    return tensors;
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
}

// A folder holding `config` and `tensors`, read back.
attn::Expected<attnlab::Gpt2Checkpoint> readFolder(const QTemporaryDir& dir, const QByteArray& config,
                                                   const std::vector<Tensor>& tensors)
{
    writeFile(dir.filePath("config.json"), config);
    writeFile(dir.filePath("model.safetensors"), safetensors(tensors));
    return attnlab::readGpt2Checkpoint(dir.path());
}

QByteArray json(const QJsonObject& o)
{
    return QJsonDocument(o).toJson();
}

}  // namespace

Q_DECLARE_METATYPE(std::vector<Tensor>)

class TestGpt2Checkpoint : public QObject {
    Q_OBJECT
private slots:
    void referenceF32();
    void referenceF16();
    void lmHeadUntied();
    void dtypes();
    void refused_data();
    void refused();
    void mappingKeptOnlyForF32();
    void missingFiles();
    void identityIsPathAndContents();
    void fileChangedWhileOpen();
    void specialFilesNamed();
};

void TestGpt2Checkpoint::referenceF32()
{
    attnlab::Gpt2Checkpoint read;
    {
        const auto c = attnlab::readGpt2Checkpoint(kData + "tiny-gpt2");
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        read = c.value();
    }
    // The copy alone keeps the mapping alive from here on.
    const attn::Gpt2Weights& w = read.weights;
    QCOMPARE(read.dtype, std::string("F32"));
    QCOMPARE(w.config.nLayer, 2);
    QCOMPARE(w.config.nHead, 4);
    QCOMPARE(w.config.nEmbd, 16);
    QCOMPARE(w.config.nPositions, 64);
    QCOMPARE(w.config.vocabSize, 50257);
    QCOMPARE(w.config.layerNormEpsilon, 1e-5);
    QCOMPARE(w.config.headDim(), 4);
    QCOMPARE(w.blocks.size(), std::size_t(2));
    QVERIFY(w.storage);
    QVERIFY(w.lmHeadTied);
    QCOMPARE(w.lmHead.data, w.wte.data);
    QCOMPARE(w.wte.rows, 50257);
    QCOMPARE(w.wte.cols, 16);
    QCOMPARE(w.blocks[1].attnWeight.rows, 16);
    QCOMPARE(w.blocks[1].attnWeight.cols, 48);
    QCOMPARE(w.blocks[1].attnBias.rows, 1);
    QCOMPARE(w.blocks[1].attnBias.cols, 48);
    QCOMPARE(w.blocks[0].mlpProjWeight.rows, 64);
    // Values read independently with numpy (python3: np.frombuffer of each
    // tensor's data_offsets slice as '<f4', reshaped to its shape).
    QCOMPARE(w.wte.map()(0, 0), 0.17279209196567535f);
    QCOMPARE(w.wte.map()(464, 7), -0.6866124272346497f);
    QCOMPARE(w.wte.map()(50256, 15), 0.5780755877494812f);
    QCOMPARE(w.wpe.map()(63, 0), 0.0915694311261177f);
    QCOMPARE(w.blocks[1].attnWeight.map()(3, 47), -0.5069785118103027f);
    QCOMPARE(w.blocks[0].mlpProjWeight.map()(63, 15), 0.10383141040802002f);
    QCOMPARE(w.lnFBias.map()(0, 15), 0.007299614138901234f);
}

void TestGpt2Checkpoint::referenceF16()
{
    const auto c = attnlab::readGpt2Checkpoint(kData + "tiny-gpt2-lmhead-f16");
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
    const attn::Gpt2Weights& w = c->weights;
    QCOMPARE(c->dtype, std::string("F16"));
    QCOMPARE(w.config.nLayer, 3);
    QCOMPARE(w.config.nHead, 2);
    QCOMPARE(w.config.nEmbd, 8);
    QCOMPARE(w.config.nPositions, 32);
    QCOMPARE(w.blocks.size(), std::size_t(3));
    QVERIFY(w.lmHeadTied);  // saved tied: no lm_head.weight in the file
    QCOMPARE(w.lmHead.data, w.wte.data);
    // numpy ('<f2', its bits viewed as '<u2'), converted by hand:
    // wte[0, 0] = 0x2e0d = (1 + 525/1024) x 2^-4.
    QCOMPARE(w.wte.map()(0, 0), 1549.0f / 16384.0f);
    // wte[1316, 4] = 0x8207 and h.0.attn.c_proj.weight[3, 2] = 0x8184 are
    // subnormal: -519 x 2^-24 and -388 x 2^-24.
    QCOMPARE(w.wte.map()(1316, 4), -519.0f * std::ldexp(1.0f, -24));
    QCOMPARE(w.blocks[0].attnProjWeight.map()(3, 2), -388.0f * std::ldexp(1.0f, -24));
    // np.float32 of wpe[31, 7] = 0xacc8, h.1.attn.c_attn.weight[7, 23] =
    // 0x3656, h.2.mlp.c_proj.bias[7] = 0xa858.
    QCOMPARE(w.wpe.map()(31, 7), -0.0747070312f);
    QCOMPARE(w.blocks[1].attnWeight.map()(7, 23), 0.395996094f);
    QCOMPARE(w.blocks[2].mlpProjBias.map()(0, 7), -0.0339355469f);
}

void TestGpt2Checkpoint::lmHeadUntied()
{
    QTemporaryDir dir;
    // lm_head.weight is the last tensor: j = 2 + 13 + 2 = 17 (see gpt2Tensors).
    std::vector<Tensor> tensors = gpt2Tensors(1, "transformer.");
    tensors.push_back({"lm_head.weight", "F32", {5, 4}});
    const auto c = readFolder(dir, json(gpt2Config(1)), tensors);
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
    const attn::Gpt2Weights& w = c->weights;
    QVERIFY(!w.lmHeadTied);
    QVERIFY(w.lmHead.data != w.wte.data);
    const float j = float(tensors.size() - 1);
    QCOMPARE(w.lmHead.map()(0, 0), j);
    QCOMPARE(w.lmHead.map()(4, 3), j + 19.0f / 1024.0f);
    QCOMPARE(w.wte.map()(4, 3), 19.0f / 1024.0f);  // tensor 0
    // h.0.mlp.c_fc.bias is tensor 11: entry 15 of 16.
    QCOMPARE(w.blocks[0].fcBias.map()(0, 15), 11.0f + 15.0f / 1024.0f);
    QCOMPARE(w.blocks[0].fcBias.cols, 16);
}

void TestGpt2Checkpoint::dtypes()
{
    {
        QTemporaryDir dir;
        const auto c = readFolder(dir, json(gpt2Config(1)), gpt2Tensors(1, {}, "BF16"));
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->dtype, std::string("BF16"));
        QCOMPARE(c->weights.wpe.map()(2, 0), 1.0f + 8.0f / 1024.0f);  // tensor 1, entry 8: exact in bfloat16
    }
    {
        // Masks of another dtype are skipped; a mixed file says both dtypes.
        QTemporaryDir dir;
        std::vector<Tensor> tensors = with(gpt2Tensors(1, {}, "F16"), {"h.0.attn.bias", "I64", {1, 1, 3, 3}});
        tensors = with(tensors, {"wpe.weight", "F32", {3, 4}});
        const auto c = readFolder(dir, json(gpt2Config(1)), tensors);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->dtype, std::string("F16+F32"));
        QCOMPARE(c->weights.blocks[0].attnWeight.map()(3, 8),
                 4.0f + 44.0f / 1024.0f);  // F16, tensor 4: exact
    }
}

void TestGpt2Checkpoint::refused_data()
{
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<std::vector<Tensor>>("tensors");
    QTest::addColumn<QString>("message");
    const QString st = "model.safetensors: ";
    const QString cj = "config.json: ";
    const std::vector<Tensor> one = gpt2Tensors(1);
    const auto config = [](const char* key, const QJsonValue& value) {
        QJsonObject o = gpt2Config(1);
        if (value.isUndefined())
            o.remove(QLatin1String(key));
        else
            o.insert(QLatin1String(key), value);
        return json(o);
    };

    QTest::newRow("model_type llama") << config("model_type", "llama") << one
                                      << cj + "model_type \"llama\" is not supported (supported: gpt2)";
    QTest::newRow("no model_type") << config("model_type", QJsonValue::Undefined) << one
                                   << cj + "no model_type (supported: gpt2)";
    QJsonObject e10 = gpt2Config(1);
    e10.insert("n_embd", 10);
    e10.insert("n_head", 4);
    QTest::newRow("n_embd not divisible by n_head")
        << json(e10) << one << cj + "n_embd 10 is not divisible by n_head 4";
    QTest::newRow("n_head 0") << config("n_head", 0) << one
                              << cj + "n_head must be a whole number from 1 to 256, not 0";
    QTest::newRow("n_layer a string")
        << config("n_layer", "12") << one << cj + "n_layer must be a whole number from 1 to 256, not \"12\"";
    QTest::newRow("vocab_size fractional") << config(
        "vocab_size", 5.5) << one << cj + "vocab_size must be a whole number from 1 to 1048576, not 5.5";
    QTest::newRow("n_positions missing")
        << config("n_positions", QJsonValue::Undefined) << one << cj + "no n_positions";
    QTest::newRow("activation relu") << config(
        "activation_function",
        "relu") << one << cj + "activation_function \"relu\" is not supported (GPT-2 uses gelu_new)";
    QTest::newRow("epsilon negative") << config("layer_norm_epsilon", -1) << one
                                      << cj + "layer_norm_epsilon must be a number above 0 and below 1";
    QTest::newRow("n_inner") << config("n_inner", 10) << one
                             << cj + "n_inner other than 4 x n_embd = 16 is not supported";
    QTest::newRow("scaled by layer") << config("scale_attn_by_inverse_layer_idx", true) << one
                                     << cj
                                            + "scale_attn_by_inverse_layer_idx true is not supported (GPT-2 divides "
                                              "the scores by sqrt(head_dim) only)";
    QTest::newRow("config not JSON") << QByteArray("{\"n_layer\": 1,}") << one
                                     << cj + "not valid JSON: object is missing after a comma at byte 15";
    QTest::newRow("config a list") << QByteArray("[]") << one << cj + "not a JSON object";

    QTest::newRow("missing tensor") << config("n_layer", 1) << without(one, "h.0.mlp.c_fc.bias")
                                    << st + "tensor h.0.mlp.c_fc.bias is missing";
    QTest::newRow("missing tensor, prefixed")
        << config("n_layer", 1) << without(gpt2Tensors(1, "transformer."), "transformer.ln_f.weight")
        << st + "tensor transformer.ln_f.weight is missing";
    QTest::newRow("wrong shape") << config("n_layer", 1)
                                 << with(one, {"h.0.attn.c_attn.weight", "F32", {4, 8}})
                                 << st
                                        + "tensor h.0.attn.c_attn.weight has shape [4, 8] but [4, 12] was "
                                          "expected (n_embd x 3 n_embd)";
    QTest::newRow("bias as a row") << config("n_layer", 1) << with(one, {"h.0.attn.c_attn.bias", "F32", {1, 12}})
                                   << st + "tensor h.0.attn.c_attn.bias has shape [1, 12] but [12] was expected "
                                           "(3 n_embd)";
    QTest::newRow("vocab_size not the tensors'")
        << config("vocab_size", 6) << one
        << st + "tensor wte.weight has shape [5, 4] but [6, 4] was expected (vocab_size x n_embd)";
    QTest::newRow("wrong lm_head shape") << config("n_layer", 1) << with(one, {"lm_head.weight", "F32", {4, 5}})
                                         << st + "tensor lm_head.weight has shape [4, 5] but [5, 4] was "
                                                 "expected (vocab_size x n_embd)";
    QTest::newRow("fewer layers in the config")
        << config("n_layer", 1) << gpt2Tensors(2)
        << st + "tensor h.1.attn.c_attn.bias is beyond config.json's n_layer 1 (layers 0 to 0)";
    QTest::newRow("more layers in the config")
        << config("n_layer", 2) << one << st + "tensor h.1.ln_1.weight is missing";
    QTest::newRow("a tensor of another model")
        << config("n_layer", 1) << with(one, {"score.weight", "F32", {2, 4}})
        << st + "tensor score.weight is not part of a GPT-2 model";
    QTest::newRow("stored with and without the prefix")
        << config("n_layer", 1) << with(one, {"transformer.wpe.weight", "F32", {3, 4}})
        << st + "tensor wpe.weight is stored twice, as wpe.weight and transformer.wpe.weight";
    QTest::newRow("unsupported dtype")
        << config("n_layer", 1) << with(one, {"wte.weight", "I64", {5, 4}})
        << st + "tensor wte.weight: dtype I64 is not supported (F32, F16 and BF16 are)";
}

void TestGpt2Checkpoint::refused()
{
    QFETCH(QByteArray, config);
    QFETCH(std::vector<Tensor>, tensors);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const auto c = readFolder(dir, config, tensors);
    QVERIFY(!c.ok());
    QCOMPARE(QString::fromStdString(c.error().message), message);
}

void TestGpt2Checkpoint::mappingKeptOnlyForF32()
{
    attn::Gpt2Config f32;
    f32.nLayer = 2;
    f32.nHead = 4;
    f32.nEmbd = 16;
    f32.nPositions = 64;
    f32.vocabSize = 50257;
    const auto file32 = attnlab::SafetensorsFile::open(kData + "tiny-gpt2/model.safetensors");
    QVERIFY(file32.ok());
    const auto c32 = attnlab::gpt2FromSafetensors(f32, file32.value());
    QVERIFY(c32.ok());
    QCOMPARE(file32->storage().use_count(), 2L);  // the file and the weights
    const auto* mapped = static_cast<const void*>(file32->tensors().front().bytes);
    QCOMPARE(static_cast<const void*>(c32->weights.wte.data), mapped);  // wte is the first tensor

    attn::Gpt2Config f16 = f32;
    f16.nLayer = 3;
    f16.nHead = 2;
    f16.nEmbd = 8;
    f16.nPositions = 32;
    const auto file16 = attnlab::SafetensorsFile::open(kData + "tiny-gpt2-lmhead-f16/model.safetensors");
    QVERIFY(file16.ok());
    const auto c16 = attnlab::gpt2FromSafetensors(f16, file16.value());
    QVERIFY(c16.ok());
    QCOMPARE(file16->storage().use_count(), 1L);  // converted whole: the weights let the mapping go
    QCOMPARE(c16->weights.wte.map()(0, 0), 1549.0f / 16384.0f);
}

void TestGpt2Checkpoint::missingFiles()
{
    QTemporaryDir dir;
    const auto noConfig = attnlab::readGpt2Checkpoint(dir.path());
    QVERIFY(!noConfig.ok());
    QVERIFY2(
        noConfig.error().message.rfind("cannot open '" + dir.filePath("config.json").toStdString(), 0) == 0,
        noConfig.error().message.c_str());
    writeFile(dir.filePath("config.json"), json(gpt2Config(1)));
    const auto noTensors = attnlab::readGpt2Checkpoint(dir.path());
    QVERIFY(!noTensors.ok());
    QCOMPARE(QString::fromStdString(noTensors.error().message),
             "cannot open '" + dir.filePath("model.safetensors") + "': no such file");
    // A folder saved in PyTorch's pickle format only is told so.
    writeFile(dir.filePath("pytorch_model.bin"), "PK");
    const auto pickled = attnlab::readGpt2Checkpoint(dir.path());
    QCOMPARE(QString::fromStdString(pickled.error().message),
             QDir(dir.path()).dirName()
                 + ": pytorch_model.bin but no model.safetensors; only safetensors checkpoints are read");
    // A safetensors file that is not one stops the folder with its own message.
    writeFile(dir.filePath("model.safetensors"), "{}");
    const auto bad = attnlab::readGpt2Checkpoint(dir.path());
    QCOMPARE(QString::fromStdString(bad.error().message),
             "model.safetensors: truncated: 2 bytes, too short for the 8-byte header length");
}

// A model is known by its canonical path and its files, not its folder's
// name: two copies called gpt2 differ, a link to one is that one, and a
// checkpoint copied over it (a new modification time or other bytes) is
// another model.
void TestGpt2Checkpoint::identityIsPathAndContents()
{
    QTemporaryDir root;
    const QDir source(kData + "tiny-gpt2");
    for (const char* place : {"a/gpt2", "b/gpt2"}) {
        QVERIFY(QDir(root.path()).mkpath(QLatin1String(place)));
        for (const QString& name : source.entryList(QDir::Files))
            QVERIFY(QFile::copy(source.filePath(name), root.filePath(QLatin1String(place)) + '/' + name));
    }
    const QString a = root.filePath("a/gpt2"), b = root.filePath("b/gpt2");
    const auto readA = attnlab::readModelFolder(a);
    QVERIFY2(readA.ok(), readA.ok() ? "" : readA.error().message.c_str());
    QCOMPARE(readA->identity, attnlab::gpt2FolderIdentity(a));
    QVERIFY(readA->identity.startsWith(QFileInfo(a).canonicalFilePath() + '#'));
    QCOMPARE(attnlab::gpt2FolderIdentity(a), attnlab::gpt2FolderIdentity(a));
    QVERIFY(attnlab::gpt2FolderIdentity(a) != attnlab::gpt2FolderIdentity(b));
    QVERIFY(QFile::link(a, root.filePath("link")));
    QCOMPARE(attnlab::gpt2FolderIdentity(root.filePath("link")), attnlab::gpt2FolderIdentity(a));

    const QString before = attnlab::gpt2FolderIdentity(a);
    QFile checkpoint(a + "/model.safetensors");
    QVERIFY(checkpoint.open(QIODevice::ReadWrite));
    QVERIFY(checkpoint.setFileTime(checkpoint.fileTime(QFileDevice::FileModificationTime).addSecs(-60),
                                   QFileDevice::FileModificationTime));
    checkpoint.close();
    const QString touched = attnlab::gpt2FolderIdentity(a);
    QVERIFY(touched != before);
    QFile config(a + "/config.json");
    QVERIFY(config.open(QIODevice::Append));
    QVERIFY(config.write("\n") == 1);
    config.close();
    QVERIFY(attnlab::gpt2FolderIdentity(a) != touched);
}

// The checkpoint is held in memory, not mapped: a model.safetensors cut
// short or copied over while the model is open (another download, a
// truncation) changes nothing, and the next pass computes on the numbers
// read, bit for bit those of the pass before. A mapped file faults (SIGBUS)
// on that pass.
void TestGpt2Checkpoint::fileChangedWhileOpen()
{
    QTemporaryDir dir;
    const QDir source(kData + "tiny-gpt2");
    for (const QString& name : source.entryList(QDir::Files))
        QVERIFY(QFile::copy(source.filePath(name), dir.filePath(name)));
    const auto model = attnlab::readModelFolder(dir.path());
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    const std::vector<int> ids = model->tokenizer->encodeIds(QStringLiteral("Jane is going to the cinema"));
    const auto before = model->decoder->run(ids);
    QVERIFY(before.ok());

    const QString path = dir.filePath("model.safetensors");
    for (const qint64 size : {qint64(4096), qint64(0)}) {
        QVERIFY(QFile::resize(path, size));
        const auto after = model->decoder->run(ids);
        QVERIFY(after.ok());
        QCOMPARE(after->lastLogits, before->lastLogits);
        QCOMPARE(after->layers.back().heads.back().context, before->layers.back().heads.back().context);
    }
    // Another file copied over it: still the numbers read.
    QVERIFY(QFile::remove(path));
    QVERIFY(QFile::copy(kData + "tiny-gpt2-lmhead-f16/model.safetensors", path));
    const auto replaced = model->decoder->run(ids);
    QVERIFY(replaced.ok());
    QCOMPARE(replaced->lastLogits, before->lastLogits);
}

// A model.safetensors that is no file is said to be what it is, as the
// other readers say it (readInputFile), not "no such file".
void TestGpt2Checkpoint::specialFilesNamed()
{
    QTemporaryDir dir;
    writeFile(dir.filePath("config.json"), json(gpt2Config(1)));
    const QString path = dir.filePath("model.safetensors");
    const auto message = [&] {
        const auto c = attnlab::readGpt2Checkpoint(dir.path());
        return c.ok() ? QString() : QString::fromStdString(c.error().message);
    };
    // A link to itself: a loop.
    QVERIFY(QFile::link(path, path));
    QCOMPARE(message(), "cannot open '" + path + "': " + QString::fromLocal8Bit(std::strerror(ELOOP)));
    QVERIFY(QFile::remove(path));
    // A folder.
    QVERIFY(QDir(dir.path()).mkdir("model.safetensors"));
    QCOMPARE(message(),
             QStringLiteral("model.safetensors: a folder, not a file; only regular files and pipes "
                            "can be read"));
    QVERIFY(QDir(dir.path()).rmdir("model.safetensors"));
    // A FIFO with no writer: read as empty at once, not waited on.
    QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    QCOMPARE(message(), QStringLiteral("model.safetensors: nothing came through the pipe (no program was "
                                       "writing to it)"));
    QVERIFY(QFile::remove(path));
    // A device.
    QVERIFY(QFile::link("/dev/zero", path));
    QCOMPARE(message(),
             QStringLiteral("model.safetensors: a device, not a file; only regular files and pipes "
                            "can be read"));
}

QTEST_APPLESS_MAIN(TestGpt2Checkpoint)
#include "tst_gpt2checkpoint.moc"
