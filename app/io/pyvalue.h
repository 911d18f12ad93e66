// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A Python literal as numpy writes it in a .npy header (PyLiteralParser reads
// it): a string, a non-negative integer, True, False, None, a tuple or list,
// or a dict with string keys.

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// The subset of Python literals that numpy writes in a header.
struct PyValue {
    enum class Type { String, Integer, Boolean, None, Sequence, Dict };
    Type type = Type::None;
    std::string text;                // String
    unsigned long long integer = 0;  // Integer
    bool tooLarge = false;           // Integer beyond 64 bits
    bool boolean = false;            // Boolean
    bool list = false;               // Sequence written [...] rather than a tuple
    std::vector<PyValue> items;      // Sequence (tuple or list), Dict values
    std::vector<std::string> keys;   // Dict keys (strings), parallel to items
};

// The value of `key` in a Dict, or null. A key written twice has its last
// value, as in Python's dict literal (numpy.load's literal_eval).
const PyValue* findKey(const PyValue& dict, std::string_view key);

}  // namespace attnlab
