// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one reader of the whole numbers on the command line: --seed,
// --d-model, --d-k, --d-v, the two sides of --size, --n-keys and --samples.
// A number is ASCII digits only (no sign, blank or other character before,
// after or between them), read without overflow into 64 bits and then held
// to its option's range. A value that is not gets one line naming the
// option, what it must be and the value (elided when long, echoedvalue.h):
//   --d-k must be a whole number from 1 to 1024, not '+8'

#include <QString>

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace attnlab {

// `text` as a number within [low, high], or nothing.
std::optional<std::uint64_t> wholeNumber(std::string_view text, std::uint64_t low, std::uint64_t high);

// "OPTION must be a whole number from LOW to HIGH, not 'TEXT'".
QString wholeNumberError(std::string_view option, std::string_view text, std::uint64_t low,
                         std::uint64_t high);

// wholeNumber into `value`, or its error (`value` untouched).
template <typename Int>
std::optional<QString> readWholeNumber(std::string_view option, std::string_view text, Int low, Int high,
                                       Int* value)
{
    static_assert(std::is_integral_v<Int>, "a whole number");
    const std::optional<std::uint64_t> number = wholeNumber(text, std::uint64_t(low), std::uint64_t(high));
    if (!number)
        return wholeNumberError(option, text, std::uint64_t(low), std::uint64_t(high));
    *value = Int(*number);
    return std::nullopt;
}

}  // namespace attnlab
