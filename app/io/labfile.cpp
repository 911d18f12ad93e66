// SPDX-License-Identifier: GPL-3.0-or-later
#include "labfile.h"

#include "inputfile.h"
#include "jsonvalue.h"
#include "jsonwriter.h"
#include "labheads.h"
#include "labreader.h"
#include "size_limits.h"
#include "stagedwrite.h"
#include "tokenizer.h"

#include <QFileInfo>
#include <QJsonArray>

#include <charconv>
#include <cmath>
#include <optional>
#include <system_error>

namespace attnlab {

namespace {

using Layout = JsonWriter::Layout;
using Type = JsonValue::Type;

const char* const kKnownKeys[] = {"format",     "version",       "app_version", "sentence", "tokenizer",
                                  "seed",       "d_model",       "d_k",         "d_v",      "init",
                                  "scale_mode", "scale_divisor", "causal",      "X",        "W_q",
                                  "W_k",        "W_v",           "view",        "mask"};
// Version 2's: the multi-head lab (labheads.h).
const char* const kHeadsKey = "heads";

// The largest lab's values: a matrix row is one, and the heads may have
// 3 h d_model + h d_v <= 262,144 rows besides X's 4,096 and W_q, W_k,
// W_v's 3,072 (the numbers are JsonLimits' default, 2^24 > kMaxLabNumbers).
constexpr long long kMaxLabJsonValues = 1 << 19;
static_assert(3LL * attn::kMaxHeads * attn::kMaxDModel + 1LL * attn::kMaxHeads * attn::kMaxDHead
                  + attn::kMaxTokens + 3 * attn::kMaxDModel
              < kMaxLabJsonValues);
static_assert(attn::kMaxLabNumbers < JsonLimits().maxNumbers);

// The view's numbers go through double (see JsonValue::toQJsonValue);
// integral ones are written as integers.
void writeQJson(JsonWriter& json, const QJsonValue& value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined: json.null(); break;
    case QJsonValue::Bool: json.value(value.toBool()); break;
    case QJsonValue::Double: {
        const double d = value.toDouble();
        if (std::isfinite(d) && d == std::trunc(d) && std::abs(d) < 9.2e18 && !(d == 0 && std::signbit(d)))
            json.value(std::int64_t(value.toInteger(std::int64_t(d))));
        else
            json.value(d);
        break;
    }
    case QJsonValue::String: json.value(std::string_view(value.toString().toStdString())); break;
    case QJsonValue::Array: {
        const QJsonArray array = value.toArray();
        json.beginArray(Layout::Inline);
        for (const QJsonValue& item : array)
            writeQJson(json, item);
        json.endArray();
        break;
    }
    case QJsonValue::Object: {
        const QJsonObject object = value.toObject();
        json.beginObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            json.key(it.key().toStdString());
            writeQJson(json, it.value());
        }
        json.endObject();
        break;
    }
    }
}

// The first few keys, so that a file of many unknown keys gives one short line.
std::string joined(const std::vector<std::string>& items)
{
    constexpr std::size_t kShown = 8;
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < kShown; ++i)
        text += (text.empty() ? "" : ", ") + quotedKey(items[i]);
    if (items.size() > kShown)
        text += " and " + std::to_string(items.size() - kShown) + " more";
    return text;
}

}  // namespace

LabState labStateFromSnapshot(const AttentionSnapshot& snapshot, const QJsonObject& view)
{
    LabState state;
    state.config = snapshot.config;
    state.options = snapshot.options;
    state.X = snapshot.X;
    state.Wq = snapshot.headWeights().Wq;
    state.Wk = snapshot.headWeights().Wk;
    state.Wv = snapshot.headWeights().Wv;
    state.config.dModel = int(state.X.cols());
    state.config.dK = int(state.Wq.cols());
    state.config.dV = int(state.Wv.cols());
    state.view = view;
    attn::HeadsConfig& c = state.heads;
    c.heads = snapshot.headCount();
    c.layout = snapshot.layout();
    c.outputProjection = c.layout == attn::HeadLayout::Independent && snapshot.Wo.size() > 0;
    c.torchInit = snapshot.headInit == "torch-mha";
    // One head without a projection: the single-head lab, head 1 alone.
    if (!c.multiHead())
        return state;
    state.multiHead.layout = c.layout;
    if (c.layout == attn::HeadLayout::Split) {
        state.multiHead.split = snapshot.split;
    } else {
        state.multiHead.independent.heads = snapshot.weights;
        state.multiHead.independent.Wo = snapshot.Wo;
    }
    state.selectedHead = 0;
    return state;
}

attn::Status validateLabState(const LabState& s)
{
    if (s.borrowed.active())
        return attn::Error{"The pipeline shows GPT-2 layer " + std::to_string(s.borrowed.layer + 1) + ", head "
                           + std::to_string(s.borrowed.head + 1) + " of " + s.borrowed.model.toStdString()
                           + ": its tokens are GPT-2's pieces, which a lab file cannot hold. Export the views "
                             "instead, or change the sentence or a parameter for a lab of your own."};
    const attn::Status dimensions = attn::validateDimensions(s.config.dModel, s.config.dK, s.config.dV);
    if (!dimensions)
        return dimensions;
    const attn::Expected<attn::Tokenization> tokens = attn::tokenize(s.config.sentence, s.config.tokenizer);
    if (!tokens)
        return attn::Error{"\"sentence\": " + tokens.error().message};
    const Eigen::Index n = Eigen::Index(tokens->tokens.size());
    const std::string tokensWhat = std::to_string(n) + " tokens of \"sentence\"";
    const int dModel = s.config.dModel, dK = s.config.dK, dV = s.config.dV;
    for (const attn::Status& shape : {checkMatrixShape("\"X\"", s.X, n, dModel, tokensWhat + " x d_model"),
                                      checkMatrixShape("\"W_q\"", s.Wq, dModel, dK, "d_model x d_k"),
                                      checkMatrixShape("\"W_k\"", s.Wk, dModel, dK, "d_model x d_k"),
                                      checkMatrixShape("\"W_v\"", s.Wv, dModel, dV, "d_model x d_v")}) {
        if (!shape)
            return shape;
    }
    const attn::Status inputs = attn::validateInputs(s.X, s.Wq, s.Wk, s.Wv);
    if (!inputs)
        return inputs;
    const attn::Expected<double> divisor = attn::scaleDivisor(s.options, dK);
    if (!divisor)
        return attn::Error{"\"scale_divisor\": " + divisor.error().message};
    return s.heads.multiHead() ? validateLabHeads(s) : attn::okStatus();
}

attn::Expected<AttentionSnapshot> computeLabSnapshot(const LabState& state)
{
    if (attn::Status valid = validateLabState(state); !valid)
        return valid.error();
    attn::Tokenization tokens = attn::tokenizeFor(state.config).value();
    if (!state.heads.multiHead()) {
        attn::Model model;
        model.tokenization = std::move(tokens);
        model.X = state.X;
        model.Wq = state.Wq;
        model.Wk = state.Wk;
        model.Wv = state.Wv;
        return computeSnapshotFromMatrices(state.config, state.options, std::move(model));
    }
    const std::string init = state.heads.torchInit ? "torch-mha" : attn::initModeName(state.config.init);
    if (state.heads.layout == attn::HeadLayout::Split)
        return computeMultiHeadSnapshot(state.config, state.options, std::move(tokens), state.X,
                                        state.multiHead.split, init);
    return computeMultiHeadSnapshot(state.config, state.options, std::move(tokens), state.X,
                                    state.multiHead.independent, init);
}

void writeLabJson(std::ostream& out, const LabState& s)
{
    JsonWriter json(out);
    json.beginObject();
    json.key("format");
    json.value(kLabFormatName);
    json.key("version");
    json.value(kLabFormatVersion);
    json.key("app_version");
    json.value(ATTNLAB_VERSION);
    json.key("sentence");
    json.value(std::string_view(s.config.sentence));
    json.key("tokenizer");
    json.value(attn::tokenizerModeName(s.config.tokenizer));
    json.key("seed");
    json.value(std::uint64_t(s.config.seed));
    json.key("d_model");
    json.value(s.config.dModel);
    json.key("d_k");
    json.value(s.config.dK);
    json.key("d_v");
    json.value(s.config.dV);
    json.key("init");
    json.value(attn::initModeName(s.config.init));
    json.key("scale_mode");
    json.value(attn::scaleModeName(s.options.scale));
    json.key("scale_divisor");
    json.value(s.options.customDivisor);
    // "causal" is true for every mask that hides the keys after the query,
    // so that an Attention Lab that does not know "mask" opens a windowed
    // lab as causal (warning that it left "mask" out); "mask" is written
    // for the masks beyond causal only, leaving other labs' files as they were.
    const attn::AttentionMask mask = s.options.effectiveMask();
    json.key("causal");
    json.value(mask.kind != attn::AttentionMask::Kind::None);
    if (mask.kind == attn::AttentionMask::Kind::Sliding
        || mask.kind == attn::AttentionMask::Kind::SinkWindow) {
        json.key("mask");
        json.value(std::string_view(mask.name()));
    }
    const std::pair<const char*, const attn::Matrix*> matrices[] = {
        {"X", &s.X}, {"W_q", &s.Wq}, {"W_k", &s.Wk}, {"W_v", &s.Wv}};
    for (const auto& [name, m] : matrices) {
        json.key(name);
        writeJsonMatrix(json, *m);
    }
    writeLabHeads(json, s);
    json.key("view");
    writeQJson(json, s.view);
    json.endObject();
    json.finish();
}

attn::Expected<LabState> parseLab(std::string_view text)
{
    JsonLimits limits;
    limits.maxValues = kMaxLabJsonValues;
    attn::Expected<JsonValue> parsed = parseJson(text, limits);
    if (!parsed)
        return attn::Error{"not a readable lab file: " + parsed.error().message};
    const JsonValue& root = parsed.value();
    if (!root.isObject())
        return attn::Error{std::string("not a lab file: the JSON document is ")
                           + JsonValue::typeName(root.type()) + ", not an object"};

    LabState state;
    LabReader read(root);
    const JsonValue* format = root.find("format");
    if (!format || !format->isString() || format->text() != kLabFormatName)
        return attn::Error{std::string("not an Attention Lab file: \"format\" must be \"") + kLabFormatName
                           + "\"" + (format && format->isString() ? ", not \"" + format->text() + "\"" : "")};

    int version = 1;
    if (root.find("version")) {
        version = read.integer<int>("version", 1, 1 << 30);
        if (read.error())
            return *read.error();
    } else {
        state.warnings.push_back("the file names no \"version\"; it was read as version 1");
    }
    if (version > kLabFormatVersion) {
        // A newer file may hold what this version cannot show (more heads,
        // layers): refused rather than opened as part of itself.
        std::string message =
            "the file is version " + std::to_string(version) + ", written by a newer Attention Lab";
        if (const JsonValue* app = root.find("app_version"); app && app->isString())
            message += " (" + app->text() + ")";
        return attn::Error{message + "; this Attention Lab (" ATTNLAB_VERSION ") reads versions 1 to "
                           + std::to_string(kLabFormatVersion)};
    }
    std::vector<std::string> unknown;
    for (const auto& [key, value] : root.members()) {
        bool known = version >= 2 && key == kHeadsKey;
        for (const char* k : kKnownKeys)
            known = known || key == k;
        if (!known)
            unknown.push_back(key);
    }
    if (!unknown.empty())
        state.warnings.push_back("unknown fields were left out: " + joined(unknown));

    attn::ModelConfig& c = state.config;
    c.sentence = read.string("sentence");
    const std::string tokenizer = read.string("tokenizer");
    if (!read.error() && !attn::parseTokenizerMode(tokenizer, &c.tokenizer))
        return attn::Error{"\"tokenizer\" must be \"article\" or \"punctuation\", not \"" + tokenizer + "\""};
    c.seed = read.integer<std::uint64_t>("seed", 0, ~std::uint64_t(0), true);
    c.dModel = read.integer<int>("d_model", 1, attn::kMaxDModel);
    c.dK = read.integer<int>("d_k", 1, attn::kMaxDHead);
    c.dV = read.integer<int>("d_v", 1, attn::kMaxDHead);
    const std::string init = read.string("init");
    if (!read.error() && !attn::parseInitMode(init, &c.init))
        return attn::Error{"\"init\" must be \"article\", \"normal\" or \"unit-variance\", not \"" + init
                           + "\""};

    const std::string scale = read.string("scale_mode");
    if (read.error())
        return *read.error();
    bool knownScale = false;
    for (const attn::ScaleMode mode :
         {attn::ScaleMode::SqrtDk, attn::ScaleMode::None, attn::ScaleMode::Custom}) {
        if (scale == attn::scaleModeName(mode)) {
            state.options.scale = mode;
            knownScale = true;
        }
    }
    if (!knownScale)
        return attn::Error{"\"scale_mode\" must be \"sqrt-dk\", \"none\" or \"custom\", not \"" + scale
                           + "\""};
    state.options.customDivisor = read.number("scale_divisor", attn::AttentionOptions().customDivisor,
                                              state.options.scale == attn::ScaleMode::Custom);
    state.options.causal = read.boolean("causal");
    if (root.find("mask")) {
        const std::string text = read.string("mask");
        if (read.error())
            return *read.error();
        const attn::Expected<attn::AttentionMask> mask = attn::parseAttentionMask(text);
        if (!mask)
            return attn::Error{"\"mask\": " + mask.error().message};
        // Every mask but none hides the keys after the query: "causal" says so.
        if (state.options.causal != (mask->kind != attn::AttentionMask::Kind::None))
            return attn::Error{"\"mask\" is \"" + mask->name() + "\" but \"causal\" is "
                               + (state.options.causal ? "true" : "false") + "; they must agree"};
        state.options.setMask(mask.value());
    }

    state.X = read.matrix("X");
    state.Wq = read.matrix("W_q");
    state.Wk = read.matrix("W_k");
    state.Wv = read.matrix("W_v");
    if (const JsonValue* view = read.field("view", Type::Object, false))
        state.view = view->toQJsonValue().toObject();
    if (read.error())
        return *read.error();
    if (version >= 2 && root.find(kHeadsKey)) {
        const JsonValue* heads = read.field(kHeadsKey, Type::Object);
        if (!heads)
            return *read.error();
        if (attn::Status s = readLabHeads(*heads, &state); !s)
            return s.error();
        // "heads" spelling out one head without a projection: checked as
        // written, then the single-head lab it is.
        if (!state.heads.multiHead()) {
            if (attn::Status s = validateLabState(state); !s)
                return s.error();
            if (attn::Status s = validateLabHeads(state); !s)
                return s.error();
            state.multiHead = attn::MultiHeadParams();
            state.selectedHead = 0;
        }
    }

    const attn::Status valid = validateLabState(state);
    if (!valid)
        return valid.error();
    return state;
}

attn::Expected<LabState> readLabFile(const QString& path)
{
    const std::string name = QFileInfo(path).fileName().toStdString();
    const attn::Expected<QByteArray> bytes = readInputFile(path, attn::kMaxLabFileBytes, "lab file");
    if (!bytes)
        return bytes.error();
    attn::Expected<LabState> state =
        parseLab(std::string_view(bytes->constData(), std::size_t(bytes->size())));
    if (!state)
        return attn::Error{name + ": " + state.error().message};
    return state;
}

attn::Expected<OutputFileSet> labFileSet(const QString& path, const LabState& state)
{
    const attn::Status valid = validateLabState(state);
    if (!valid)
        return attn::Error{"the lab cannot be saved: " + valid.error().message};
    const attn::Expected<QString> resolved = resolveOutputPath(path);
    if (!resolved)
        return resolved.error();
    const QFileInfo file(resolved.value());
    OutputFile out{QFile::encodeName(file.fileName()).toStdString(),
                   [&state](std::ostream& stream) { writeLabJson(stream, state); }};
    return OutputFileSet{file.absolutePath(), {std::move(out)}};
}

attn::Status saveLabFile(const QString& path, const LabState& state)
{
    const attn::Status valid = validateLabState(state);
    if (!valid)
        return attn::Error{"the lab cannot be saved: " + valid.error().message};
    return writeFileAtomically(path, [&state](std::ostream& out) { writeLabJson(out, state); });
}

}  // namespace attnlab
