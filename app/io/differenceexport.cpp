// SPDX-License-Identifier: GPL-3.0-or-later
#include "differenceexport.h"

#include "jsonwriter.h"
#include "modelattentionexport.h"

namespace attnlab {

void writeDifferenceJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                         const std::string& scaleMode, const ModelDifference& d, const ModelHeadLab* lab)
{
    JsonWriter json(out);
    json.beginObject();
    json.key("model");
    writeModelObject(json, model);
    writeModelRunKeys(json, model, result, scaleMode);
    json.key("comparison");
    json.value(d.comparison);
    json.key("map");
    json.value(d.head ? "head" : "rollout");
    if (d.head) {
        json.key("layer");
        json.value(d.head->layer);
        json.key("head");
        json.value(d.head->head);
    }
    if (d.comparison == "sentence") {
        json.key("other_sentence");
        json.value(d.otherSentence.toStdString());
        json.key("other_token_ids");
        json.beginArray(JsonWriter::Layout::Inline);
        for (const int id : d.otherIds)
            json.value(id);
        json.endArray();
    }
    const attn::Matrix difference = d.b - d.a;
    json.key("a");
    writeJsonMatrix(json, d.a);
    json.key("b");
    writeJsonMatrix(json, d.b);
    json.key("difference");
    writeJsonMatrix(json, difference);
    json.key("largest_change");
    json.value(difference.size() > 0 ? difference.cwiseAbs().maxCoeff() : 0.0);
    if (lab)
        writeHeadLabKeys(json, *model.tokenizer, *lab, false);
    json.endObject();
    json.finish();
}

OutputFile differenceJsonFile(const ModelFolder& model, const attn::DecoderResult& result,
                              const std::string& scaleMode, const ModelDifference& difference,
                              const ModelHeadLab* lab)
{
    return {kDifferenceFileName, [&model, &result, scaleMode, &difference, lab](std::ostream& out) {
                writeDifferenceJson(out, model, result, scaleMode, difference, lab);
            }};
}

}  // namespace attnlab
