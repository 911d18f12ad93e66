// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The export formats of one attention run (the command line's --export-dir
// and the window's export both use these).
//
// attention.json: one object with the settings (sentence, tokens, token_ids,
// vocab, seed, d_model, d_k, d_v, init, tokenizer, scale_mode, scale_divisor,
// causal), the matrices X, W_q, W_k (d_model, d_k), W_v (d_model, d_v), Q, K,
// V, scores, scaled_scores, weights, context as arrays of rows, and stats.
// Numbers are written in their shortest round-trip form, so they read back
// exactly. JSON has no -inf: a masked entry of scaled_scores is null.
//
// NAME.csv for each matrix: the (n, n) maps (scores, scaled_scores, weights)
// have the key tokens as header and the query tokens as first column
// (corner "query/key"); the token-row matrices (X, Q, K, V, context) have the
// token as first column and dimension indices 0, 1, ... as header (corner
// "token"); the weights W_q, W_k, W_v have column indices as header and the
// row index as first column (corner "row"). A masked entry is -inf.
//
// NAME.npy for each matrix: float64 little-endian C order (numpy.load), a
// masked entry -inf.
//
// png, svg, pdf: pictures need the window's renderer, which this Qt Core
// layer does not have. The GUI layer registers an ImageExporter; without one
// these formats are refused with a message.

#include "attentionsnapshot.h"
#include "expected.h"
#include "stagedwrite.h"

#include <QString>

#include <functional>
#include <ostream>
#include <string_view>
#include <vector>

namespace attnlab {

struct ExportFormats {
    bool json = true;
    bool csv = true;
    bool npy = false;
    bool png = false;
    bool svg = false;
    bool pdf = false;
};

// A comma-separated list of json, csv, npy, png, svg, pdf (any order, blanks
// around names allowed), e.g. "json,csv". Image formats are accepted here;
// checkImageExport says whether they can be written.
attn::Expected<ExportFormats> parseExportFormats(std::string_view list);

enum class ImageFormat { Png, Svg, Pdf };
const char* imageFormatName(ImageFormat format);  // "png", "svg", "pdf"

// The picture files of one run in one format (names and writers, as for
// writeFilesAtomically); the writers may refer to `snapshot`.
using ImageExporter =
    std::function<std::vector<OutputFile>(const AttentionSnapshot& snapshot, ImageFormat format)>;

// Registered by the GUI layer; an empty function unregisters.
void setImageExporter(ImageExporter exporter);
bool haveImageExporter();

// An error such as "png export needs the window renderer ..." when an image
// format is asked for and no exporter is registered.
attn::Status checkImageExport(const ExportFormats& formats);

void writeAttentionJson(std::ostream& out, const AttentionSnapshot& snapshot);
// Its keys, into an object the caller has opened (the multi-head export
// adds its own after them).
class JsonWriter;
void writeAttentionJsonFields(JsonWriter& json, const AttentionSnapshot& snapshot);
// attention.json's "stats" object: the variances, each query row's largest
// weight, entropy and Jacobian norm (labelled with `tokens`), the means.
void writeAttentionStats(JsonWriter& json, const attn::AttentionStats& stats,
                         const std::vector<std::string>& tokens);

// The names of the matrices, in export order: "X", "W_q", ..., "context".
std::vector<std::string> exportedMatrixNames();

// attention.json, one NAME.csv and one NAME.npy per matrix, and the pictures
// of the registered image exporter, as `formats` asks (image formats without
// an exporter are skipped: call checkImageExport first). The writers refer to
// `snapshot`, which must outlive the returned files.
std::vector<OutputFile> attentionExportFiles(const AttentionSnapshot& snapshot, const ExportFormats& formats);

// checkImageExport, then writes attentionExportFiles into `directory`
// (created if missing), all or nothing (see writeFilesAtomically).
attn::Status exportAttention(const QString& directory, const AttentionSnapshot& snapshot,
                             const ExportFormats& formats);

}  // namespace attnlab
