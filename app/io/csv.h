// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Comma-separated values as in RFC 4180.
//
// Writing: a field is quoted when it holds a comma, a double quote, a line
// break, or leading or trailing blanks; a quote inside is doubled
// ("say ""hi"""). Rows end in "\n".
// Reading: "\n" or "\r\n" row ends, quoted fields may span lines, a UTF-8
// byte-order mark is skipped, a final row end is optional.

#include "expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

using CsvRow = std::vector<std::string>;

void appendCsvField(std::string& out, std::string_view field);
void appendCsvRow(std::string& out, const CsvRow& row);  // with the row end

// Every row as written; an error names the line (1-based) of an unterminated
// quoted field or of text after a closing quote.
attn::Expected<std::vector<CsvRow>> parseCsv(std::string_view text);

}  // namespace attnlab
