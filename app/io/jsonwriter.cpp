// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonwriter.h"

#include "numberformat.h"

#include <cmath>

namespace attnlab {

namespace {
constexpr std::size_t kFlushBytes = 1 << 16;
}

JsonWriter::JsonWriter(std::ostream& out) : out_(out)
{
}

JsonWriter::~JsonWriter()
{
    if (!buffer_.empty())
        out_.write(buffer_.data(), std::streamsize(buffer_.size()));
}

void JsonWriter::newline(std::size_t depth)
{
    buffer_ += '\n';
    buffer_.append(2 * depth, ' ');
}

void JsonWriter::beforeValue()
{
    if (afterKey_) {
        afterKey_ = false;
        return;
    }
    if (levels_.empty())
        return;
    Level& level = levels_.back();
    if (!level.empty)
        buffer_ += level.layout == Layout::Inline ? ", " : ",";
    if (level.layout == Layout::Block)
        newline(levels_.size());
    level.empty = false;
}

void JsonWriter::open(char bracket, Layout layout)
{
    beforeValue();
    buffer_ += bracket;
    // Inside an inline container everything stays on its line.
    const bool parentInline = !levels_.empty() && levels_.back().layout == Layout::Inline;
    levels_.push_back({parentInline ? Layout::Inline : layout});
}

void JsonWriter::close(char bracket)
{
    const Level level = levels_.back();
    levels_.pop_back();
    if (level.layout == Layout::Block && !level.empty)
        newline(levels_.size());
    buffer_ += bracket;
    flushIfLarge();
}

void JsonWriter::beginObject(Layout layout)
{
    open('{', layout);
}
void JsonWriter::endObject()
{
    close('}');
}
void JsonWriter::beginArray(Layout layout)
{
    open('[', layout);
}
void JsonWriter::endArray()
{
    close(']');
}

void JsonWriter::key(std::string_view name)
{
    beforeValue();
    appendQuoted(buffer_, name);
    buffer_ += ": ";
    afterKey_ = true;
}

void JsonWriter::value(double number)
{
    beforeValue();
    if (std::isfinite(number))
        appendNumber(buffer_, number);
    else
        buffer_ += "null";
}

void JsonWriter::value(int number)
{
    value(std::int64_t(number));
}

void JsonWriter::value(std::int64_t number)
{
    beforeValue();
    buffer_ += std::to_string(number);
}

void JsonWriter::value(std::uint64_t number)
{
    beforeValue();
    buffer_ += std::to_string(number);
}

void JsonWriter::value(bool flag)
{
    beforeValue();
    buffer_ += flag ? "true" : "false";
}

void JsonWriter::value(std::string_view text)
{
    beforeValue();
    appendQuoted(buffer_, text);
}

void JsonWriter::null()
{
    beforeValue();
    buffer_ += "null";
}

void JsonWriter::finish()
{
    buffer_ += '\n';
    out_.write(buffer_.data(), std::streamsize(buffer_.size()));
    buffer_.clear();
    out_.flush();
}

void JsonWriter::flushIfLarge()
{
    if (buffer_.size() < kFlushBytes)
        return;
    out_.write(buffer_.data(), std::streamsize(buffer_.size()));
    buffer_.clear();
}

void JsonWriter::appendQuoted(std::string& out, std::string_view text)
{
    static const char hex[] = "0123456789abcdef";
    out += '"';
    for (const char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                out += "\\u00";
                out += hex[(c >> 4) & 0xf];
                out += hex[c & 0xf];
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

void writeJsonMatrix(JsonWriter& json, const attn::Matrix& m)
{
    json.beginArray();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        json.beginArray(JsonWriter::Layout::Inline);
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            json.value(m(i, j));
        json.endArray();
    }
    json.endArray();
}

void writeJsonVector(JsonWriter& json, const attn::RowVector& v)
{
    json.beginArray(JsonWriter::Layout::Inline);
    for (Eigen::Index j = 0; j < v.size(); ++j)
        json.value(v[j]);
    json.endArray();
}

}  // namespace attnlab
