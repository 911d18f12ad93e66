// SPDX-License-Identifier: GPL-3.0-or-later
#include "generationexport.h"

#include "headlabexport.h"
#include "jsonwriter.h"
#include "kv_cache.h"
#include "modelattentionexport.h"

#include <QString>

#include <algorithm>
#include <utility>
#include <vector>

namespace attnlab {
namespace {

std::string tokenText(const ModelTokenizer& tokenizer, int id)
{
    return QString::fromUtf8(tokenizer.tokenBytes(id)).toStdString();
}

void writeIds(JsonWriter& json, const std::vector<int>& ids)
{
    json.beginArray(JsonWriter::Layout::Inline);
    for (const int id : ids)
        json.value(id);
    json.endArray();
}

void writeDecoded(JsonWriter& json, const ModelTokenizer& tokenizer, const std::vector<int>& ids)
{
    const attn::Expected<QString> text = tokenizer.decode(ids);
    if (text)
        json.value(text.value().toStdString());
    else
        json.null();
}

}  // namespace

void writeGenerationJson(std::ostream& out, const ModelFolder& model, const GenerationRun& run)
{
    const ModelTokenizer& tokenizer = *model.tokenizer;
    const attn::DecoderConfig& config = model.config();
    const attn::GenerationOptions& o = run.options;
    JsonWriter json(out);
    json.beginObject();
    json.key("model");
    writeModelObject(json, model);
    json.key("prompt_ids");
    writeIds(json, run.generation.promptIds);
    json.key("prompt_tokens");
    json.beginArray(JsonWriter::Layout::Inline);
    for (const int id : run.generation.promptIds)
        json.value(tokenText(tokenizer, id));
    json.endArray();
    json.key("mode");
    json.value(o.sample ? "sample" : "greedy");
    json.key("temperature");
    json.value(o.temperature);
    json.key("top_k");
    if (o.sample && o.topK > 0)
        json.value(o.topK);
    else
        json.null();
    json.key("seed");
    if (o.sample)
        json.value(std::uint64_t(o.seed));
    else
        json.null();
    json.key("scale");
    json.beginObject(JsonWriter::Layout::Inline);
    json.key("mode");
    json.value(run.scaleMode);
    json.key("divisor");
    const std::vector<double>& divisors = o.divisors.values;
    if (!divisors.empty()
        && std::all_of(divisors.begin(), divisors.end(), [&](double d) { return d == divisors[0]; }))
        json.value(divisors[0]);
    else
        json.null();
    json.endObject();
    // The mask every step attended with (the model's own or --mask's) and
    // the QK-norm what-if (--no-qk-norm), as model_attention.json says them.
    json.key("mask");
    json.value(o.mask ? o.mask->name() : model.config().ownMask().name());
    json.key("qk_norm_removed");
    json.value(o.skipQkNorm);
    // The heads every step ran without (--ablate), as model_attention.json's.
    ModelHeadLab lab;
    lab.ablated = o.ablated;
    lab.ablation = o.ablation;
    writeHeadLabKeys(json, tokenizer, lab, false);
    json.key("kv_cache");
    json.beginObject(JsonWriter::Layout::Inline);
    json.key("layers");
    json.value(config.layers);
    json.key("kv_heads");
    json.value(config.kvHeads);
    json.key("heads");
    json.value(config.heads);
    json.key("head_dim");
    json.value(config.headDim);
    json.key("bytes_per_number");
    json.value(attn::KvCache::kBytesPerNumber);
    json.endObject();
    json.key("steps");
    json.beginArray();
    for (const attn::GeneratedToken& t : run.generation.tokens) {
        json.beginObject(JsonWriter::Layout::Inline);
        json.key("id");
        json.value(t.id);
        json.key("token");
        json.value(tokenText(tokenizer, t.id));
        json.key("probability");
        json.value(t.probability);
        json.key("position");
        json.value(t.position);
        // A whole pass (mean ablation) kept no cache: null.
        for (const auto& [key, number] : {std::pair<const char*, std::int64_t>{"cache_tokens", t.cacheTokens},
                                          {"cache_bytes", t.cacheBytes},
                                          {"cache_bytes_one_kv_per_head", t.cacheBytesOneKvPerQueryHead}}) {
            json.key(key);
            if (t.wholePass)
                json.null();
            else
                json.value(number);
        }
        json.endObject();
    }
    json.endArray();
    const std::vector<int> generated = run.generation.generatedIds();
    json.key("generated_ids");
    writeIds(json, generated);
    json.key("text");
    writeDecoded(json, tokenizer, run.generation.allIds());
    json.key("continuation");
    writeDecoded(json, tokenizer, generated);
    json.endObject();
    json.finish();
}

OutputFile generationJsonFile(const ModelFolder& model, const GenerationRun& run)
{
    return {kGenerationFileName, [&model, &run](std::ostream& out) { writeGenerationJson(out, model, run); }};
}

}  // namespace attnlab
