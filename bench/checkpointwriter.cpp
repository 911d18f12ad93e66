// SPDX-License-Identifier: GPL-3.0-or-later
#include "checkpointwriter.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtEndian>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace bench {

qint64 TensorShape::count() const
{
    qint64 n = 1;
    for (const qint64 d : dims)
        n *= d;
    return n;
}

qint64 writeRandomSafetensors(const QString& path, const std::vector<TensorShape>& shapes, const char* dtype)
{
    const bool bf16 = std::strcmp(dtype, "BF16") == 0;
    const qint64 width = bf16 ? 2 : 4;
    QJsonObject header{{"__metadata__", QJsonObject{{"format", "pt"}}}};
    qint64 offset = 0;
    qint64 parameters = 0;
    for (const TensorShape& s : shapes) {
        QJsonArray dims;
        for (const qint64 d : s.dims)
            dims.append(d);
        const qint64 bytes = width * s.count();
        header.insert(QString::fromStdString(s.name),
                      QJsonObject{{"dtype", QString::fromLatin1(dtype)},
                                  {"shape", dims},
                                  {"data_offsets", QJsonArray{offset, offset + bytes}}});
        offset += bytes;
        if (s.dims.size() != 4)  // GPT-2's (1, 1, n_positions, n_positions) masks are buffers
            parameters += s.count();
    }
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (json.size() % 8 != 0)
        json += ' ';
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return 0;
    uchar length[8];
    qToLittleEndian(quint64(json.size()), length);
    f.write(reinterpret_cast<const char*>(length), 8);
    f.write(json);
    std::vector<float> chunk(1 << 18);
    std::vector<quint16> halves(bf16 ? chunk.size() : 0);
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    qint64 left = offset / width;
    while (left > 0) {
        const qint64 n = std::min<qint64>(left, qint64(chunk.size()));
        for (qint64 i = 0; i < n; ++i) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            chunk[std::size_t(i)] = float(double(state >> 11) * 0x1p-53 * 0.2 - 0.1);
        }
        bool written = false;
        if (bf16) {
            for (qint64 i = 0; i < n; ++i) {  // the upper 16 bits (truncation: the numbers are random)
                std::uint32_t bits = 0;
                std::memcpy(&bits, &chunk[std::size_t(i)], 4);
                halves[std::size_t(i)] = quint16(bits >> 16);
            }
            written = f.write(reinterpret_cast<const char*>(halves.data()), n * 2) == n * 2;
        } else {
            written = f.write(reinterpret_cast<const char*>(chunk.data()), n * 4) == n * 4;
        }
        if (!written)
            return 0;
        left -= n;
    }
    return parameters;
}

LlamaShape smolLm2Shape()
{
    LlamaShape s;
    s.modelType = "llama";
    s.layers = 30;
    s.heads = 9;
    s.kvHeads = 3;
    s.width = 576;
    s.intermediate = 1536;
    // SmolLM2's is 49152; the bench borrows GPT-2's tokenizer.json (50257
    // tokens) and the reader refuses a tokenizer larger than vocab_size.
    s.vocab = 50257;
    s.positions = 2048;
    s.ropeTheta = 100000;
    s.tied = true;
    return s;
}

LlamaShape qwen25Shape()
{
    LlamaShape s;
    s.modelType = "qwen2";
    s.layers = 24;
    s.heads = 14;
    s.kvHeads = 2;
    s.width = 896;
    s.intermediate = 4864;
    s.vocab = 151936;
    s.positions = 32768;
    s.ropeTheta = 1000000;
    s.rmsNormEps = 1e-6;
    s.tied = true;
    return s;
}

qint64 writeLlamaFolder(const QString& folder, const LlamaShape& shape, const QString& tokenizerJson,
                        const char* dtype)
{
    const bool qwen2 = std::strcmp(shape.modelType, "qwen2") == 0;
    const QJsonObject config{{"architectures", QJsonArray{qwen2 ? "Qwen2ForCausalLM" : "LlamaForCausalLM"}},
                             {"model_type", shape.modelType},
                             {"num_hidden_layers", shape.layers},
                             {"num_attention_heads", shape.heads},
                             {"num_key_value_heads", shape.kvHeads},
                             {"hidden_size", shape.width},
                             {"intermediate_size", shape.intermediate},
                             {"vocab_size", shape.vocab},
                             {"max_position_embeddings", shape.positions},
                             {"rope_theta", shape.ropeTheta},
                             {"rms_norm_eps", shape.rmsNormEps},
                             {"tie_word_embeddings", shape.tied},
                             {"hidden_act", "silu"},
                             {"torch_dtype", std::strcmp(dtype, "BF16") == 0 ? "bfloat16" : "float32"}};
    QFile configFile(QDir(folder).filePath(QStringLiteral("config.json")));
    if (!configFile.open(QIODevice::WriteOnly) || configFile.write(QJsonDocument(config).toJson()) <= 0)
        return 0;
    configFile.close();
    if (!QFile::copy(tokenizerJson, QDir(folder).filePath(QStringLiteral("tokenizer.json"))))
        return 0;

    const qint64 e = shape.width, hd = shape.width / shape.heads, q = shape.heads * hd,
                 kv = shape.kvHeads * hd, in = shape.intermediate;
    std::vector<TensorShape> shapes = {{"model.embed_tokens.weight", {shape.vocab, e}},
                                       {"model.norm.weight", {e}}};
    for (int l = 0; l < shape.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        shapes.insert(shapes.end(), {{p + "input_layernorm.weight", {e}},
                                     {p + "self_attn.q_proj.weight", {q, e}},
                                     {p + "self_attn.k_proj.weight", {kv, e}},
                                     {p + "self_attn.v_proj.weight", {kv, e}},
                                     {p + "self_attn.o_proj.weight", {e, q}},
                                     {p + "post_attention_layernorm.weight", {e}},
                                     {p + "mlp.gate_proj.weight", {in, e}},
                                     {p + "mlp.up_proj.weight", {in, e}},
                                     {p + "mlp.down_proj.weight", {e, in}}});
        if (qwen2)
            shapes.insert(shapes.end(), {{p + "self_attn.q_proj.bias", {q}},
                                         {p + "self_attn.k_proj.bias", {kv}},
                                         {p + "self_attn.v_proj.bias", {kv}}});
    }
    if (!shape.tied)
        shapes.push_back({"lm_head.weight", {shape.vocab, e}});
    return writeRandomSafetensors(QDir(folder).filePath(QStringLiteral("model.safetensors")), shapes, dtype);
}

}  // namespace bench
