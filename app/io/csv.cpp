// SPDX-License-Identifier: GPL-3.0-or-later
#include "csv.h"

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
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);

    std::vector<CsvRow> rows;
    CsvRow row;
    std::string field;
    int line = 1;
    std::size_t i = 0;
    const std::size_t n = text.size();

    const auto endRow = [&] {
        row.push_back(std::move(field));
        field.clear();
        rows.push_back(std::move(row));
        row.clear();
    };

    while (i < n) {
        if (text[i] == '"' && field.empty()) {
            // A quoted field runs to the next quote that is not doubled.
            const int startLine = line;
            ++i;
            bool closed = false;
            while (i < n) {
                const char c = text[i++];
                if (c == '"') {
                    if (i < n && text[i] == '"') {
                        field += '"';
                        ++i;
                    } else {
                        closed = true;
                        break;
                    }
                } else {
                    if (c == '\n')
                        ++line;
                    field += c;
                }
            }
            if (!closed)
                return attn::Error{"CSV line " + std::to_string(startLine)
                                   + ": a quoted field is never closed"};
            if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
                return attn::Error{"CSV line " + std::to_string(line)
                                   + ": text after the closing quote of a field"};
            if (i == n)
                break;
        }
        const char c = text[i++];
        if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i < n && text[i] == '\n')
                ++i;
            endRow();
            ++line;
        } else {
            field += c;
        }
    }
    // The last row, unless the text ended with its row end.
    if (!row.empty() || !field.empty() || (n > 0 && text[n - 1] == '"'))
        endRow();
    return rows;
}

}  // namespace attnlab
