// SPDX-License-Identifier: GPL-3.0-or-later
#include "numberargument.h"

#include "echoedvalue.h"

#include <QCoreApplication>

#include <algorithm>
#include <charconv>
#include <system_error>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

}  // namespace

std::optional<std::uint64_t> wholeNumber(std::string_view text, std::uint64_t low, std::uint64_t high)
{
    // from_chars alone takes a leading '-' for signed types and stops at the
    // first other character; digits only, and all of them read.
    if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    std::uint64_t value = 0;
    const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), value);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || value < low || value > high)
        return std::nullopt;
    return value;
}

QString wholeNumberError(std::string_view option, std::string_view text, std::uint64_t low,
                         std::uint64_t high)
{
    return CommandLine::tr("%1 must be a whole number from %2 to %3, not %4")
        .arg(QString::fromUtf8(option.data(), qsizetype(option.size())), QString::number(low),
             QString::number(high), echoedValue(QString::fromUtf8(text.data(), qsizetype(text.size()))));
}

}  // namespace attnlab
