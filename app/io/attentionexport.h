// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The export formats of one attention run, the lesson's single head and a
// multi-head run alike (the command line's --export-dir and the window's
// export both use these): one writer, whose files for the single head
// (h = 1) are the first files of a multi-head run.
//
// attention.json: one object with the settings (sentence, tokens, token_ids,
// vocab, seed, d_model, d_k, d_v, init, tokenizer, scale_mode, scale_divisor,
// causal: true for every mask that hides the keys after the query, mask: "none", "causal",
// "sliding:W" or "sink:S,window:W"), head 1's matrices X, W_q, W_k (d_model, d_k), W_v (d_model, d_v),
// Q, K, V, scores, scaled_scores, weights, context as arrays of rows, and its
// stats. Numbers are written in their shortest round-trip form, so they read
// back exactly. JSON has no -inf: a masked entry of scaled_scores is null.
// Then the heads: head_layout ("independent" or "split"), num_heads, for a
// multi-head run head_init (article, normal, unit-variance, torch-mha or
// mha-state), heads (h objects with W_q, W_k, W_v, Q, K, V, scores (raw),
// scaled_scores (masked entries null), weights, context and stats),
// weights_average (n, n), concat (n, h d_v), and, with an output
// projection, output (n, d_out) and, in the independent layout, W_o
// (h d_v, d_out). The split layout adds in_proj_weight (3E, E),
// in_proj_bias (3E), out_proj_weight (E, E) and out_proj_bias (E) in
// PyTorch's own layout. The single head writes its one head there too: its
// average is its weights, its concatenation its context.
//
// NAME.csv for each of head 1's matrices: the (n, n) maps (scores,
// scaled_scores, weights) have the key tokens as header and the query tokens
// as first column (corner "query/key"); the token-row matrices (X, Q, K, V,
// context) have the token as first column and dimension indices 0, 1, ... as
// header (corner "token"); the weights W_q, W_k, W_v have column indices as
// header and the row index as first column (corner "row"). A masked entry is
// -inf. A multi-head run adds per head i = 1..h NAME_head<i> for W_q, W_k,
// W_v, Q, K, V, scores, scaled_scores, weights, context, and
// weights_average, concat, output, W_o, in_proj_weight, in_proj_bias,
// out_proj_weight, out_proj_bias where they apply (a bias is one row).
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
#include <string>
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

// The names of head 1's matrices, in export order: "X", "W_q", ..., "context".
std::vector<std::string> exportedMatrixNames();

// attention.json, one NAME.csv and one NAME.npy per matrix (a multi-head
// run's every head's too), and the pictures of the registered image
// exporter, as `formats` asks (image formats without an exporter are
// skipped: call checkImageExport first). The writers refer to `snapshot`,
// which must outlive the returned files.
std::vector<OutputFile> attentionExportFiles(const AttentionSnapshot& snapshot, const ExportFormats& formats);

// The files of a multi-head result alone, as CSV and .npy as `formats`
// asks (the window's export, which has no parameters at hand here): per
// head i = 1..h Q_head<i>, K, V, scores, scaled_scores, weights, context,
// then weights_average, concat and output (with a projection), named and
// labelled as above. The writers refer to `result` and `tokens`.
std::vector<OutputFile> multiHeadResultFiles(const attn::MultiHeadResult& result,
                                             const std::vector<std::string>& tokens,
                                             const ExportFormats& formats);

// One matrix as the CSV above: query/key labels for an (n, n) map, token
// rows and dimension columns otherwise.
std::string multiHeadMatrixCsv(const attn::Matrix& m, const std::vector<std::string>& tokens, bool queryKey);

// checkImageExport, then writes attentionExportFiles into `directory`
// (created if missing), all or nothing (see writeFilesAtomically).
attn::Status exportAttention(const QString& directory, const AttentionSnapshot& snapshot,
                             const ExportFormats& formats);

}  // namespace attnlab
