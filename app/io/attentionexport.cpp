// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionexport.h"

#include "echoedvalue.h"
#include "jsonwriter.h"
#include "matrixio.h"
#include "npy.h"

#include <utility>

namespace attnlab {

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

std::vector<MatrixEntry> matrices(const AttentionSnapshot& s)
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

namespace {

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
    std::vector<std::string> names;
    for (const MatrixEntry& entry : matrices(AttentionSnapshot()))
        names.emplace_back(entry.name);
    return names;
}

void writeAttentionJson(std::ostream& out, const AttentionSnapshot& s)
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

void writeAttentionJsonFields(JsonWriter& json, const AttentionSnapshot& s)
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

std::vector<OutputFile> attentionExportFiles(const AttentionSnapshot& snapshot, const ExportFormats& formats)
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

attn::Status exportAttention(const QString& directory, const AttentionSnapshot& snapshot,
                             const ExportFormats& formats)
{
    const attn::Status images = checkImageExport(formats);
    if (!images)
        return images;
    return writeFilesAtomically(directory, attentionExportFiles(snapshot, formats));
}

}  // namespace attnlab
