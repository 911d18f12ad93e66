// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads CSV text (RFC 4180, as csv.h describes) one row at a time, so that a
// reader keeps only what it makes of each row: memory does not grow with the
// number of rows, and blank lines cost nothing.

#include "csv.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

class CsvReader {
public:
    // A UTF-8 byte-order mark at the start is skipped. A row with more than
    // `maxCells` cells is an error, found before the extra cells are kept.
    explicit CsvReader(std::string_view text, std::size_t maxCells = std::size_t(-1));

    // The next row into `row`, reusing its strings; false at the end of the
    // text or on an error (then error() is not empty).
    bool next(CsvRow* row);
    const std::string& error() const { return error_; }

private:
    bool fail(int line, const std::string& what);

    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t maxCells_;
    int line_ = 1;
    std::string error_;
};

}  // namespace attnlab
