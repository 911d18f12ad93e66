// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionexport.h"

#include "echoedvalue.h"
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

// One exported matrix: stored in the snapshot and written in place, or
// derived (a head's scaled scores and weights from its raw scores) when its
// file is written and dropped after, so at most one extra n x n map exists.
struct Entry {
    std::string name;
    Labels labels;
    const attn::Matrix* stored = nullptr;
    std::function<attn::Matrix()> derive;
    const attn::RowVector* flat = nullptr;  // a bias: a flat array in JSON, one row in CSV and .npy

    template <typename F>
    void with(F&& use) const
    {
        if (stored) {
            use(*stored);
            return;
        }
        const attn::Matrix m = derive();
        use(m);
    }
};

Entry stored(std::string name, Labels labels, const attn::Matrix& m)
{
    return {std::move(name), labels, &m, {}, nullptr};
}

std::string headTail(int i)
{
    return "_head" + std::to_string(i + 1);
}

// A head's matrices of the result alone (no parameters), named with `tail`.
std::vector<Entry> resultHeadEntries(const attn::AttentionResult& head, const std::string& tail)
{
    const attn::AttentionResult* r = &head;
    return {
        stored("Q" + tail, Labels::TokenRows, r->Q),
        stored("K" + tail, Labels::TokenRows, r->K),
        stored("V" + tail, Labels::TokenRows, r->V),
        stored("scores" + tail, Labels::QueryKey, r->scores),
        {"scaled_scores" + tail, Labels::QueryKey, nullptr, [r] { return r->scaledMatrix(); }},
        {"weights" + tail, Labels::QueryKey, nullptr, [r] { return r->weightsMatrix(); }},
        stored("context" + tail, Labels::TokenRows, r->context),
    };
}

// Head i's projections and result.
std::vector<Entry> headEntries(const AttentionSnapshot& s, int i, const std::string& tail)
{
    const attn::HeadWeights& w = s.headWeights(i);
    std::vector<Entry> entries = {
        stored("W_q" + tail, Labels::Indices, w.Wq),
        stored("W_k" + tail, Labels::Indices, w.Wk),
        stored("W_v" + tail, Labels::Indices, w.Wv),
    };
    for (Entry& e : resultHeadEntries(s.head(i), tail))
        entries.push_back(std::move(e));
    return entries;
}

// The single-head files: X and head 1's matrices.
std::vector<Entry> focusEntries(const AttentionSnapshot& s)
{
    std::vector<Entry> entries = {stored("X", Labels::TokenRows, s.X)};
    for (Entry& e : headEntries(s, 0, std::string()))
        entries.push_back(std::move(e));
    return entries;
}

// The heads' average, the concatenation and the output, where there is one.
std::vector<Entry> resultCombinedEntries(const attn::MultiHeadResult& result)
{
    std::vector<Entry> entries = {stored("weights_average", Labels::QueryKey, result.weightsAverage),
                                  stored("concat", Labels::TokenRows, result.concat)};
    if (result.hasOutput())
        entries.push_back(stored("output", Labels::TokenRows, result.output));
    return entries;
}

std::vector<Entry> combinedEntries(const AttentionSnapshot& s)
{
    std::vector<Entry> entries = resultCombinedEntries(s.result);
    // The single head keeps no average or concatenation: its weights and context.
    if (s.result.weightsAverage.size() == 0) {
        const attn::AttentionResult* r = &s.head();
        entries[0] = {"weights_average", Labels::QueryKey, nullptr, [r] { return r->weightsMatrix(); }};
    }
    if (s.result.concat.size() == 0)
        entries[1].stored = &s.head().context;
    if (s.layout() == attn::HeadLayout::Independent && s.Wo.size() > 0)
        entries.push_back(stored("W_o", Labels::Indices, s.Wo));
    if (s.layout() == attn::HeadLayout::Split) {
        const attn::SplitHeads* p = &s.split;
        entries.push_back(stored("in_proj_weight", Labels::Indices, p->inProjWeight));
        entries.push_back({"in_proj_bias", Labels::Indices, nullptr,
                           [p] { return attn::Matrix(p->inProjBias); }, &p->inProjBias});
        entries.push_back(stored("out_proj_weight", Labels::Indices, p->outProjWeight));
        entries.push_back({"out_proj_bias", Labels::Indices, nullptr,
                           [p] { return attn::Matrix(p->outProjBias); }, &p->outProjBias});
    }
    return entries;
}

// A multi-head run's files beside the single-head ones: every head's, then
// the combined ones.
std::vector<Entry> everyHeadEntries(const AttentionSnapshot& s)
{
    std::vector<Entry> entries;
    for (int i = 0; i < s.headCount(); ++i)
        for (Entry& e : headEntries(s, i, headTail(i)))
            entries.push_back(std::move(e));
    for (Entry& e : combinedEntries(s))
        entries.push_back(std::move(e));
    return entries;
}

void writeEntry(JsonWriter& json, const Entry& entry)
{
    json.key(entry.name);
    if (entry.flat) {
        writeJsonVector(json, *entry.flat);
        return;
    }
    entry.with([&json](const attn::Matrix& m) { writeJsonMatrix(json, m); });
}

void csvFile(std::vector<OutputFile>* files, const Entry& e, const std::vector<std::string>* tokens)
{
    files->push_back(
        {e.name + ".csv", [e, tokens](std::ostream& out) {
             e.with([&](const attn::Matrix& m) { writeLabelledMatrixCsv(out, m, *tokens, e.labels); });
         }});
}

void npyFile(std::vector<OutputFile>* files, const Entry& e)
{
    files->push_back({e.name + ".npy", [e](std::ostream& out) {
                          e.with([&out](const attn::Matrix& m) { writeNpy(out, m); });
                      }});
}

// Each entry's CSV and .npy, one after the other.
void appendFiles(std::vector<OutputFile>* files, const std::vector<Entry>& entries,
                 const std::vector<std::string>* tokens, const ExportFormats& formats)
{
    for (const Entry& e : entries) {
        if (formats.csv)
            csvFile(files, e, tokens);
        if (formats.npy)
            npyFile(files, e);
    }
}

void writeStrings(JsonWriter& json, const std::vector<std::string>& strings)
{
    json.beginArray(Layout::Inline);
    for (const std::string& s : strings)
        json.value(std::string_view(s));
    json.endArray();
}

// attention.json's "stats" object: the variances, each query row's largest
// weight, entropy and Jacobian norm (labelled with `tokens`), the means.
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

std::string trimmed(std::string_view s)
{
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    while (!s.empty() && blank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && blank(s.back()))
        s.remove_suffix(1);
    return std::string(s);
}

ImageExporter& registeredImageExporter()
{
    static ImageExporter exporter;
    return exporter;
}

const char* const kFormatList = "use json, csv, npy, png, svg or pdf, e.g. json,csv";

}  // namespace

const char* imageFormatName(ImageFormat format)
{
    switch (format) {
    case ImageFormat::Png: return "png";
    case ImageFormat::Svg: return "svg";
    case ImageFormat::Pdf: return "pdf";
    }
    return "png";
}

void setImageExporter(ImageExporter exporter)
{
    registeredImageExporter() = std::move(exporter);
}

bool haveImageExporter()
{
    return bool(registeredImageExporter());
}

attn::Status checkImageExport(const ExportFormats& formats)
{
    if (haveImageExporter())
        return attn::okStatus();
    for (const auto& [asked, format] :
         {std::pair{formats.png, ImageFormat::Png}, std::pair{formats.svg, ImageFormat::Svg},
          std::pair{formats.pdf, ImageFormat::Pdf}}) {
        if (asked)
            return attn::Error{std::string(imageFormatName(format))
                               + " export needs the window renderer, which is not available here; "
                                 "export json, csv or npy, or save the picture from the window"};
    }
    return attn::okStatus();
}

attn::Expected<ExportFormats> parseExportFormats(std::string_view list)
{
    ExportFormats formats{false, false, false, false, false, false};
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = list.find(',', start);
        const std::string name = trimmed(
            list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (name == "json")
            formats.json = true;
        else if (name == "csv")
            formats.csv = true;
        else if (name == "npy")
            formats.npy = true;
        else if (name == "png")
            formats.png = true;
        else if (name == "svg")
            formats.svg = true;
        else if (name == "pdf")
            formats.pdf = true;
        else if (name.empty())
            return attn::Error{"--format " + echoedValue(list) + " has an empty name; " + kFormatList};
        else
            return attn::Error{"unknown export format " + echoedValue(name) + "; " + kFormatList};
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return formats;
}

std::vector<std::string> exportedMatrixNames()
{
    const AttentionSnapshot one = singleHeadSnapshot({}, {}, {}, {}, {});
    std::vector<std::string> names;
    for (const Entry& entry : focusEntries(one))
        names.push_back(entry.name);
    return names;
}

void writeAttentionJson(std::ostream& out, const AttentionSnapshot& s)
{
    const attn::Tokenization& t = s.tokens;
    JsonWriter json(out);
    json.beginObject();
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
    json.value(s.head().divisor);
    json.key("causal");
    json.value(s.head().appliedMask().kind != attn::AttentionMask::Kind::None);
    json.key("mask");
    json.value(std::string_view(s.head().appliedMask().name()));
    for (const Entry& entry : focusEntries(s))
        writeEntry(json, entry);
    json.key("stats");
    writeAttentionStats(json, s.stats(), t.tokens);
    // Every head, the single one too, so that one reader reads both.
    json.key("head_layout");
    json.value(attn::headLayoutName(s.layout()));
    json.key("num_heads");
    json.value(s.headCount());
    if (s.multiHeadRun) {
        json.key("head_init");
        json.value(std::string_view(s.headInit));
    }
    json.key("heads");
    json.beginArray();
    for (int i = 0; i < s.headCount(); ++i) {
        json.beginObject();
        for (const Entry& entry : headEntries(s, i, std::string()))
            writeEntry(json, entry);
        json.key("stats");
        writeAttentionStats(json, s.stats(i), t.tokens);
        json.endObject();
    }
    json.endArray();
    for (const Entry& entry : combinedEntries(s))
        writeEntry(json, entry);
    json.endObject();
    json.finish();
}

std::vector<OutputFile> attentionExportFiles(const AttentionSnapshot& snapshot, const ExportFormats& formats)
{
    std::vector<OutputFile> files;
    if (formats.json) {
        files.push_back(
            {"attention.json", [&snapshot](std::ostream& out) { writeAttentionJson(out, snapshot); }});
    }
    const std::vector<std::string>* tokens = &snapshot.tokens.tokens;
    const std::vector<Entry> focus = focusEntries(snapshot);
    if (formats.csv)
        for (const Entry& entry : focus)
            csvFile(&files, entry, tokens);
    if (formats.npy)
        for (const Entry& entry : focus)
            npyFile(&files, entry);
    if (snapshot.multiHeadRun)
        appendFiles(&files, everyHeadEntries(snapshot), tokens, formats);
    const ImageExporter& images = registeredImageExporter();
    if (images) {
        for (const auto& [asked, format] :
             {std::pair{formats.png, ImageFormat::Png}, std::pair{formats.svg, ImageFormat::Svg},
              std::pair{formats.pdf, ImageFormat::Pdf}}) {
            if (!asked)
                continue;
            std::vector<OutputFile> pictures = images(snapshot, format);
            for (OutputFile& picture : pictures)
                files.push_back(std::move(picture));
        }
    }
    return files;
}

std::vector<OutputFile> multiHeadResultFiles(const attn::MultiHeadResult& result,
                                             const std::vector<std::string>& tokens,
                                             const ExportFormats& formats)
{
    std::vector<Entry> entries;
    for (int i = 0; i < result.headCount(); ++i)
        for (Entry& e : resultHeadEntries(result.heads[std::size_t(i)], headTail(i)))
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

attn::Status exportAttention(const QString& directory, const AttentionSnapshot& snapshot,
                             const ExportFormats& formats)
{
    const attn::Status images = checkImageExport(formats);
    if (!images)
        return images;
    return writeFilesAtomically(directory, attentionExportFiles(snapshot, formats));
}

}  // namespace attnlab
