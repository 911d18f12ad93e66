// SPDX-License-Identifier: GPL-3.0-or-later
#include "flashexport.h"

#include "flash_tiles.h"
#include "jsonwriter.h"

#include <string>
#include <string_view>

namespace attnlab {

namespace {

using Layout = JsonWriter::Layout;

void writeRange(JsonWriter& json, int first, int last)
{
    json.beginArray(Layout::Inline);
    json.value(first);
    json.value(last);
    json.endArray();
}

void writeNumbers(JsonWriter& json, const attn::Vector& v)
{
    json.beginArray(Layout::Inline);
    for (Eigen::Index i = 0; i < v.size(); ++i)
        json.value(v(i));  // -inf (no key seen yet) is null
    json.endArray();
}

}  // namespace

long long flashJsonNumbers(int tokens, int dV, int blockCols)
{
    if (tokens < 1 || blockCols < 1)
        return 0;
    const long long keyBlocks = (static_cast<long long>(tokens) + blockCols - 1) / blockCols;
    return keyBlocks * tokens * (dV + 3LL) + static_cast<long long>(tokens) * dV;
}

void writeFlashJson(std::ostream& out, const AttentionSnapshot& s, int blockRows, int blockCols)
{
    const attn::AttentionResult& head = s.head();
    const attn::AttentionMask mask = head.appliedMask();
    const long long n = head.tokens();
    const long long dK = head.Q.cols();
    const long long dV = head.V.cols();
    JsonWriter json(out);
    json.beginObject();
    json.key("generator");
    json.value("attention-lab " ATTNLAB_VERSION);
    json.key("sentence");
    json.value(std::string_view(s.config.sentence));
    json.key("tokens");
    json.beginArray(Layout::Inline);
    for (const std::string& token : s.tokens.tokens)
        json.value(std::string_view(token));
    json.endArray();
    json.key("d_k");
    json.value(std::int64_t(dK));
    json.key("d_v");
    json.value(std::int64_t(dV));
    json.key("scale_mode");
    json.value(attn::scaleModeName(s.options.scale));
    json.key("scale_divisor");
    json.value(head.divisor);
    json.key("causal");
    json.value(mask.kind != attn::AttentionMask::Kind::None);
    json.key("mask");
    json.value(std::string_view(mask.name()));
    json.key("block_rows");
    json.value(blockRows);
    json.key("block_cols");
    json.value(blockCols);
    json.key("steps");
    json.beginArray();
    const attn::Expected<attn::Matrix> context =
        attn::flashAttention(head.Q, head.K, head.V, head.divisor, mask, blockRows, blockCols,
                             [&json](const attn::FlashStep& step) {
                                 json.beginObject();
                                 json.key("query_rows");
                                 writeRange(json, step.queryFirst, step.queryLast);
                                 json.key("key_cols");
                                 writeRange(json, step.keyFirst, step.keyLast);
                                 json.key("skipped");
                                 json.value(step.skipped);
                                 json.key("m");
                                 writeNumbers(json, step.m);
                                 json.key("l");
                                 writeNumbers(json, step.l);
                                 json.key("rescale");
                                 writeNumbers(json, step.rescale);
                                 json.key("O");
                                 writeJsonMatrix(json, step.O);
                                 json.endObject();
                             });
    json.endArray();
    if (!context) {
        // The caller checked the blocks; a refusal here leaves the file failed.
        out.setstate(std::ios::failbit);
        return;
    }
    json.key("context");
    writeJsonMatrix(json, context.value());
    json.key("max_abs_diff");
    json.value(attn::maxAbsDifference(context.value(), head.context));
    json.key("memory_bytes");
    const attn::FlashMemory memory = attn::flashMemoryBytes(int(n), int(dK), int(dV), blockRows, blockCols);
    json.beginObject(Layout::Inline);
    json.key("inputs_and_context");
    json.value(std::int64_t(memory.inputsAndContext));
    json.key("one_tile");
    json.value(std::int64_t(memory.oneTile));
    json.key("score_matrix");
    json.value(std::int64_t(memory.scoreMatrix));
    json.endObject();
    json.endObject();
    json.finish();
}

OutputFile flashJsonFile(const AttentionSnapshot& snapshot, int blockRows, int blockCols)
{
    return {"flash.json", [&snapshot, blockRows, blockCols](std::ostream& out) {
                writeFlashJson(out, snapshot, blockRows, blockCols);
            }};
}

}  // namespace attnlab
