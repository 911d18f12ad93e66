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

#include "attentionsnapshot.h"
#include "expected.h"
#include "stagedwrite.h"

#include <QString>

#include <ostream>
#include <string_view>
#include <vector>

namespace attnlab {

struct ExportFormats {
    bool json = true;
    bool csv = true;
};

// "json", "csv", "json,csv" (any order, blanks around names allowed).
attn::Expected<ExportFormats> parseExportFormats(std::string_view list);

void writeAttentionJson(std::ostream& out, const AttentionSnapshot& snapshot);

// The names of the matrices, in export order: "X", "W_q", ..., "context".
std::vector<std::string> exportedMatrixNames();

// attention.json and/or one NAME.csv per matrix. The writers refer to
// `snapshot`, which must outlive the returned files.
std::vector<OutputFile> attentionExportFiles(const AttentionSnapshot& snapshot,
                                             const ExportFormats& formats);

// Writes attentionExportFiles into `directory` (created if missing), all or
// nothing (see writeFilesAtomically).
attn::Status exportAttention(const QString& directory, const AttentionSnapshot& snapshot,
                             const ExportFormats& formats);

}  // namespace attnlab
