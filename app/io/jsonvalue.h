// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A JSON document read with exact numbers, the reading half of JsonWriter.
//
// QJsonDocument stores an integral double as an integer, so "-0.0" comes back
// as 0, and it keeps no source text, so a 64-bit seed above 2^63 is rounded.
// This reader (RFC 8259, strict: no comments, no trailing commas, no
// duplicate keys) converts each number with std::from_chars, which gives the
// nearest double, and keeps the number's source text. An array whose items
// are all numbers (a matrix row) is stored as plain doubles.
// Errors name the line and column.
//
// Time is linear in the text (duplicate keys are found with a hash set) and
// memory is bounded while reading by JsonLimits: a value costs about 150
// bytes (a number in an all-number array 8), so a document of many small
// values ("[[],[],...]") is refused when it passes the cap, not after.

#include "expected.h"

#include <QJsonValue>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab {

class JsonValue {
public:
    enum class Type { Null, Boolean, Number, String, Array, Object };

    Type type() const { return type_; }
    int line() const { return line_; }  // 1-based, where the value starts

    bool isNumber() const { return type_ == Type::Number; }
    bool isString() const { return type_ == Type::String; }
    bool isBoolean() const { return type_ == Type::Boolean; }
    bool isArray() const { return type_ == Type::Array; }
    bool isObject() const { return type_ == Type::Object; }

    double number() const { return number_; }
    const std::string& text() const { return text_; }  // a string, or a number's source text
    bool boolean() const { return boolean_; }

    // Arrays: size() items; numbers() holds them when every item is a number,
    // otherwise items() does.
    std::size_t size() const { return numeric_ ? numbers_.size() : items_.size(); }
    bool allNumbers() const { return numeric_; }
    const std::vector<double>& numbers() const { return numbers_; }
    const std::vector<JsonValue>& items() const { return items_; }

    // Objects, in file order.
    const std::vector<std::pair<std::string, JsonValue>>& members() const { return members_; }
    const JsonValue* find(std::string_view key) const;

    // "a number", "a string", "an array", ...: for messages.
    static const char* typeName(Type type);

    // For opaque parts (numbers through double, so -0.0 and integers beyond
    // 2^53 are not kept exactly).
    QJsonValue toQJsonValue() const;

private:
    friend class JsonParser;

    Type type_ = Type::Null;
    int line_ = 1;
    bool boolean_ = false;
    bool numeric_ = false;
    double number_ = 0;
    std::string text_;
    std::vector<double> numbers_;
    std::vector<JsonValue> items_;
    std::vector<std::pair<std::string, JsonValue>> members_;
};

// The most a document may hold, checked as it is read. The defaults fit the
// largest single-head lab (7,168 matrix rows) with room to spare, and the
// numbers of the largest lab (attn::kMaxLabNumbers): at most about 10 MiB of
// values and 128 MiB of numbers. The lab reader allows more values for the
// heads' matrix rows (labfile.cpp).
struct JsonLimits {
    long long maxValues = 1 << 16;   // strings, objects, arrays, numbers outside all-number arrays, ...
    long long maxNumbers = 1 << 24;  // numbers in all-number arrays
};

attn::Expected<JsonValue> parseJson(std::string_view text, const JsonLimits& limits = {});

}  // namespace attnlab
