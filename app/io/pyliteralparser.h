// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads the subset of Python literals that numpy writes in a .npy header:
// quoted strings (either quote, backslash escapes taken literally), decimal
// integers (an old "3L" too when `longSuffix`, as numpy filters it from
// version 1.0 and 2.0 headers; beyond 64 bits marked tooLarge), True, False,
// None, tuples, lists and dicts, nested at most 16 deep, with blanks between.
// As in Python, "(3)" is the integer 3, not a tuple; "(3,)" is a tuple.

#include "pyvalue.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

class PyLiteralParser {
public:
    explicit PyLiteralParser(std::string_view text, bool longSuffix = true)
        : text_(text), longSuffix_(longSuffix)
    {
    }

    // The whole text as one value; false on anything else.
    bool parse(PyValue* value);

private:
    void skipBlanks();
    bool take(char c);
    bool parseValue(PyValue* value, int depth);
    bool parseString(std::string* out);
    bool parseInteger(PyValue* value);
    bool parseSequence(PyValue* value, char close, int depth);
    bool parseDict(PyValue* value, int depth);

    std::string_view text_;
    bool longSuffix_;
    std::size_t pos_ = 0;
};

}  // namespace attnlab
