// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads the fields of one object of a lab file, keeping the first error.
// Messages name the field as the file spells it, after `prefix` for a
// nested object ("\"heads\"." gives "\"heads\".\"count\" (line 40) must
// be ..."), and give its line.

#include "expected.h"
#include "jsonvalue.h"
#include "matrix.h"

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace attnlab {

class LabReader {
public:
    using Type = JsonValue::Type;

    explicit LabReader(const JsonValue& object, std::string prefix = {})
        : object_(object), prefix_(std::move(prefix))
    {
    }

    const std::optional<attn::Error>& error() const { return error_; }
    // The field's name in messages: prefix and the quoted key.
    std::string name(std::string_view key) const;

    // The field, of `type`; nullptr when it is missing (an error if
    // `required`) or of another type (an error).
    const JsonValue* field(std::string_view key, Type type, bool required = true);
    std::string string(std::string_view key);
    bool boolean(std::string_view key);
    double number(std::string_view key, double fallback, bool required);

    // A whole number written without fraction or exponent, within [lo, hi];
    // with `allowString` also as the digits in a string (a 64-bit seed).
    template <typename Int>
    Int integer(std::string_view key, Int lo, Int hi, bool allowString = false)
    {
        if (error_)
            return lo;
        const JsonValue* v = object_.find(key);
        if (v && allowString && v->isString())
            return parseInteger(key, v->text(), v->line(), lo, hi);
        v = field(key, Type::Number);
        return v ? parseInteger(key, v->text(), v->line(), lo, hi) : lo;
    }

    // An array of rows, each an array of numbers, all of one length.
    attn::Matrix matrix(std::string_view key);
    // A flat array of numbers (a bias, as PyTorch keeps it), as one row.
    attn::RowVector vector(std::string_view key);

    // Keys of the object that are not in `known`, in file order.
    std::vector<std::string> unknownKeys(const std::vector<std::string_view>& known) const;

    void fail(std::string message)
    {
        if (!error_)
            error_ = attn::Error{std::move(message)};
    }

private:
    template <typename Int>
    Int parseInteger(std::string_view key, const std::string& text, int line, Int lo, Int hi)
    {
        Int parsed{};
        const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), parsed);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size() || parsed < lo || parsed > hi) {
            fail(name(key) + " (line " + std::to_string(line) + ") must be a whole number from "
                 + std::to_string(lo) + " to " + std::to_string(hi) + ", not " + text);
            return lo;
        }
        return parsed;
    }

    const JsonValue& object_;
    std::string prefix_;
    std::optional<attn::Error> error_;
};

// "\"key\"": a key as messages quote it.
std::string quotedKey(std::string_view key);

// "NAME is (r, c) but must be (rows, cols): what" when `m` is not of that
// shape; `name` as the message names it (quotedKey's, or a head's).
attn::Status checkMatrixShape(const std::string& name, const attn::Matrix& m, long long rows, long long cols,
                              const std::string& what);

}  // namespace attnlab
