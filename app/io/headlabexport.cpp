// SPDX-License-Identifier: GPL-3.0-or-later
#include "headlabexport.h"

#include "jsonwriter.h"
#include "modelattentionexport.h"

namespace attnlab {

namespace {

void writeHeadList(JsonWriter& json, const std::vector<attn::HeadIndex>& heads)
{
    json.beginArray(JsonWriter::Layout::Inline);
    for (const attn::HeadIndex& head : heads) {
        json.beginArray(JsonWriter::Layout::Inline);
        json.value(head.layer);
        json.value(head.head);
        json.endArray();
    }
    json.endArray();
}

void writeScore(JsonWriter& json, const std::optional<double>& score)
{
    if (score)
        json.value(*score);
    else
        json.null();
}

}  // namespace

const char* headAblationName(attn::HeadAblation kind)
{
    return kind == attn::HeadAblation::Mean ? "mean" : "zero";
}

void writeHeadLabKeys(JsonWriter& json, const ModelTokenizer& tokenizer, const ModelHeadLab& lab,
                      bool forModelAttention)
{
    if (forModelAttention && lab.rollout) {
        json.key("rollout");
        json.beginArray();
        for (Eigen::Index i = 0; i < lab.rollout->rows(); ++i) {
            json.beginArray(JsonWriter::Layout::Inline);
            for (Eigen::Index j = 0; j < lab.rollout->cols(); ++j)
                json.value((*lab.rollout)(i, j));
            json.endArray();
        }
        json.endArray();
    }
    if (!lab.ablated.empty()) {
        if (forModelAttention) {
            json.key("next_token_intact");
            writeTopTokens(json, tokenizer, lab.intactTop);
        }
        json.key("ablated");
        writeHeadList(json, lab.ablated);
        json.key("ablation");
        json.value(headAblationName(lab.ablation));
    }
    if (lab.probe) {
        const RepeatProbeRun& p = *lab.probe;
        json.key("probe");
        json.beginObject(JsonWriter::Layout::Inline);
        json.key("kind");
        json.value("repeat");
        json.key("span");
        json.value(p.span);
        json.key("seed");
        json.value(p.seed);
        json.key("id_low");
        json.value(p.range.low);
        json.key("id_high");
        json.value(p.range.high);
        json.key("loss_first");
        json.value(p.loss.first);
        json.key("loss_second");
        json.value(p.loss.second);
        json.endObject();
    }
}

void writeHeadScoresJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                         const std::string& scaleMode, const attn::HeadScoreTable& scores,
                         const ModelHeadLab& lab)
{
    JsonWriter json(out);
    json.beginObject();
    json.key("model");
    writeModelObject(json, model);
    writeModelRunKeys(json, model, result, scaleMode);

    json.key("layers");
    json.beginArray();
    for (int l = 0; l < scores.layers; ++l) {
        json.beginObject();
        json.key("heads");
        json.beginArray();
        for (int h = 0; h < scores.heads; ++h) {
            const attn::HeadTypeScores& s = scores.at(l, h);
            json.beginObject(JsonWriter::Layout::Inline);
            for (const attn::HeadScoreKind kind : attn::kAllHeadScoreKinds) {
                json.key(attn::headScoreName(kind));
                writeScore(json, s[kind]);
            }
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();

    json.key("ranking");
    json.beginObject();
    for (const attn::HeadScoreKind kind : attn::kAllHeadScoreKinds) {
        json.key(attn::headScoreName(kind));
        writeHeadList(json, attn::rankHeads(scores, kind));
    }
    json.endObject();

    writeHeadLabKeys(json, *model.tokenizer, lab, false);
    json.endObject();
    json.finish();
}

void writeLogitLensJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                        const std::string& scaleMode, const attn::LogitLens& lens, const ModelHeadLab& lab)
{
    const ModelTokenizer& tokenizer = *model.tokenizer;
    JsonWriter json(out);
    json.beginObject();
    json.key("model");
    writeModelObject(json, model);
    writeModelRunKeys(json, model, result, scaleMode);
    json.key("temperature");
    json.value(result.temperature);
    json.key("layers");
    json.beginArray();
    for (int l = 0; l < lens.layers; ++l) {
        json.beginObject();
        json.key("positions");
        json.beginArray();
        for (int i = 0; i < lens.positions; ++i) {
            json.beginObject(JsonWriter::Layout::Inline);
            json.key("top");
            json.beginArray(JsonWriter::Layout::Inline);
            for (const attn::TopToken& top : lens.at(l, i)) {
                json.beginObject(JsonWriter::Layout::Inline);
                json.key("id");
                json.value(top.id);
                json.key("token");
                json.value(QString::fromUtf8(tokenizer.tokenBytes(top.id)).toStdString());
                json.key("probability");
                json.value(top.probability);
                json.endObject();
            }
            json.endArray();
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();
    writeHeadLabKeys(json, tokenizer, lab, false);
    json.endObject();
    json.finish();
}

OutputFile logitLensJsonFile(const ModelFolder& model, const attn::DecoderResult& result,
                             const std::string& scaleMode, const attn::LogitLens& lens,
                             const ModelHeadLab& lab)
{
    return {kLogitLensFileName, [&model, &result, scaleMode, &lens, &lab](std::ostream& out) {
                writeLogitLensJson(out, model, result, scaleMode, lens, lab);
            }};
}

OutputFile headScoresJsonFile(const ModelFolder& model, const attn::DecoderResult& result,
                              const std::string& scaleMode, const attn::HeadScoreTable& scores,
                              const ModelHeadLab& lab)
{
    return {kHeadScoresFileName, [&model, &result, scaleMode, &scores, &lab](std::ostream& out) {
                writeHeadScoresJson(out, model, result, scaleMode, scores, lab);
            }};
}

}  // namespace attnlab
