// SPDX-License-Identifier: GPL-3.0-or-later
#include "rotaryexport.h"

#include "jsonwriter.h"
#include "modelattentionexport.h"

#include <utility>

namespace attnlab {

void writeRopeJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                   const std::string& scaleMode, const attn::RotaryHead& head, const ModelHeadLab* lab)
{
    JsonWriter json(out);
    json.beginObject();
    json.key("model");
    writeModelObject(json, model);
    writeModelRunKeys(json, model, result, scaleMode);
    json.key("layer");
    json.value(head.layer);
    json.key("head");
    json.value(head.head);
    json.key("kv_head");
    json.value(head.kvHead);
    json.key("head_dim");
    json.value(int(head.qBefore.cols()));
    json.key("frequencies");
    json.beginArray(JsonWriter::Layout::Inline);
    for (const double f : head.frequencies)
        json.value(f);
    json.endArray();
    json.key("angles");
    writeJsonMatrix(json, head.angles);
    json.key("q");
    writeJsonMatrix(json, head.qBefore);
    json.key("k");
    writeJsonMatrix(json, head.kBefore);
    json.key("q_rot");
    writeJsonMatrix(json, head.qAfter);
    json.key("k_rot");
    writeJsonMatrix(json, head.kAfter);
    json.key("scores_without_rotation");
    writeJsonMatrix(json, head.scoresBefore);
    json.key("scores_with_rotation");
    writeJsonMatrix(json, head.scoresAfter);
    json.key("visible");
    json.beginArray();
    const int n = int(head.scoresAfter.rows());
    for (int i = 0; i < n; ++i) {
        json.beginArray(JsonWriter::Layout::Inline);
        for (int j = 0; j < n; ++j)
            json.value(!head.mask.hides(i, j));
        json.endArray();
    }
    json.endArray();
    if (lab)
        writeHeadLabKeys(json, *model.tokenizer, *lab, false);
    json.endObject();
    json.finish();
}

OutputFile ropeJsonFile(std::shared_ptr<const ModelFolder> model,
                        std::shared_ptr<const attn::DecoderResult> result, std::string scaleMode,
                        attn::RotaryHead head, std::optional<ModelHeadLab> lab)
{
    return {kRopeFileName,
            [model = std::move(model), result = std::move(result), scaleMode = std::move(scaleMode),
             head = std::move(head), lab = std::move(lab)](std::ostream& out) {
                writeRopeJson(out, *model, *result, scaleMode, head, lab ? &*lab : nullptr);
            }};
}

}  // namespace attnlab
