// SPDX-License-Identifier: GPL-3.0-or-later
#include "pyliteralparser.h"

#include <limits>
#include <tuple>
#include <utility>

namespace attnlab {

bool PyLiteralParser::parse(PyValue* value)
{
    if (!parseValue(value, 0))
        return false;
    skipBlanks();
    return pos_ == text_.size();
}

void PyLiteralParser::skipBlanks()
{
    while (pos_ < text_.size()
           && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r'))
        ++pos_;
}

bool PyLiteralParser::take(char c)
{
    skipBlanks();
    if (pos_ < text_.size() && text_[pos_] == c) {
        ++pos_;
        return true;
    }
    return false;
}

bool PyLiteralParser::parseValue(PyValue* value, int depth)
{
    if (depth > 16)
        return false;
    skipBlanks();
    if (pos_ >= text_.size())
        return false;
    const char c = text_[pos_];
    if (c == '\'' || c == '"') {
        value->type = PyValue::Type::String;
        return parseString(&value->text);
    }
    if (c == '{')
        return parseDict(value, depth);
    if (c == '(' || c == '[')
        return parseSequence(value, c == '(' ? ')' : ']', depth);
    if (c >= '0' && c <= '9')
        return parseInteger(value);
    for (const auto& [word, type, flag] : {std::tuple{"True", PyValue::Type::Boolean, true},
                                           std::tuple{"False", PyValue::Type::Boolean, false},
                                           std::tuple{"None", PyValue::Type::None, false}}) {
        const std::string_view w(word);
        if (text_.substr(pos_, w.size()) == w) {
            pos_ += w.size();
            value->type = type;
            value->boolean = flag;
            return true;
        }
    }
    return false;
}

bool PyLiteralParser::parseString(std::string* out)
{
    const char quote = text_[pos_++];
    while (pos_ < text_.size()) {
        const char c = text_[pos_++];
        if (c == quote)
            return true;
        if (c == '\\') {
            if (pos_ >= text_.size())
                return false;
            out->push_back(text_[pos_++]);
        } else {
            out->push_back(c);
        }
    }
    return false;
}

bool PyLiteralParser::parseInteger(PyValue* value)
{
    value->type = PyValue::Type::Integer;
    constexpr unsigned long long max = std::numeric_limits<unsigned long long>::max();
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        const unsigned digit = unsigned(text_[pos_++] - '0');
        if (value->integer > (max - digit) / 10)
            value->tooLarge = true;
        else
            value->integer = value->integer * 10 + digit;
    }
    // Python 2 numpy wrote long integers as "3L".
    if (longSuffix_ && pos_ < text_.size() && text_[pos_] == 'L')
        ++pos_;
    return true;
}

bool PyLiteralParser::parseSequence(PyValue* value, char close, int depth)
{
    value->type = PyValue::Type::Sequence;
    value->list = close == ']';
    ++pos_;
    if (take(close))
        return true;
    while (true) {
        PyValue item;
        if (!parseValue(&item, depth + 1))
            return false;
        value->items.push_back(std::move(item));
        if (take(close)) {
            // "(x)" without a comma is x in parentheses.
            if (!value->list && value->items.size() == 1) {
                PyValue inner = std::move(value->items.front());
                *value = std::move(inner);
            }
            return true;
        }
        if (!take(','))
            return false;
        if (take(close))
            return true;
    }
}

bool PyLiteralParser::parseDict(PyValue* value, int depth)
{
    value->type = PyValue::Type::Dict;
    ++pos_;
    if (take('}'))
        return true;
    while (true) {
        skipBlanks();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
            return false;
        std::string key;
        if (!parseString(&key) || !take(':'))
            return false;
        PyValue item;
        if (!parseValue(&item, depth + 1))
            return false;
        value->keys.push_back(std::move(key));
        value->items.push_back(std::move(item));
        if (take('}'))
            return true;
        if (!take(','))
            return false;
        if (take('}'))
            return true;
    }
}

}  // namespace attnlab
