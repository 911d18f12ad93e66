// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2checkpoint.h"

#include "configjson.h"

#include "echoedvalue.h"
#include "inputfile.h"
#include "safetensors.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace attnlab {

namespace {

constexpr long long kMaxConfigBytes = 1 << 20;
constexpr char kPrefix[] = "transformer.";
constexpr std::size_t kPrefixSize = sizeof(kPrefix) - 1;

// "h.3.attn.bias" -> 3 and "attn.bias"; false if `name` is not "h.N.rest".
bool splitLayer(const std::string& name, int& layer, std::string& rest)
{
    if (name.rfind("h.", 0) != 0)
        return false;
    std::size_t i = 2;
    long long n = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && n < 1'000'000)
        n = 10 * n + (name[i++] - '0');
    if (i == 2 || i >= name.size() || name[i] != '.')
        return false;
    layer = int(n);
    rest = name.substr(i + 1);
    return true;
}

std::string shapeText(const std::vector<std::int64_t>& shape)
{
    return echoedList(shape.size(), [&shape](std::size_t i) { return std::to_string(shape[i]); });
}

// Finds tensors by their name without the prefix, converts them and keeps
// what it converted.
class TensorTable {
public:
    TensorTable(const SafetensorsFile& file, std::vector<FloatBuffer>& converted)
        : file_(file), converted_(converted)
    {
    }

    attn::Status index()
    {
        for (const SafetensorsTensor& t : file_.tensors()) {
            const bool prefixed = t.name.compare(0, kPrefixSize, kPrefix) == 0;
            prefixed_ = prefixed_ || prefixed;
            const std::string key = prefixed ? t.name.substr(kPrefixSize) : t.name;
            const auto [it, fresh] = byKey_.emplace(key, &t);
            if (!fresh)
                return configFail(file_.name(), "tensor " + shownText(key) + " is stored twice, as "
                                                    + shownText(it->second->name) + " and "
                                                    + shownText(t.name));
        }
        return attn::okStatus();
    }

    bool has(const std::string& key) const { return byKey_.count(key) != 0; }

    // The tensor `key` as (rows, cols); `rows` 0 means a vector of `cols`.
    attn::Status take(const std::string& key, int rows, int cols, const char* meaning, attn::FloatTensor& out)
    {
        const auto it = byKey_.find(key);
        if (it == byKey_.end())
            return configFail(file_.name(), "tensor " + (prefixed_ ? kPrefix + key : key) + " is missing");
        const SafetensorsTensor& t = *it->second;
        const std::vector<std::int64_t> expected =
            rows == 0 ? std::vector<std::int64_t>{cols} : std::vector<std::int64_t>{rows, cols};
        if (t.shape != expected)
            return configFail(file_.name(), "tensor " + shownText(t.name) + " has shape " + t.shapeText()
                                                + " but " + shapeText(expected) + " was expected (" + meaning
                                                + ")");
        FloatBuffer owned;
        const attn::Expected<const float*> data = file_.floats(t, owned);
        if (!data.ok())
            return data.error();
        if (!owned.empty())
            converted_.push_back(std::move(owned));  // moving keeps the buffer where it is
        else
            inPlace_ = true;
        out.data = data.value();
        out.rows = rows == 0 ? 1 : rows;
        out.cols = cols;
        used_.insert(key);
        dtypes_.insert(t.dtype);
        return attn::okStatus();
    }

    // A tensor neither taken nor a mask buffer: the file is not this model.
    attn::Status checkAllUsed(int nLayer) const
    {
        for (const auto& [key, t] : byKey_) {
            if (used_.count(key))
                continue;
            int layer = 0;
            std::string rest;
            const bool inLayer = splitLayer(key, layer, rest);
            if (inLayer && (rest == "attn.bias" || rest == "attn.masked_bias"))
                continue;
            if (inLayer && layer >= nLayer)
                return configFail(file_.name(), "tensor " + shownText(t->name)
                                                    + " is beyond config.json's n_layer "
                                                    + std::to_string(nLayer) + " (layers 0 to "
                                                    + std::to_string(nLayer - 1) + ")");
            return configFail(file_.name(), "tensor " + shownText(t->name) + " is not part of a GPT-2 model");
        }
        return attn::okStatus();
    }

    // Whether a tensor points into the file's bytes (F32), which must then
    // stay in memory.
    bool inPlace() const { return inPlace_; }

    std::string dtype() const
    {
        std::string out;
        for (const std::string& d : dtypes_)
            out += (out.empty() ? "" : "+") + d;
        return out;
    }

private:
    const SafetensorsFile& file_;
    std::vector<FloatBuffer>& converted_;
    std::map<std::string, const SafetensorsTensor*> byKey_;
    std::set<std::string> used_;
    std::set<std::string> dtypes_;
    bool prefixed_ = false;
    bool inPlace_ = false;
};

// What the weights' storage holds: the file's bytes and the converted copies.
struct Gpt2Storage {
    std::shared_ptr<const void> file;
    std::vector<FloatBuffer> converted;
};

}  // namespace

attn::Expected<attn::Gpt2Config> parseGpt2Config(const QByteArray& json, std::string_view name)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return configFail(name, "not valid JSON: " + error.errorString().toStdString() + " at byte "
                                    + std::to_string(error.offset));
    if (!doc.isObject())
        return configFail(name, "not a JSON object");
    const QJsonObject o = doc.object();

    const QJsonValue type = o.value(QLatin1String("model_type"));
    if (!type.isString())
        return configFail(name, "no model_type (supported: gpt2)");
    if (type.toString() != QLatin1String("gpt2"))
        return configFail(name, "model_type \"" + shownText(type.toString().toStdString())
                                    + "\" is not supported (supported: gpt2)");

    attn::Gpt2Config c;
    for (const auto& [key, maximum, field] :
         {std::tuple<const char*, int, int*>{"n_layer", kMaxGpt2Layers, &c.nLayer},
          {"n_head", kMaxGpt2Heads, &c.nHead},
          {"n_embd", kMaxGpt2Embd, &c.nEmbd},
          {"n_positions", kMaxGpt2Positions, &c.nPositions},
          {"vocab_size", kMaxGpt2Vocab, &c.vocabSize}}) {
        const attn::Status read = readConfigCount(name, o, key, maximum, *field);
        if (!read.ok())
            return read.error();
    }
    if (c.nEmbd % c.nHead != 0)
        return configFail(name, "n_embd " + std::to_string(c.nEmbd) + " is not divisible by n_head "
                                    + std::to_string(c.nHead));

    const QJsonValue eps = o.value(QLatin1String("layer_norm_epsilon"));
    if (!eps.isUndefined()) {
        if (!eps.isDouble() || !(eps.toDouble() > 0 && eps.toDouble() < 1))
            return configFail(name, "layer_norm_epsilon must be a number above 0 and below 1");
        c.layerNormEpsilon = eps.toDouble();
    }
    const QJsonValue activation = o.value(QLatin1String("activation_function"));
    if (!activation.isUndefined() && activation.toString() != QLatin1String("gelu_new"))
        return configFail(name,
                          "activation_function \""
                              + (activation.isString() ? shownText(activation.toString().toStdString()) : "?")
                              + "\" is not supported (GPT-2 uses gelu_new)");
    const QJsonValue inner = o.value(QLatin1String("n_inner"));
    if (!inner.isUndefined() && !inner.isNull() && inner.toDouble() != 4.0 * c.nEmbd)
        return configFail(
            name, "n_inner other than 4 x n_embd = " + std::to_string(4 * c.nEmbd) + " is not supported");
    if (o.value(QLatin1String("scale_attn_weights")).toBool(true) != true)
        return configFail(
            name, "scale_attn_weights false is not supported (GPT-2 divides the scores by sqrt(head_dim))");
    if (o.value(QLatin1String("scale_attn_by_inverse_layer_idx")).toBool(false) != false)
        return configFail(
            name,
            "scale_attn_by_inverse_layer_idx true is not supported (GPT-2 divides the scores by "
            "sqrt(head_dim) only)");
    return c;
}

attn::Expected<Gpt2Checkpoint> gpt2FromSafetensors(const attn::Gpt2Config& config,
                                                   const SafetensorsFile& file)
{
    auto storage = std::make_shared<Gpt2Storage>();
    TensorTable table(file, storage->converted);
    if (const attn::Status indexed = table.index(); !indexed.ok())
        return indexed.error();

    Gpt2Checkpoint out;
    attn::Gpt2Weights& w = out.weights;
    w.config = config;
    const int e = config.nEmbd;
    std::vector<std::tuple<std::string, int, int, const char*, attn::FloatTensor*>> wanted = {
        {"wte.weight", config.vocabSize, e, "vocab_size x n_embd", &w.wte},
        {"wpe.weight", config.nPositions, e, "n_positions x n_embd", &w.wpe},
        {"ln_f.weight", 0, e, "n_embd", &w.lnFWeight},
        {"ln_f.bias", 0, e, "n_embd", &w.lnFBias},
    };
    w.blocks.resize(std::size_t(config.nLayer));
    for (int i = 0; i < config.nLayer; ++i) {
        attn::Gpt2Block& b = w.blocks[std::size_t(i)];
        const std::string h = "h." + std::to_string(i) + ".";
        wanted.insert(wanted.end(),
                      {
                          {h + "ln_1.weight", 0, e, "n_embd", &b.ln1Weight},
                          {h + "ln_1.bias", 0, e, "n_embd", &b.ln1Bias},
                          {h + "attn.c_attn.weight", e, 3 * e, "n_embd x 3 n_embd", &b.attnWeight},
                          {h + "attn.c_attn.bias", 0, 3 * e, "3 n_embd", &b.attnBias},
                          {h + "attn.c_proj.weight", e, e, "n_embd x n_embd", &b.attnProjWeight},
                          {h + "attn.c_proj.bias", 0, e, "n_embd", &b.attnProjBias},
                          {h + "ln_2.weight", 0, e, "n_embd", &b.ln2Weight},
                          {h + "ln_2.bias", 0, e, "n_embd", &b.ln2Bias},
                          {h + "mlp.c_fc.weight", e, 4 * e, "n_embd x 4 n_embd", &b.fcWeight},
                          {h + "mlp.c_fc.bias", 0, 4 * e, "4 n_embd", &b.fcBias},
                          {h + "mlp.c_proj.weight", 4 * e, e, "4 n_embd x n_embd", &b.mlpProjWeight},
                          {h + "mlp.c_proj.bias", 0, e, "n_embd", &b.mlpProjBias},
                      });
    }
    w.lmHeadTied = !table.has("lm_head.weight");
    if (!w.lmHeadTied)
        wanted.emplace_back("lm_head.weight", config.vocabSize, e, "vocab_size x n_embd", &w.lmHead);
    for (const auto& [key, rows, cols, meaning, tensor] : wanted)
        if (const attn::Status taken = table.take(key, rows, cols, meaning, *tensor); !taken.ok())
            return taken.error();
    if (w.lmHeadTied)
        w.lmHead = w.wte;
    if (const attn::Status all = table.checkAllUsed(config.nLayer); !all.ok())
        return all.error();
    out.dtype = table.dtype();
    // A checkpoint converted whole (F16, BF16) lets the file's bytes go: they
    // need not stay in memory beside the float32 copies.
    if (table.inPlace())
        storage->file = file.storage();
    w.storage = std::move(storage);
    return out;
}

attn::Expected<Gpt2Checkpoint> readGpt2Checkpoint(const QString& folder)
{
    const QDir dir(folder);
    const attn::Expected<QByteArray> json =
        readInputFile(dir.filePath(QStringLiteral("config.json")), kMaxConfigBytes, "config.json");
    if (!json.ok())
        return json.error();
    return readGpt2Checkpoint(folder, json.value());
}

attn::Expected<Gpt2Checkpoint> readGpt2Checkpoint(const QString& folder, const QByteArray& configJson)
{
    const QDir dir(folder);
    const attn::Expected<attn::Gpt2Config> config = parseGpt2Config(configJson, "config.json");
    if (!config.ok())
        return config.error();
    const QString model = dir.filePath(QStringLiteral("model.safetensors"));
    if (!QFileInfo::exists(model) && !QFileInfo(model).isSymLink()
        && QFileInfo::exists(dir.filePath(QStringLiteral("pytorch_model.bin"))))
        return attn::Error{
            dir.dirName().toStdString()
            + ": pytorch_model.bin but no model.safetensors; only safetensors checkpoints are read"};
    const attn::Expected<SafetensorsFile> file = SafetensorsFile::open(model);
    if (!file.ok())
        return file.error();
    return gpt2FromSafetensors(config.value(), file.value());
}

}  // namespace attnlab
