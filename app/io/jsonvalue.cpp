// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonvalue.h"

#include <QJsonArray>
#include <QJsonObject>

#include <charconv>
#include <system_error>
#include <tuple>
#include <unordered_set>

namespace attnlab {

// Recursive descent over the text; one instance per document.
class JsonParser {
public:
    JsonParser(std::string_view text, const JsonLimits& limits) : text_(text), limits_(limits) {}

    attn::Expected<JsonValue> parseDocument()
    {
        // A UTF-8 byte-order mark, as some editors save one.
        if (text_.substr(0, 3) == "\xEF\xBB\xBF")
            pos_ = 3;
        JsonValue root;
        skipBlanks();
        if (pos_ >= text_.size())
            return attn::Error{"the file is empty"};
        if (!parseValue(&root, 0))
            return attn::Error{error_};
        skipBlanks();
        if (pos_ < text_.size())
            return attn::Error{where() + ": text after the end of the JSON document"};
        return root;
    }

private:
    static constexpr int kMaxDepth = 64;

    std::string where() const
    {
        int line = 1;
        std::size_t lineStart = 0;
        for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i)
            if (text_[i] == '\n') {
                ++line;
                lineStart = i + 1;
            }
        return "line " + std::to_string(line) + ", column " + std::to_string(pos_ - lineStart + 1);
    }

    bool failAt(const std::string& what)
    {
        error_ = pos_ >= text_.size() ? "the file ends early (" + what + ")" : where() + ": " + what;
        return false;
    }

    void skipBlanks()
    {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '\n')
                ++line_;
            else if (c != ' ' && c != '\t' && c != '\r')
                break;
            ++pos_;
        }
    }

    bool parseValue(JsonValue* value, int depth)
    {
        skipBlanks();
        if (pos_ >= text_.size())
            return failAt("a value is missing");
        if (depth > kMaxDepth)
            return failAt("nested more than " + std::to_string(kMaxDepth) + " levels deep");
        if (++values_ > limits_.maxValues)
            return failAt(tooMany(limits_.maxValues, "values"));
        value->line_ = line_;
        const char c = text_[pos_];
        if (c == '{')
            return parseObject(value, depth);
        if (c == '[')
            return parseArray(value, depth);
        if (c == '"') {
            value->type_ = JsonValue::Type::String;
            return parseString(&value->text_);
        }
        if (c == '-' || (c >= '0' && c <= '9'))
            return parseNumber(value);
        for (const auto& [word, type, flag] : {std::tuple{"true", JsonValue::Type::Boolean, true},
                                               std::tuple{"false", JsonValue::Type::Boolean, false},
                                               std::tuple{"null", JsonValue::Type::Null, false}}) {
            const std::string_view w(word);
            if (text_.substr(pos_, w.size()) == w) {
                pos_ += w.size();
                value->type_ = type;
                value->boolean_ = flag;
                return true;
            }
        }
        return failAt("unexpected character '" + shown(std::string_view(&c, 1)) + "'");
    }

    // Text from the file in a message: at most 40 bytes, control bytes as
    // \xNN, so that the message stays one short line.
    static std::string shown(std::string_view text)
    {
        constexpr std::size_t kShown = 40;
        std::string out;
        for (const char c : text.substr(0, kShown)) {
            const auto u = static_cast<unsigned char>(c);
            if (u < 0x20 || u == 0x7F) {
                const char* hex = "0123456789abcdef";
                out += "\\x";
                out += hex[u >> 4];
                out += hex[u & 15];
            } else {
                out += c;
            }
        }
        return text.size() > kShown ? out + "..." : out;
    }

    static std::string tooMany(long long limit, const char* what)
    {
        return "more than " + std::to_string(limit) + " " + what
               + ", more than any file this program reads can hold";
    }

    bool parseNumber(JsonValue* value)
    {
        const std::size_t start = pos_;
        const auto digits = [this]() {
            const std::size_t from = pos_;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
                ++pos_;
            return pos_ > from;
        };
        if (text_[pos_] == '-')
            ++pos_;
        if (pos_ < text_.size() && text_[pos_] == '0')
            ++pos_;
        else if (!digits())
            return failAt("a number needs digits");
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            if (!digits())
                return failAt("a number needs digits after the decimal point");
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
                ++pos_;
            if (!digits())
                return failAt("a number needs digits in its exponent");
        }
        const std::string_view source = text_.substr(start, pos_ - start);
        const std::from_chars_result r =
            std::from_chars(source.data(), source.data() + source.size(), value->number_);
        if (r.ec == std::errc::result_out_of_range) {
            // Underflow to zero is harmless only for numbers that are tiny.
            pos_ = start;
            return failAt("the number " + std::string(source) + " is out of the range of a double");
        }
        value->type_ = JsonValue::Type::Number;
        value->text_ = std::string(source);
        return true;
    }

    static void appendUtf8(std::string* out, unsigned code)
    {
        if (code < 0x80) {
            out->push_back(char(code));
        } else if (code < 0x800) {
            out->push_back(char(0xC0 | (code >> 6)));
            out->push_back(char(0x80 | (code & 0x3F)));
        } else if (code < 0x10000) {
            out->push_back(char(0xE0 | (code >> 12)));
            out->push_back(char(0x80 | ((code >> 6) & 0x3F)));
            out->push_back(char(0x80 | (code & 0x3F)));
        } else {
            out->push_back(char(0xF0 | (code >> 18)));
            out->push_back(char(0x80 | ((code >> 12) & 0x3F)));
            out->push_back(char(0x80 | ((code >> 6) & 0x3F)));
            out->push_back(char(0x80 | (code & 0x3F)));
        }
    }

    bool parseHex4(unsigned* code)
    {
        if (pos_ + 4 > text_.size())
            return failAt("a \\u escape needs four hex digits");
        unsigned value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = text_[pos_++];
            value <<= 4;
            if (c >= '0' && c <= '9')
                value |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f')
                value |= unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                value |= unsigned(c - 'A' + 10);
            else
                return failAt("a \\u escape needs four hex digits");
        }
        *code = value;
        return true;
    }

    bool parseString(std::string* out)
    {
        ++pos_;
        while (pos_ < text_.size()) {
            const char c = text_[pos_++];
            if (c == '"')
                return true;
            if (static_cast<unsigned char>(c) < 0x20) {
                --pos_;
                return failAt("a line break or control character inside a string");
            }
            if (c != '\\') {
                out->push_back(c);
                continue;
            }
            if (pos_ >= text_.size())
                break;
            const char e = text_[pos_++];
            switch (e) {
            case '"': out->push_back('"'); break;
            case '\\': out->push_back('\\'); break;
            case '/': out->push_back('/'); break;
            case 'b': out->push_back('\b'); break;
            case 'f': out->push_back('\f'); break;
            case 'n': out->push_back('\n'); break;
            case 'r': out->push_back('\r'); break;
            case 't': out->push_back('\t'); break;
            case 'u': {
                unsigned code = 0;
                if (!parseHex4(&code))
                    return false;
                if (code >= 0xD800 && code < 0xDC00) {
                    unsigned low = 0;
                    if (text_.substr(pos_, 2) != "\\u")
                        return failAt("a lone UTF-16 surrogate in a \\u escape");
                    pos_ += 2;
                    if (!parseHex4(&low))
                        return false;
                    if (low < 0xDC00 || low >= 0xE000)
                        return failAt("a lone UTF-16 surrogate in a \\u escape");
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                } else if (code >= 0xDC00 && code < 0xE000) {
                    return failAt("a lone UTF-16 surrogate in a \\u escape");
                }
                appendUtf8(out, code);
                break;
            }
            default: --pos_; return failAt("unknown escape '\\" + shown(std::string_view(&e, 1)) + "'");
            }
        }
        return failAt("a string is not closed");
    }

    bool expect(char c, const char* what)
    {
        skipBlanks();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return failAt(what);
    }

    bool peek(char c)
    {
        skipBlanks();
        return pos_ < text_.size() && text_[pos_] == c;
    }

    bool parseArray(JsonValue* value, int depth)
    {
        value->type_ = JsonValue::Type::Array;
        ++pos_;
        if (peek(']')) {
            ++pos_;
            value->numeric_ = true;
            return true;
        }
        bool numeric = true;
        while (true) {
            JsonValue item;
            skipBlanks();
            const std::size_t itemStart = pos_;
            if (!parseValue(&item, depth + 1))
                return false;
            if (numeric && item.isNumber()) {
                // Kept as a plain double: counted as a number, not a value.
                --values_;
                if (++numbers_ > limits_.maxNumbers) {
                    pos_ = itemStart;
                    return failAt(tooMany(limits_.maxNumbers, "numbers"));
                }
                value->numbers_.push_back(item.number_);
            } else {
                if (numeric) {
                    numbers_ -= (long long)value->numbers_.size();
                    values_ += (long long)value->numbers_.size();
                    if (values_ > limits_.maxValues)
                        return failAt(tooMany(limits_.maxValues, "values"));
                    // The first non-number: the numbers so far become items.
                    for (std::size_t i = 0; i < value->numbers_.size(); ++i) {
                        JsonValue n;
                        n.type_ = JsonValue::Type::Number;
                        n.number_ = value->numbers_[i];
                        n.line_ = item.line_;
                        value->items_.push_back(std::move(n));
                    }
                    value->numbers_.clear();
                    numeric = false;
                }
                value->items_.push_back(std::move(item));
            }
            if (peek(']')) {
                ++pos_;
                break;
            }
            if (!expect(',', "expected ',' or ']' in an array"))
                return false;
        }
        value->numeric_ = numeric;
        return true;
    }

    bool parseObject(JsonValue* value, int depth)
    {
        value->type_ = JsonValue::Type::Object;
        ++pos_;
        if (peek('}')) {
            ++pos_;
            return true;
        }
        std::unordered_set<std::string> keys;
        while (true) {
            if (!peek('"'))
                return failAt("expected a key in double quotes");
            const std::size_t keyStart = pos_;
            std::string key;
            if (!parseString(&key))
                return false;
            if (!keys.insert(key).second) {
                pos_ = keyStart;
                return failAt("the key \"" + shown(key) + "\" appears twice");
            }
            if (!expect(':', "expected ':' after a key"))
                return false;
            JsonValue item;
            if (!parseValue(&item, depth + 1))
                return false;
            value->members_.emplace_back(std::move(key), std::move(item));
            if (peek('}')) {
                ++pos_;
                return true;
            }
            if (!expect(',', "expected ',' or '}' in an object"))
                return false;
        }
    }

    std::string_view text_;
    JsonLimits limits_;
    long long values_ = 0;
    long long numbers_ = 0;
    std::size_t pos_ = 0;
    int line_ = 1;
    std::string error_;
};

const JsonValue* JsonValue::find(std::string_view key) const
{
    for (const auto& [name, value] : members_)
        if (name == key)
            return &value;
    return nullptr;
}

const char* JsonValue::typeName(Type type)
{
    switch (type) {
    case Type::Null: return "null";
    case Type::Boolean: return "true or false";
    case Type::Number: return "a number";
    case Type::String: return "a string";
    case Type::Array: return "an array";
    case Type::Object: return "an object";
    }
    return "a value";
}

QJsonValue JsonValue::toQJsonValue() const
{
    switch (type_) {
    case Type::Null: return QJsonValue(QJsonValue::Null);
    case Type::Boolean: return QJsonValue(boolean_);
    case Type::Number: return QJsonValue(number_);
    case Type::String: return QJsonValue(QString::fromStdString(text_));
    case Type::Array: {
        QJsonArray array;
        if (numeric_)
            for (const double n : numbers_)
                array.append(n);
        else
            for (const JsonValue& item : items_)
                array.append(item.toQJsonValue());
        return array;
    }
    case Type::Object: {
        QJsonObject object;
        for (const auto& [name, value] : members_)
            object.insert(QString::fromStdString(name), value.toQJsonValue());
        return object;
    }
    }
    return {};
}

attn::Expected<JsonValue> parseJson(std::string_view text, const JsonLimits& limits)
{
    return JsonParser(text, limits).parseDocument();
}

}  // namespace attnlab
