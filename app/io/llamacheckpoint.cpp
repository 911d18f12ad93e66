// SPDX-License-Identifier: GPL-3.0-or-later
#include "llamacheckpoint.h"

#include "configjson.h"

#include "safetensors.h"
#include "safetensorsshards.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <cmath>
#include <tuple>
#include <vector>

namespace attnlab {

namespace {

constexpr const char* kModelTypes[] = {"llama", "qwen2", "qwen3", "mistral"};

bool absent(const QJsonValue& v)
{
    return v.isUndefined() || v.isNull();
}

// A whole number from 1 to `maximum` (readConfigCount); `fallback` (if not 0)
// when absent or null.
attn::Status readCount(std::string_view file, const QJsonObject& o, const char* key, int maximum,
                       int fallback, int& out)
{
    if (absent(o.value(QLatin1String(key)))) {
        if (fallback == 0)
            return configFail(file, std::string("no ") + key);
        out = fallback;
        return attn::okStatus();
    }
    return readConfigCount(file, o, key, maximum, out);
}

// A number in (low, high); `out` unchanged when absent or null.
attn::Status readNumber(std::string_view file, const QJsonObject& o, const char* key, double low, double high,
                        double& out, const char* where = "")
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (absent(v))
        return attn::okStatus();
    if (!v.isDouble() || !(v.toDouble() > low && v.toDouble() < high))
        return configFail(file, std::string(where) + key + " must be a number above "
                                    + QString::number(low).toStdString() + " and below "
                                    + QString::number(high, 'g', 3).toStdString() + ", not "
                                    + configValueText(v));
    out = v.toDouble();
    return attn::okStatus();
}

attn::Status readFlag(std::string_view file, const QJsonObject& o, const char* key, bool& out)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (absent(v))
        return attn::okStatus();
    if (!v.isBool())
        return configFail(file, std::string(key) + " must be true or false, not " + configValueText(v));
    out = v.toBool();
    return attn::okStatus();
}

attn::Status readRopeScaling(std::string_view file, const QJsonObject& o, attn::Llama3RopeScaling& out)
{
    const QJsonValue v = o.value(QLatin1String("rope_scaling"));
    if (absent(v))
        return attn::okStatus();
    if (!v.isObject())
        return configFail(file, "rope_scaling must be an object or null, not " + configValueText(v));
    const QJsonObject s = v.toObject();
    QJsonValue type = s.value(QLatin1String("rope_type"));
    if (absent(type))
        type = s.value(QLatin1String("type"));
    if (!type.isString())
        return configFail(file, "rope_scaling has no rope_type");
    const QString name = type.toString();
    if (name == QLatin1String("default"))
        return attn::okStatus();
    if (name != QLatin1String("llama3"))
        return configFail(file, "rope_scaling type \"" + shownText(name.toStdString())
                                    + "\" is not supported (supported: llama3)");
    out.enabled = true;
    const char* where = "rope_scaling's ";
    for (const auto& [key, field] : {std::pair<const char*, double*>{"factor", &out.factor},
                                     {"low_freq_factor", &out.lowFreqFactor},
                                     {"high_freq_factor", &out.highFreqFactor}}) {
        if (absent(s.value(QLatin1String(key))))
            return configFail(file, std::string(where) + key + " is missing (llama3 needs it)");
        if (attn::Status r = readNumber(file, s, key, 0, 1e6, *field, where); !r)
            return r;
    }
    if (!(out.highFreqFactor > out.lowFreqFactor))
        return configFail(file, "rope_scaling's high_freq_factor must be above its low_freq_factor");
    return readCount(file, s, "original_max_position_embeddings", kMaxLlamaPositions, 0,
                     out.originalMaxPositions);
}

std::string layerPrefix(int layer)
{
    return "model.layers." + std::to_string(layer) + ".";
}

// "model.layers.12.rest" -> 12, "rest"; false for another name.
bool splitLayer(const std::string& name, int& layer, std::string& rest)
{
    const std::string head = "model.layers.";
    if (name.rfind(head, 0) != 0)
        return false;
    std::size_t i = head.size();
    long long n = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && n < 1'000'000)
        n = 10 * n + (name[i++] - '0');
    if (i == head.size() || i >= name.size() || name[i] != '.')
        return false;
    layer = int(n);
    rest = name.substr(i + 1);
    return true;
}

}  // namespace

bool isLlamaModelType(std::string_view modelType)
{
    for (const char* type : kModelTypes)
        if (modelType == type)
            return true;
    return false;
}

attn::Expected<attn::LlamaConfig> parseLlamaConfig(const QByteArray& json, std::string_view name)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return configFail(name, "not valid JSON: " + error.errorString().toStdString() + " at byte "
                                    + std::to_string(error.offset));
    if (!doc.isObject())
        return configFail(name, "not a JSON object");
    const QJsonObject o = doc.object();

    attn::LlamaConfig c;
    const QJsonValue type = o.value(QLatin1String("model_type"));
    c.family = type.toString().toStdString();
    if (!type.isString() || !isLlamaModelType(c.family))
        return configFail(
            name, "model_type " + configValueText(type) + " is not one of llama, qwen2, qwen3, mistral");
    const QJsonValue architectures = o.value(QLatin1String("architectures"));
    if (!absent(architectures)) {
        if (!architectures.isArray() || architectures.toArray().isEmpty())
            return configFail(name, "architectures must be a list of names");
        for (const QJsonValue& a : architectures.toArray())
            if (!a.isString() || !a.toString().endsWith(QLatin1String("ForCausalLM")))
                return configFail(name, "architectures names " + configValueText(a)
                                            + ", not a causal language model (*ForCausalLM)");
    }

    for (const auto& [key, maximum, field] :
         {std::tuple<const char*, int, int*>{"num_hidden_layers", kMaxLlamaLayers, &c.layers},
          {"num_attention_heads", kMaxLlamaHeads, &c.heads},
          {"hidden_size", kMaxLlamaWidth, &c.width},
          {"intermediate_size", kMaxLlamaIntermediate, &c.intermediate},
          {"vocab_size", kMaxLlamaVocab, &c.vocabSize},
          {"max_position_embeddings", kMaxLlamaPositions, &c.maxPositions}})
        if (attn::Status s = readCount(name, o, key, maximum, 0, *field); !s)
            return s.error();
    if (attn::Status s = readCount(name, o, "num_key_value_heads", kMaxLlamaHeads, c.heads, c.kvHeads); !s)
        return s.error();
    if (c.heads % c.kvHeads != 0)
        return configFail(name, "num_key_value_heads " + std::to_string(c.kvHeads)
                                    + " does not divide num_attention_heads " + std::to_string(c.heads));
    if (absent(o.value(QLatin1String("head_dim"))) && c.width % c.heads != 0)
        return configFail(name, "hidden_size " + std::to_string(c.width)
                                    + " is not divisible by num_attention_heads " + std::to_string(c.heads)
                                    + " and no head_dim is given");
    if (attn::Status s =
            readCount(name, o, "head_dim", kMaxLlamaHeadDim, std::max(c.width / c.heads, 1), c.headDim);
        !s)
        return s.error();
    if (c.headDim % 2 != 0)
        return configFail(
            name, "head_dim " + std::to_string(c.headDim) + " is odd (RoPE rotates pairs of dimensions)");

    if (attn::Status s = readNumber(name, o, "rms_norm_eps", 0, 1, c.rmsNormEps); !s)
        return s.error();
    if (attn::Status s = readNumber(name, o, "rope_theta", 1, 1e12, c.ropeTheta); !s)
        return s.error();
    if (attn::Status s = readRopeScaling(name, o, c.ropeScaling); !s)
        return s.error();

    const QJsonValue act = o.value(QLatin1String("hidden_act"));
    if (!absent(act) && act.toString() != QLatin1String("silu"))
        return configFail(name,
                          "hidden_act " + configValueText(act) + " is not supported (the family uses silu)");
    bool mlpBias = false, attentionBias = false, useSlidingWindow = false, tied = false;
    for (const auto& [key, field] : {std::pair<const char*, bool*>{"mlp_bias", &mlpBias},
                                     {"attention_bias", &attentionBias},
                                     {"use_sliding_window", &useSlidingWindow},
                                     {"tie_word_embeddings", &tied}})
        if (attn::Status s = readFlag(name, o, key, *field); !s)
            return s.error();
    if (mlpBias)
        return configFail(name, "mlp_bias true is not supported");
    if (c.family == "qwen2") {
        c.qkvBias = true;  // Qwen2Attention: q, k, v with bias, o without
    } else if (c.family != "mistral") {
        c.qkvBias = c.oBias = attentionBias;
    }
    c.qkNorm = c.family == "qwen3";
    if ((c.family == "qwen2" || c.family == "qwen3") && useSlidingWindow)
        return configFail(name, "use_sliding_window true is not supported");
    if (c.family == "mistral") {
        int window = 0;
        if (attn::Status s = readCount(name, o, "sliding_window", kMaxLlamaPositions, -1, window); !s)
            return s.error();
        c.slidingWindow = window < 0 ? 0 : window;
    }
    c.tieWordEmbeddings = tied;
    return c;
}

attn::Expected<LlamaCheckpoint> llamaFromShards(const attn::LlamaConfig& config, SafetensorsShards& shards,
                                                Bf16Matrices bf16)
{
    shards.keepBf16MatricesInPlace(
        bf16 == Bf16Matrices::InPlace
        || (bf16 == Bf16Matrices::Auto && shards.dataBytes() >= kBf16InPlaceBytes));
    LlamaCheckpoint out;
    attn::LlamaWeights& w = out.weights;
    w.config = config;
    const int e = config.width, hd = config.headDim, qw = config.heads * hd, kw = config.kvHeads * hd,
              in = config.intermediate;
    std::vector<std::tuple<std::string, int, int, const char*, attn::FloatTensor*>> wanted = {
        {"model.embed_tokens.weight", config.vocabSize, e, "vocab_size x hidden_size", &w.embed},
        {"model.norm.weight", 0, e, "hidden_size", &w.norm},
    };
    w.blocks.resize(std::size_t(config.layers));
    for (int l = 0; l < config.layers; ++l) {
        attn::LlamaBlock& b = w.blocks[std::size_t(l)];
        const std::string p = layerPrefix(l);
        wanted.insert(
            wanted.end(),
            {
                {p + "input_layernorm.weight", 0, e, "hidden_size", &b.inputNorm},
                {p + "self_attn.q_proj.weight", qw, e, "heads x head_dim, hidden_size", &b.q},
                {p + "self_attn.k_proj.weight", kw, e, "key/value heads x head_dim, hidden_size", &b.k},
                {p + "self_attn.v_proj.weight", kw, e, "key/value heads x head_dim, hidden_size", &b.v},
                {p + "self_attn.o_proj.weight", e, qw, "hidden_size, heads x head_dim", &b.o},
                {p + "post_attention_layernorm.weight", 0, e, "hidden_size", &b.postNorm},
                {p + "mlp.gate_proj.weight", in, e, "intermediate_size x hidden_size", &b.gate},
                {p + "mlp.up_proj.weight", in, e, "intermediate_size x hidden_size", &b.up},
                {p + "mlp.down_proj.weight", e, in, "hidden_size x intermediate_size", &b.down},
            });
        if (config.qkvBias)
            wanted.insert(wanted.end(),
                          {
                              {p + "self_attn.q_proj.bias", 0, qw, "heads x head_dim", &b.qBias},
                              {p + "self_attn.k_proj.bias", 0, kw, "key/value heads x head_dim", &b.kBias},
                              {p + "self_attn.v_proj.bias", 0, kw, "key/value heads x head_dim", &b.vBias},
                          });
        if (config.oBias)
            wanted.emplace_back(p + "self_attn.o_proj.bias", 0, e, "hidden_size", &b.oBias);
        if (config.qkNorm)
            wanted.insert(wanted.end(), {
                                            {p + "self_attn.q_norm.weight", 0, hd, "head_dim", &b.qNorm},
                                            {p + "self_attn.k_norm.weight", 0, hd, "head_dim", &b.kNorm},
                                        });
    }
    // As transformers ties them: tie_word_embeddings true reads the logits
    // against the embeddings (an lm_head.weight stored as well is a copy and
    // is skipped); false needs lm_head.weight.
    w.lmHeadTied = config.tieWordEmbeddings;
    if (!w.lmHeadTied) {
        if (!shards.has("lm_head.weight"))
            return configFail(shards.source(),
                              "tensor lm_head.weight is missing (config.json's tie_word_embeddings is "
                              "false)");
        wanted.emplace_back("lm_head.weight", config.vocabSize, e, "vocab_size x hidden_size", &w.lmHead);
    }
    for (const auto& [key, rows, cols, meaning, tensor] : wanted)
        if (attn::Status taken = shards.take(key, rows, cols, meaning, *tensor); !taken)
            return taken.error();
    if (w.lmHeadTied)
        w.lmHead = w.embed;
    for (const std::string& name : shards.untaken()) {
        int layer = 0;
        std::string rest;
        const bool inLayer = splitLayer(name, layer, rest);
        if ((inLayer && rest == "self_attn.rotary_emb.inv_freq")
            || (w.lmHeadTied && name == "lm_head.weight"))
            continue;
        if (inLayer && layer >= config.layers)
            return configFail(shards.fileOf(name), "tensor " + shownText(name)
                                                       + " is beyond config.json's num_hidden_layers "
                                                       + std::to_string(config.layers));
        return configFail(shards.fileOf(name), "tensor " + shownText(name) + " is not part of a "
                                                   + config.family + " model of this config.json");
    }
    out.dtype = shards.dtype();
    w.storage = shards.storage();
    return out;
}

attn::Expected<LlamaCheckpoint> readLlamaCheckpoint(const QString& folder, const QByteArray& configJson)
{
    const attn::Expected<attn::LlamaConfig> config = parseLlamaConfig(configJson, "config.json");
    if (!config)
        return config.error();
    attn::Expected<SafetensorsShards> shards = SafetensorsShards::open(folder);
    if (!shards)
        return shards.error();
    return llamaFromShards(config.value(), shards.value());
}

}  // namespace attnlab
