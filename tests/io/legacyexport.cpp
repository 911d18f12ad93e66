// SPDX-License-Identifier: GPL-3.0-or-later
// The export writers as they were before the single head became h = 1 of
// one writer (app/io/attentionexport.cpp and multiheadexport.cpp at
// 6590f71, copied here with their snapshot types renamed and the pictures
// left out): the oracle of tst_exportoracle, which holds the one writer to
// today's bytes. Not to be changed: it is what the files were.

#include "legacyexport.h"

#include "jsonwriter.h"
#include "matrixio.h"
#include "npy.h"

#include <functional>
#include <sstream>
#include <utility>

namespace legacy {

using namespace attnlab;

namespace {

using Layout = JsonWriter::Layout;

using Labels = CsvLabels;

struct MatrixEntry {
    const char* name;
    const attn::Matrix* matrix;  // stored in the snapshot, or null: derived
    Labels labels;
    // For a derived map (the scaled scores, the weights): made when its file
    // is written and dropped after, so at most one extra n x n map exists.
    attn::Matrix (attn::AttentionResult::*derive)() const = nullptr;
    const attn::AttentionResult* result = nullptr;

    template <typename F>
    void with(F&& use) const
    {
        if (matrix) {
            use(*matrix);
            return;
        }
        const attn::Matrix m = (result->*derive)();
        use(m);
    }
};

std::vector<MatrixEntry> matrices(const SingleSnapshot& s)
{
    const attn::Model& m = s.model;
    const attn::AttentionResult& r = s.result;
    return {
        {"X", &m.X, Labels::TokenRows},
        {"W_q", &m.Wq, Labels::Indices},
        {"W_k", &m.Wk, Labels::Indices},
        {"W_v", &m.Wv, Labels::Indices},
        {"Q", &r.Q, Labels::TokenRows},
        {"K", &r.K, Labels::TokenRows},
        {"V", &r.V, Labels::TokenRows},
        {"scores", &r.scores, Labels::QueryKey},
        {"scaled_scores", nullptr, Labels::QueryKey, &attn::AttentionResult::scaledMatrix, &r},
        {"weights", nullptr, Labels::QueryKey, &attn::AttentionResult::weightsMatrix, &r},
        {"context", &r.context, Labels::TokenRows},
    };
}

void writeStrings(JsonWriter& json, const std::vector<std::string>& strings)
{
    json.beginArray(Layout::Inline);
    for (const std::string& s : strings)
        json.value(std::string_view(s));
    json.endArray();
}

}  // namespace

void writeAttentionStats(JsonWriter& json, const attn::AttentionStats& stats,
                         const std::vector<std::string>& tokens)
{
    json.beginObject();
    json.key("raw_mean");
    json.value(stats.rawMean);
    json.key("raw_variance");
    json.value(stats.rawVariance);
    json.key("scaled_mean");
    json.value(stats.scaledMean);
    json.key("scaled_variance");
    json.value(stats.scaledVariance);
    json.key("rows");
    json.beginArray();
    for (std::size_t i = 0; i < stats.rows.size(); ++i) {
        const attn::RowStats& row = stats.rows[i];
        json.beginObject(Layout::Inline);
        json.key("query");
        json.value(int(i));
        json.key("token");
        json.value(i < tokens.size() ? std::string_view(tokens[i]) : std::string_view());
        json.key("max_weight");
        json.value(row.maxWeight);
        json.key("argmax");
        json.value(row.argMax);
        json.key("entropy_nats");
        json.value(row.entropyNats);
        json.key("entropy_bits");
        json.value(row.entropyBits);
        json.key("effective_tokens");
        json.value(row.effectiveTokens);
        json.key("jacobian_norm");
        json.value(row.jacobianNorm);
        json.endObject();
    }
    json.endArray();
    json.key("mean_max_weight");
    json.value(stats.meanMaxWeight);
    json.key("mean_entropy_nats");
    json.value(stats.meanEntropyNats);
    json.key("mean_jacobian_norm");
    json.value(stats.meanJacobianNorm);
    json.endObject();
}

void writeAttentionJson(std::ostream& out, const SingleSnapshot& s)
{
    JsonWriter json(out);
    json.beginObject();
    writeAttentionJsonFields(json, s);
    // The multi-head keys for its one head, so that a reader of --heads
    // exports reads this one alike: the head is the pass above, its average
    // its weights, the concatenation its context.
    json.key("head_layout");
    json.value("independent");
    json.key("num_heads");
    json.value(1);
    json.key("heads");
    json.beginArray();
    json.beginObject();
    for (const MatrixEntry& entry : matrices(s)) {
        if (std::string_view(entry.name) == "X")
            continue;
        json.key(entry.name);
        entry.with([&json](const attn::Matrix& m) { writeJsonMatrix(json, m); });
    }
    json.key("stats");
    writeAttentionStats(json, s.stats, s.model.tokenization.tokens);
    json.endObject();
    json.endArray();
    json.key("weights_average");
    writeJsonMatrix(json, s.result.weightsMatrix());
    json.key("concat");
    writeJsonMatrix(json, s.result.context);
    json.endObject();
    json.finish();
}

void writeAttentionJsonFields(JsonWriter& json, const SingleSnapshot& s)
{
    const attn::Tokenization& t = s.model.tokenization;
    json.key("generator");
    json.value("attention-lab " ATTNLAB_VERSION);
    json.key("sentence");
    json.value(std::string_view(s.config.sentence));
    json.key("tokens");
    writeStrings(json, t.tokens);
    json.key("token_ids");
    json.beginArray(Layout::Inline);
    for (const int id : t.ids)
        json.value(id);
    json.endArray();
    json.key("vocab");
    writeStrings(json, t.vocab);
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
    json.key("tokenizer");
    json.value(attn::tokenizerModeName(s.config.tokenizer));
    json.key("scale_mode");
    json.value(attn::scaleModeName(s.options.scale));
    json.key("scale_divisor");
    json.value(s.result.divisor);
    json.key("causal");
    json.value(s.result.causal);
    for (const MatrixEntry& entry : matrices(s)) {
        json.key(entry.name);
        entry.with([&json](const attn::Matrix& m) { writeJsonMatrix(json, m); });
    }
    json.key("stats");
    writeAttentionStats(json, s.stats, s.model.tokenization.tokens);
}

std::vector<OutputFile> attentionExportFiles(const SingleSnapshot& snapshot, const ExportFormats& formats)
{
    std::vector<OutputFile> files;
    if (formats.json) {
        files.push_back(
            {"attention.json", [&snapshot](std::ostream& out) { writeAttentionJson(out, snapshot); }});
    }
    if (formats.csv) {
        for (const MatrixEntry& entry : matrices(snapshot)) {
            files.push_back({std::string(entry.name) + ".csv", [&snapshot, entry](std::ostream& out) {
                                 entry.with([&](const attn::Matrix& m) {
                                     writeLabelledMatrixCsv(out, m, snapshot.model.tokenization.tokens,
                                                            entry.labels);
                                 });
                             }});
        }
    }
    if (formats.npy) {
        for (const MatrixEntry& entry : matrices(snapshot)) {
            files.push_back({std::string(entry.name) + ".npy", [entry](std::ostream& out) {
                                 entry.with([&out](const attn::Matrix& m) { writeNpy(out, m); });
                             }});
        }
    }
    return files;
}

namespace {

using Layout = JsonWriter::Layout;

using Labels = CsvLabels;

// One exported matrix, made when its file is written (a head's scaled
// scores and weights are derived from its raw scores, one map at a time).
struct Entry {
    std::string name;
    Labels labels;
    std::function<attn::Matrix()> make;
};

void writeFlat(JsonWriter& json, const attn::RowVector& v)
{
    json.beginArray(Layout::Inline);
    for (Eigen::Index j = 0; j < v.size(); ++j)
        json.value(v[j]);
    json.endArray();
}

std::string headTail(int i)
{
    return "_head" + std::to_string(i + 1);
}

// Head i's matrices of the result alone (no parameters).
std::vector<Entry> resultHeadEntries(const attn::MultiHeadResult& result, int i)
{
    const attn::AttentionResult* r = &result.heads[std::size_t(i)];
    const std::string tail = headTail(i);
    return {
        {"Q" + tail, Labels::TokenRows, [r] { return r->Q; }},
        {"K" + tail, Labels::TokenRows, [r] { return r->K; }},
        {"V" + tail, Labels::TokenRows, [r] { return r->V; }},
        {"scores" + tail, Labels::QueryKey, [r] { return r->scores; }},
        {"scaled_scores" + tail, Labels::QueryKey, [r] { return r->scaledMatrix(); }},
        {"weights" + tail, Labels::QueryKey, [r] { return r->weightsMatrix(); }},
        {"context" + tail, Labels::TokenRows, [r] { return r->context; }},
    };
}

std::vector<Entry> headEntries(const MultiSnapshot& s, int i)
{
    const attn::HeadWeights* w = &s.weights[std::size_t(i)];
    const std::string tail = headTail(i);
    std::vector<Entry> entries = {
        {"W_q" + tail, Labels::Indices, [w] { return w->Wq; }},
        {"W_k" + tail, Labels::Indices, [w] { return w->Wk; }},
        {"W_v" + tail, Labels::Indices, [w] { return w->Wv; }},
    };
    for (Entry& e : resultHeadEntries(s.result, i))
        entries.push_back(std::move(e));
    return entries;
}

// The heads' average, the concatenation and the output, where there is one.
std::vector<Entry> resultCombinedEntries(const attn::MultiHeadResult& result)
{
    const attn::MultiHeadResult* p = &result;
    std::vector<Entry> entries = {
        {"weights_average", Labels::QueryKey, [p] { return p->weightsAverage; }},
        {"concat", Labels::TokenRows, [p] { return p->concat; }},
    };
    if (result.hasOutput())
        entries.push_back({"output", Labels::TokenRows, [p] { return p->output; }});
    return entries;
}

std::vector<Entry> combinedEntries(const MultiSnapshot& s)
{
    const MultiSnapshot* p = &s;
    std::vector<Entry> entries = resultCombinedEntries(s.result);
    if (s.layout == attn::HeadLayout::Independent && s.Wo.size() > 0)
        entries.push_back({"W_o", Labels::Indices, [p] { return p->Wo; }});
    if (s.layout == attn::HeadLayout::Split) {
        entries.push_back({"in_proj_weight", Labels::Indices, [p] { return p->split.inProjWeight; }});
        entries.push_back(
            {"in_proj_bias", Labels::Indices, [p] { return attn::Matrix(p->split.inProjBias); }});
        entries.push_back({"out_proj_weight", Labels::Indices, [p] { return p->split.outProjWeight; }});
        entries.push_back(
            {"out_proj_bias", Labels::Indices, [p] { return attn::Matrix(p->split.outProjBias); }});
    }
    return entries;
}

std::vector<Entry> allEntries(const MultiSnapshot& s)
{
    std::vector<Entry> entries;
    for (int i = 0; i < s.result.headCount(); ++i)
        for (Entry& e : headEntries(s, i))
            entries.push_back(std::move(e));
    for (Entry& e : combinedEntries(s))
        entries.push_back(std::move(e));
    return entries;
}

void writeCsv(std::ostream& out, const Entry& entry, const std::vector<std::string>& tokens)
{
    writeLabelledMatrixCsv(out, entry.make(), tokens, entry.labels);
}

void appendFiles(std::vector<OutputFile>* files, const std::vector<Entry>& entries,
                 const std::vector<std::string>* tokens, const ExportFormats& formats)
{
    for (const Entry& e : entries) {
        if (formats.csv)
            files->push_back(
                {e.name + ".csv", [e, tokens](std::ostream& out) { writeCsv(out, e, *tokens); }});
        if (formats.npy)
            files->push_back({e.name + ".npy", [e](std::ostream& out) { writeNpy(out, e.make()); }});
    }
}

}  // namespace

void writeMultiHeadJson(std::ostream& out, const MultiSnapshot& s)
{
    JsonWriter json(out);
    json.beginObject();
    writeAttentionJsonFields(json, s.focus);
    json.key("head_layout");
    json.value(attn::headLayoutName(s.layout));
    json.key("num_heads");
    json.value(s.result.headCount());
    json.key("head_init");
    json.value(std::string_view(s.headInit));
    json.key("heads");
    json.beginArray();
    for (int i = 0; i < s.result.headCount(); ++i) {
        json.beginObject();
        for (const Entry& e : headEntries(s, i)) {
            // "scores_head2" -> "scores": the key within the head's object.
            json.key(std::string_view(e.name).substr(0, e.name.rfind("_head")));
            writeJsonMatrix(json, e.make());
        }
        json.key("stats");
        writeAttentionStats(json, s.result.stats[std::size_t(i)], s.focus.model.tokenization.tokens);
        json.endObject();
    }
    json.endArray();
    for (const Entry& e : combinedEntries(s)) {
        json.key(e.name);
        if (e.name == "in_proj_bias")
            writeFlat(json, s.split.inProjBias);
        else if (e.name == "out_proj_bias")
            writeFlat(json, s.split.outProjBias);
        else
            writeJsonMatrix(json, e.make());
    }
    json.endObject();
    json.finish();
}

std::vector<OutputFile> multiHeadExportFiles(const MultiSnapshot& s, const ExportFormats& formats)
{
    ExportFormats single = formats;
    single.json = false;
    single.png = single.svg = single.pdf = false;
    std::vector<OutputFile> files;
    if (formats.json)
        files.push_back({"attention.json", [&s](std::ostream& out) { writeMultiHeadJson(out, s); }});
    for (OutputFile& f : attentionExportFiles(s.focus, single))
        files.push_back(std::move(f));
    appendFiles(&files, allEntries(s), &s.focus.model.tokenization.tokens, formats);
    return files;
}

std::vector<OutputFile> multiHeadResultFiles(const attn::MultiHeadResult& result,
                                             const std::vector<std::string>& tokens,
                                             const ExportFormats& formats)
{
    std::vector<Entry> entries;
    for (int i = 0; i < result.headCount(); ++i)
        for (Entry& e : resultHeadEntries(result, i))
            entries.push_back(std::move(e));
    for (Entry& e : resultCombinedEntries(result))
        entries.push_back(std::move(e));
    std::vector<OutputFile> files;
    appendFiles(&files, entries, &tokens, formats);
    return files;
}

std::string multiHeadMatrixCsv(const attn::Matrix& m, const std::vector<std::string>& tokens, bool queryKey)
{
    std::ostringstream out;
    writeLabelledMatrixCsv(out, m, tokens, queryKey ? Labels::QueryKey : Labels::TokenRows);
    return out.str();
}

}  // namespace legacy
