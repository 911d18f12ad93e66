// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// NumPy's .npy files (numpy.save, numpy.lib.format) as attn::Matrix.
//
// Layout: the magic "\x93NUMPY", a major and a minor version byte, the header
// length (2 bytes little-endian in version 1.0, 4 bytes in 2.0 and 3.0), then
// a Python dict literal such as
//   {'descr': '<f8', 'fortran_order': False, 'shape': (6, 16), }
// padded with blanks and "\n", then the raw entries. Version 3.0 only allows
// UTF-8 in the header, which changes nothing for the keys read here.
//
// Reading accepts float32 and float64 in either byte order ('<f4', '>f4',
// '<f8', '>f8'), C (row-major) or Fortran (column-major) order, versions 1.0,
// 2.0 and 3.0. A 2-D array (rows, cols) is the matrix; a 1-D array (k,) is
// read as one row (1, k), which is what numpy gives for a single embedding.
// The header is read as numpy.load reads it (numpy.lib.format, checked
// against numpy 1.24): its keys must be exactly 'descr', 'fortran_order' and
// 'shape', a key written twice has its last value, 'shape' is a tuple of
// integers ("(6)" is not a tuple, "[6]" is a list: both refused),
// 'fortran_order' is True or False, the "3L" of Python 2 is allowed in
// versions 1.0 and 2.0 only, and the header is at most 10000 characters
// (numpy.load's default max_header_size).
// Everything else is refused with a message naming the file and what is
// wrong: bad magic, an unknown version, a truncated header or data, a header
// whose shape does not match the bytes that follow, another dtype (named),
// another rank, an empty or oversized shape (checked before any allocation),
// and a NaN or infinite entry (the cell named).
//
// Writing produces float64 little-endian C order, version 1.0 (2.0 only if
// the header would not fit 65535 bytes), which numpy.load reads and which
// reads back here bit for bit.

#include "expected.h"
#include "matrix.h"

#include <QString>

#include <atomic>
#include <ostream>
#include <string>
#include <string_view>

namespace attnlab {

// `bytes` is the whole file; `name` ("W_q.npy") starts every message. Each
// dimension is at most attn::kMaxTokens and the array at most
// attn::kMaxMatrixEntries (X at its limits); checkShape then applies the
// limits of the role.
attn::Expected<attn::Matrix> parseNpy(std::string_view bytes, std::string_view name);

// Reads the file through readInputFile, capped at what the largest accepted
// array needs (about 32 MiB), so a huge file, /dev/zero or an endless pipe is
// refused without holding more; a pipe is read like a file. Then parseNpy.
// Messages name the file by its file name.
// `stop` as for readInputFile.
attn::Expected<attn::Matrix> readNpyFile(const QString& path, const std::atomic<bool>* stop = nullptr);

// float64 little-endian, C order; non-finite entries are written as they are.
void writeNpy(std::ostream& out, const attn::Matrix& m);
std::string npyBytes(const attn::Matrix& m);

// `m` has shape (expectedRows, expectedCols); -1 accepts any size there.
// `dims` says what the shape means ("d_model x d_k"). When the transposed
// matrix would fit, `transposeHint` is added to the message. Example:
//   W_q.npy has shape (24, 16) but (16, 24) was expected (d_model x d_k);
//   use --transpose-weights for PyTorch's nn.Linear.weight (d_out x d_in)
attn::Status checkShape(std::string_view name, const attn::Matrix& m, int expectedRows, int expectedCols,
                        std::string_view dims, std::string_view transposeHint = {});

}  // namespace attnlab
