// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelattentionexport.h"

#include "headlabexport.h"
#include "jsonwriter.h"
#include "score_range.h"

#include <QByteArray>
#include <QString>

#include <cmath>

namespace attnlab {

namespace {

std::string tokenText(const ModelTokenizer& tokenizer, int id)
{
    return QString::fromUtf8(tokenizer.tokenBytes(id)).toStdString();
}

std::string tokenPiece(const ModelTokenizer& tokenizer, int id)
{
    return tokenizer.token(id).piece.toStdString();
}

void writeModel(JsonWriter& json, const ModelFolder& model)
{
    const attn::DecoderConfig& config = model.config();
    json.beginObject();
    json.key("model_type");
    json.value(model.family.toStdString());
    json.key("n_layer");
    json.value(config.layers);
    json.key("n_head");
    json.value(config.heads);
    json.key("n_embd");
    json.value(config.width);
    json.key("n_positions");
    json.value(config.maxPositions);
    json.key("vocab_size");
    json.value(config.vocabSize);
    json.key("dtype");
    json.value(model.dtype);
    json.key("num_key_value_heads");
    json.value(config.kvHeads);
    json.key("head_dim");
    json.value(config.headDim);
    json.key("rope_theta");
    if (config.ropeTheta > 0)
        json.value(config.ropeTheta);
    else
        json.null();
    json.key("rope_scaling");
    if (!config.ropeScaling.empty())
        json.value(config.ropeScaling);
    else
        json.null();
    json.key("sliding_window");
    if (config.slidingWindow > 0)
        json.value(config.slidingWindow);
    else
        json.null();
    json.key("qk_norm");
    json.value(config.qkNorm);
    json.endObject();
}

// The divisor every head shares, or a negative number when they differ.
double commonDivisor(const attn::HeadDivisors& divisors)
{
    if (divisors.empty())
        return -1.0;
    for (const double d : divisors.values)
        if (d != divisors.values.front())
            return -1.0;
    return divisors.values.front();
}

void writeHead(JsonWriter& json, const attn::AttentionResult& head, int kvHead)
{
    const int n = head.tokens();
    std::vector<double> row(std::size_t(n), 0.0);
    json.beginObject();
    json.key("kv_head");
    json.value(kvHead);
    json.key("divisor");
    json.value(head.divisor);
    // How the head keeps its scores in range (score_range.h).
    const attn::ScoreRangeReadouts readouts = attn::scoreRangeReadouts(head);
    for (const attn::ScoreRangeKind kind : attn::kAllScoreRangeKinds) {
        json.key(attn::scoreRangeName(kind));
        json.value(readouts[kind]);
    }
    json.key("scores");
    json.beginArray();
    for (int i = 0; i < n; ++i) {
        json.beginArray(JsonWriter::Layout::Inline);
        for (int j = 0; j < n; ++j) {
            if (head.isMasked(i, j))
                json.null();
            else
                json.value(head.scores(i, j));
        }
        json.endArray();
    }
    json.endArray();
    json.key("weights");
    json.beginArray();
    for (int i = 0; i < n; ++i) {
        head.weightsRow(i, row.data());
        json.beginArray(JsonWriter::Layout::Inline);
        for (const double w : row)
            json.value(w);
        json.endArray();
    }
    json.endArray();
    json.endObject();
}

}  // namespace

std::string divisorScaleMode(const attn::HeadDivisors& divisors, int headDim)
{
    const double divisor = commonDivisor(divisors);
    if (divisor <= 0)
        return "per-head";
    if (divisor == std::sqrt(double(headDim)))
        return "sqrt-dk";
    return divisor == 1.0 ? "none" : "custom";
}

void writeModelRunKeys(JsonWriter& json, const ModelFolder& model, const attn::DecoderResult& result,
                       const std::string& scaleMode)
{
    const ModelTokenizer& tokenizer = *model.tokenizer;
    json.key("tokens");
    json.beginArray(JsonWriter::Layout::Inline);
    for (const int id : result.tokenIds)
        json.value(tokenText(tokenizer, id));
    json.endArray();
    json.key("pieces");
    json.beginArray(JsonWriter::Layout::Inline);
    for (const int id : result.tokenIds)
        json.value(tokenPiece(tokenizer, id));
    json.endArray();
    json.key("token_ids");
    json.beginArray(JsonWriter::Layout::Inline);
    for (const int id : result.tokenIds)
        json.value(id);
    json.endArray();

    json.key("scale");
    json.beginObject(JsonWriter::Layout::Inline);
    json.key("mode");
    json.value(scaleMode);
    json.key("divisor");
    if (const double divisor = commonDivisor(result.divisors); divisor > 0)
        json.value(divisor);
    else
        json.null();
    json.endObject();
    // The mask every head attended with: the model's own (causal, or
    // sliding:W with its sliding_window) or --mask's what-if.
    json.key("mask");
    json.value(result.mask.name());
    // The QK-norm what-if (--no-qk-norm): the pass ran without q_norm, k_norm.
    json.key("qk_norm_removed");
    json.value(result.qkNormSkipped);
}

void writeTopTokens(JsonWriter& json, const ModelTokenizer& tokenizer,
                    const std::vector<attn::TopToken>& tops)
{
    json.beginArray();
    for (const attn::TopToken& top : tops) {
        json.beginObject(JsonWriter::Layout::Inline);
        json.key("id");
        json.value(top.id);
        json.key("token");
        json.value(tokenText(tokenizer, top.id));
        json.key("piece");
        json.value(tokenPiece(tokenizer, top.id));
        json.key("logit");
        json.value(top.logit);
        json.key("probability");
        json.value(top.probability);
        json.endObject();
    }
    json.endArray();
}

void writeModelObject(JsonWriter& json, const ModelFolder& model)
{
    writeModel(json, model);
}

void writeModelAttentionJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                             const std::string& scaleMode, const ModelNextTokens* next,
                             const ModelHeadLab* lab)
{
    const ModelTokenizer& tokenizer = *model.tokenizer;
    JsonWriter json(out);
    json.beginObject();
    json.key("model");
    writeModel(json, model);
    writeModelRunKeys(json, model, result, scaleMode);
    json.key("temperature");
    json.value(next ? next->temperature : result.temperature);

    json.key("layers");
    json.beginArray();
    for (const attn::DecoderLayer& layer : result.layers) {
        json.beginObject();
        json.key("heads");
        json.beginArray();
        for (std::size_t h = 0; h < layer.heads.size(); ++h)
            writeHead(json, layer.heads[h], model.config().kvHeadOf(int(h)));
        json.endArray();
        json.endObject();
    }
    json.endArray();

    json.key("next_token");
    writeTopTokens(json, tokenizer, next ? next->top : result.top);
    if (lab)
        writeHeadLabKeys(json, tokenizer, *lab);
    json.endObject();
    json.finish();
}

double modelAttentionJsonBytes(const attn::DecoderConfig& config, int tokens)
{
    // Per head and query row: the entries at or below the diagonal, a
    // number each in scores and in weights (kNumberBytes with its ", "), the
    // ones above it null in scores and 0 in weights, and each row's
    // brackets and indentation.
    constexpr double kNumberBytes = 21.0, kNullBytes = 6.0, kZeroBytes = 3.0, kRowBytes = 2 * 24.0;
    const double n = tokens;
    const double below = n * (n + 1) / 2, above = n * (n - 1) / 2;
    const double head = 2 * below * kNumberBytes + above * (kNullBytes + kZeroBytes) + n * kRowBytes;
    return double(config.layers) * config.heads * head;
}

OutputFile modelAttentionJsonFile(const ModelFolder& model, const attn::DecoderResult& result,
                                  const std::string& scaleMode, const ModelHeadLab* lab)
{
    return {kModelAttentionFileName, [&model, &result, scaleMode, lab](std::ostream& out) {
                writeModelAttentionJson(out, model, result, scaleMode, nullptr, lab);
            }};
}

}  // namespace attnlab
