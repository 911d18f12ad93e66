// SPDX-License-Identifier: GPL-3.0-or-later
#include "numberformat.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace attnlab {

void appendNumber(std::string& out, double value)
{
    if (value == 0.0 && std::signbit(value)) {
        out += "-0.0";
        return;
    }
    // 24 characters hold any shortest double: sign, 17 digits, point, e-308.
    char buffer[32];
    const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, r.ptr);
}

std::string formatRoundTrip(double value)
{
    std::string text;
    appendNumber(text, value);
    return text;
}

bool parseNumber(std::string_view text, double* value)
{
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    while (!text.empty() && blank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && blank(text.back()))
        text.remove_suffix(1);
    if (!text.empty() && text.front() == '+') {
        text.remove_prefix(1);
        // from_chars would take the "-1" left of "+-1".
        if (!text.empty() && text.front() == '-')
            return false;
    }
    double parsed = 0;
    const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size())
        return false;
    *value = parsed;
    return true;
}

}  // namespace attnlab
