// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Doubles as text that reads back to the very same double.
//
// formatRoundTrip writes the shortest decimal that round-trips (std::to_chars,
// C++17): 0.1 stays "0.1", 1/3 becomes "0.3333333333333333", the smallest
// denormal "5e-324". Negative zero is "-0.0" so that readers which store
// integer-looking numbers as integers keep its sign. Non-finite values are
// "inf", "-inf" and "nan" (CSV only; JSON writes null for them).

#include <string>
#include <string_view>

namespace attnlab {

std::string formatRoundTrip(double value);

// Appends formatRoundTrip(value) to `out` without a temporary string.
void appendNumber(std::string& out, double value);

// The whole of `text` must be one number: what formatRoundTrip writes, or any
// ordinary decimal or exponent form, with an optional leading '+' and
// surrounding blanks (spreadsheets add both). "inf", "-inf", "nan" in any
// case. False for anything else, `value` then untouched.
bool parseNumber(std::string_view text, double* value);

}  // namespace attnlab
