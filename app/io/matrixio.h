// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One matrix as a labelled CSV table, and back.
//
//   corner,   col 0,    col 1, ...
//   row 0,    m(0, 0),  m(0, 1), ...
//
// Numbers are formatRoundTrip's shortest round-trip form, so a matrix read back
// is bit-for-bit the one written; a masked score is "-inf".

#include "expected.h"
#include "matrix.h"

#include <QString>

#include <atomic>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

struct LabelledMatrix {
    std::string corner;                     // the top-left cell
    std::vector<std::string> columnLabels;  // one per column
    std::vector<std::string> rowLabels;     // one per row
    attn::Matrix values;                    // (rows, columns)
};

// `rowLabels` has m.rows() entries and `columnLabels` m.cols() entries.
void writeMatrixCsv(std::ostream& out, const attn::Matrix& m, const std::vector<std::string>& rowLabels,
                    const std::vector<std::string>& columnLabels, std::string_view corner);

// "0", "1", ... count - 1: the labels of dimensions and weight rows.
std::vector<std::string> indexLabels(int count);

// How an exported matrix's CSV is labelled: tokens down the rows and
// indices across (X, Q, K, V, context), tokens both ways (the n x n maps),
// or indices both ways (W_q, W_k, W_v).
enum class CsvLabels { TokenRows, QueryKey, Indices };
void writeLabelledMatrixCsv(std::ostream& out, const attn::Matrix& m, const std::vector<std::string>& tokens,
                            CsvLabels labels);

// A table written by writeMatrixCsv (or a spreadsheet): a header row, then
// rows of one label and as many numbers as the header has columns. Or a
// plain table of numbers only, as numpy.savetxt(..., delimiter=",") writes
// it (no header, no labels, every row a matrix row): told apart by its
// top-left cell, a number there and text or nothing in a labelled table.
// The labels of a plain table are left empty. Trailing empty lines are
// ignored. The error names the row and column (1-based, the header is row 1)
// of the first cell that is missing or not a number.
// Read row by row in time and memory linear in the text: a row is checked
// before it is kept, and a table beyond a matrix's limits (attn::kMaxTokens
// rows or columns, attn::kMaxMatrixEntries numbers) is refused at the row
// that passes them. Text with a NUL byte (UTF-16) is refused as not UTF-8.
attn::Expected<LabelledMatrix> readMatrixCsv(std::string_view text);

// A matrix file by its suffix: .csv (either kind above, case-insensitive
// suffix) or else NumPy .npy (readNpyFile), read through readInputFile
// (a CSV file at most attn::kMaxMatrixCsvBytes). As an input of the engine:
// every entry finite and within attn::kMaxInputMagnitude, else refused here,
// naming the file's own row and column (a CSV's header row and label column
// counted). Errors start with the file name. Given `stop`, a pipe's read
// gives up once it is set (see readInputFile), with ErrorKind::Cancelled.
attn::Expected<attn::Matrix> readMatrixFile(const QString& path, const std::atomic<bool>* stop = nullptr);

}  // namespace attnlab
