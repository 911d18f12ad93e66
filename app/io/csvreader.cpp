// SPDX-License-Identifier: GPL-3.0-or-later
#include "csvreader.h"

namespace attnlab {

CsvReader::CsvReader(std::string_view text, std::size_t maxCells) : text_(text), maxCells_(maxCells)
{
    if (text_.substr(0, 3) == "\xEF\xBB\xBF")
        pos_ = 3;
}

bool CsvReader::fail(int line, const std::string& what)
{
    error_ = "CSV line " + std::to_string(line) + ": " + what;
    pos_ = text_.size();
    return false;
}

bool CsvReader::next(CsvRow* row)
{
    // A row starts wherever text is left; the final row end is optional.
    const std::size_t n = text_.size();
    if (pos_ >= n)
        return false;
    std::size_t cells = 0;
    const auto newCell = [&]() -> std::string* {
        if (cells == maxCells_)
            return nullptr;
        if (cells == row->size())
            row->emplace_back();
        std::string* cell = &(*row)[cells++];
        cell->clear();
        return cell;
    };
    const auto tooMany = [&] {
        return fail(line_, "more than " + std::to_string(maxCells_) + " cells in a row");
    };
    std::string* field = newCell();
    if (!field)
        return tooMany();
    while (pos_ < n) {
        if (text_[pos_] == '"' && field->empty()) {
            // A quoted field runs to the next quote that is not doubled.
            const int startLine = line_;
            ++pos_;
            bool closed = false;
            while (pos_ < n) {
                const char c = text_[pos_++];
                if (c == '"') {
                    if (pos_ < n && text_[pos_] == '"') {
                        field->push_back('"');
                        ++pos_;
                    } else {
                        closed = true;
                        break;
                    }
                } else {
                    if (c == '\n')
                        ++line_;
                    field->push_back(c);
                }
            }
            if (!closed)
                return fail(startLine, "a quoted field is never closed");
            if (pos_ < n && text_[pos_] != ',' && text_[pos_] != '\n' && text_[pos_] != '\r')
                return fail(line_, "text after the closing quote of a field");
            if (pos_ == n)
                break;
        }
        const char c = text_[pos_++];
        if (c == ',') {
            field = newCell();
            if (!field)
                return tooMany();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && pos_ < n && text_[pos_] == '\n')
                ++pos_;
            ++line_;
            break;
        } else {
            field->push_back(c);
        }
    }
    row->resize(cells);
    return true;
}

}  // namespace attnlab
