// SPDX-License-Identifier: GPL-3.0-or-later
#include "multiheadexport.h"

#include "jsonwriter.h"
#include "matrixio.h"
#include "npy.h"

#include <functional>
#include <sstream>
#include <utility>

namespace attnlab {

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

std::vector<Entry> headEntries(const MultiHeadSnapshot& s, int i)
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

std::vector<Entry> combinedEntries(const MultiHeadSnapshot& s)
{
    const MultiHeadSnapshot* p = &s;
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

std::vector<Entry> allEntries(const MultiHeadSnapshot& s)
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

// Head 1 becomes the focus: the single-head export's keys and files.
void finishFocus(MultiHeadSnapshot* s, const attn::ModelConfig& config, const attn::AttentionOptions& options,
                 attn::Tokenization tokens, attn::Matrix X)
{
    const attn::HeadWeights& first = s->weights.front();
    AttentionSnapshot& f = s->focus;
    f.config = config;
    f.config.dModel = int(X.cols());
    f.config.dK = int(first.Wq.cols());
    f.config.dV = int(first.Wv.cols());
    f.options = options;
    f.model.tokenization = std::move(tokens);
    f.model.X = std::move(X);
    f.model.Wq = first.Wq;
    f.model.Wk = first.Wk;
    f.model.Wv = first.Wv;
    f.result = s->result.heads.front();
    f.stats = s->result.stats.front();
}

attn::Status checkTokens(const attn::Tokenization& tokens, const attn::Matrix& X)
{
    if (int(tokens.tokens.size()) != X.rows())
        return attn::Error{"X has " + std::to_string(X.rows()) + " rows but there are "
                           + std::to_string(tokens.tokens.size()) + " tokens; X needs one row per token"};
    return attn::okStatus();
}

}  // namespace

attn::Expected<MultiHeadSnapshot> computeMultiHeadSnapshot(const attn::ModelConfig& config,
                                                           const attn::AttentionOptions& options,
                                                           attn::Tokenization tokens, attn::Matrix X,
                                                           attn::IndependentHeads params,
                                                           std::string headInit)
{
    if (attn::Status s = checkTokens(tokens, X); !s)
        return s.error();
    MultiHeadSnapshot snapshot;
    if (attn::Status s = attn::computeMultiHeadInto(X, params, options, &snapshot.result); !s)
        return s.error();
    snapshot.layout = attn::HeadLayout::Independent;
    snapshot.headInit = std::move(headInit);
    snapshot.weights = std::move(params.heads);
    snapshot.Wo = std::move(params.Wo);
    finishFocus(&snapshot, config, options, std::move(tokens), std::move(X));
    return snapshot;
}

attn::Expected<MultiHeadSnapshot> computeMultiHeadSnapshot(const attn::ModelConfig& config,
                                                           const attn::AttentionOptions& options,
                                                           attn::Tokenization tokens, attn::Matrix X,
                                                           attn::SplitHeads params, std::string headInit)
{
    if (attn::Status s = checkTokens(tokens, X); !s)
        return s.error();
    MultiHeadSnapshot snapshot;
    if (attn::Status s = attn::computeMultiHeadInto(X, params, options, &snapshot.result); !s)
        return s.error();
    snapshot.layout = attn::HeadLayout::Split;
    snapshot.headInit = std::move(headInit);
    for (int i = 0; i < params.heads; ++i)
        snapshot.weights.push_back(params.head(i));
    snapshot.split = std::move(params);
    finishFocus(&snapshot, config, options, std::move(tokens), std::move(X));
    return snapshot;
}

void writeMultiHeadJson(std::ostream& out, const MultiHeadSnapshot& s)
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

std::vector<OutputFile> multiHeadExportFiles(const MultiHeadSnapshot& s, const ExportFormats& formats)
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

}  // namespace attnlab
