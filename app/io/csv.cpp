// SPDX-License-Identifier: GPL-3.0-or-later
#include "csv.h"

#include "csvreader.h"

namespace attnlab {

namespace {

bool needsQuotes(std::string_view field)
{
    if (field.empty())
        return false;
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    if (blank(field.front()) || blank(field.back()))
        return true;
    // A leading byte-order mark would be skipped by the reader at the start
    // of a file (found by fuzzing: a field that was only a BOM vanished).
    if (field.substr(0, 3) == "\xEF\xBB\xBF")
        return true;
    return field.find_first_of(",\"\r\n") != std::string_view::npos;
}

}  // namespace

void appendCsvField(std::string& out, std::string_view field)
{
    if (!needsQuotes(field)) {
        out += field;
        return;
    }
    out += '"';
    for (const char c : field) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

void appendCsvRow(std::string& out, const CsvRow& row)
{
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (i > 0)
            out += ',';
        appendCsvField(out, row[i]);
    }
    out += '\n';
}

attn::Expected<std::vector<CsvRow>> parseCsv(std::string_view text)
{
    CsvReader reader(text);
    std::vector<CsvRow> rows;
    CsvRow row;
    while (reader.next(&row))
        rows.push_back(row);
    if (!reader.error().empty())
        return attn::Error{reader.error()};
    return rows;
}

}  // namespace attnlab
