// SPDX-License-Identifier: GPL-3.0-or-later
#include "labreader.h"

#include <algorithm>

namespace attnlab {

std::string quotedKey(std::string_view key)
{
    return "\"" + std::string(key) + "\"";
}

attn::Status checkMatrixShape(const std::string& name, const attn::Matrix& m, long long rows, long long cols,
                              const std::string& what)
{
    if (m.rows() == rows && m.cols() == cols)
        return attn::okStatus();
    return attn::Error{name + " is (" + std::to_string(m.rows()) + ", " + std::to_string(m.cols())
                       + ") but must be (" + std::to_string(rows) + ", " + std::to_string(cols)
                       + "): " + what};
}

std::string LabReader::name(std::string_view key) const
{
    return prefix_ + quotedKey(key);
}

const JsonValue* LabReader::field(std::string_view key, Type type, bool required)
{
    if (error_)
        return nullptr;
    const JsonValue* value = object_.find(key);
    if (!value) {
        if (required)
            fail("the field " + name(key) + " is missing");
        return nullptr;
    }
    if (value->type() != type) {
        fail(name(key) + " (line " + std::to_string(value->line()) + ") must be " + JsonValue::typeName(type)
             + ", not " + JsonValue::typeName(value->type()));
        return nullptr;
    }
    return value;
}

std::string LabReader::string(std::string_view key)
{
    const JsonValue* v = field(key, Type::String);
    return v ? v->text() : std::string();
}

bool LabReader::boolean(std::string_view key)
{
    const JsonValue* v = field(key, Type::Boolean);
    return v && v->boolean();
}

double LabReader::number(std::string_view key, double fallback, bool required)
{
    const JsonValue* v = field(key, Type::Number, required);
    return v ? v->number() : fallback;
}

attn::Matrix LabReader::matrix(std::string_view key)
{
    const JsonValue* v = field(key, Type::Array);
    if (!v)
        return {};
    const std::string what = name(key);
    if (v->size() == 0 || v->allNumbers()) {
        fail(what + " (line " + std::to_string(v->line())
             + ") must be an array of rows, each an array of numbers"
             + (v->size() == 0 ? "; it is empty" : "; it is a flat array"));
        return {};
    }
    const std::vector<JsonValue>& rows = v->items();
    const std::size_t cols = rows.front().size();
    attn::Matrix m(Eigen::Index(rows.size()), Eigen::Index(cols));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const JsonValue& row = rows[i];
        const std::string where =
            what + " row " + std::to_string(i + 1) + " (line " + std::to_string(row.line()) + ")";
        if (!row.isArray()) {
            fail(where + " must be an array of numbers, not " + JsonValue::typeName(row.type()));
            return {};
        }
        if (!row.allNumbers()) {
            for (std::size_t j = 0; j < row.items().size(); ++j) {
                if (!row.items()[j].isNumber()) {
                    fail(where + ", entry " + std::to_string(j + 1) + " must be a number, not "
                         + JsonValue::typeName(row.items()[j].type()));
                    return {};
                }
            }
        }
        if (row.size() == 0) {
            fail(where + " is empty");
            return {};
        }
        if (row.size() != cols) {
            fail(where + " has " + std::to_string(row.size()) + " numbers but row 1 has "
                 + std::to_string(cols) + "; every row needs the same number of columns");
            return {};
        }
        for (std::size_t j = 0; j < cols; ++j)
            m(Eigen::Index(i), Eigen::Index(j)) = row.numbers()[j];
    }
    return m;
}

attn::RowVector LabReader::vector(std::string_view key)
{
    const JsonValue* v = field(key, Type::Array);
    if (!v)
        return {};
    const std::string where = name(key) + " (line " + std::to_string(v->line()) + ")";
    if (v->size() == 0) {
        fail(where + " must be a flat array of numbers; it is empty");
        return {};
    }
    if (!v->allNumbers()) {
        for (std::size_t j = 0; j < v->items().size(); ++j) {
            if (!v->items()[j].isNumber()) {
                fail(where + ", entry " + std::to_string(j + 1) + " must be a number, not "
                     + JsonValue::typeName(v->items()[j].type()));
                return {};
            }
        }
    }
    attn::RowVector row(Eigen::Index(v->size()));
    for (std::size_t j = 0; j < v->size(); ++j)
        row[Eigen::Index(j)] = v->numbers()[j];
    return row;
}

std::vector<std::string> LabReader::unknownKeys(const std::vector<std::string_view>& known) const
{
    std::vector<std::string> unknown;
    for (const auto& [key, value] : object_.members())
        if (std::find(known.begin(), known.end(), key) == known.end())
            unknown.push_back(key);
    return unknown;
}

}  // namespace attnlab
