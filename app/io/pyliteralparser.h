// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads the subset of Python literals that numpy writes in a .npy header:
// quoted strings (either quote, backslash escapes taken literally), decimal
// integers (an old "3L" too; beyond 64 bits marked tooLarge), True, False,
// None, tuples, lists and dicts, nested at most 16 deep, with blanks between.

#include "pyvalue.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

class PyLiteralParser {
public:
    explicit PyLiteralParser(std::string_view text) : text_(text) {}

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
    std::size_t pos_ = 0;
};

}  // namespace attnlab
