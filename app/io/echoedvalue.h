// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A value the user gave, quoted for a message: whole when it has at most
// kEchoedChars characters (code points), else its first kEchoedChars, an
// ellipsis and its length, so that a 10^6-digit number or a path of a
// megabyte makes a message of one short line:
//   '1234'   '9999999999999999999999999999999999999999…' (1000000 characters)
// The one place that quotes what the command line and the export formats
// echo back.

#include <QString>
#include <QStringView>

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

inline constexpr std::size_t kEchoedChars = 40;

// UTF-8 text (invalid bytes count as one character each).
inline std::string echoedValue(std::string_view utf8)
{
    std::size_t chars = 0;
    std::size_t cut = utf8.size();
    for (std::size_t i = 0; i < utf8.size(); ++i) {
        if ((static_cast<unsigned char>(utf8[i]) & 0xC0) == 0x80)
            continue;  // a continuation byte
        if (chars == kEchoedChars)
            cut = i;
        ++chars;
    }
    if (chars <= kEchoedChars)
        return "'" + std::string(utf8) + "'";
    return "'" + std::string(utf8.substr(0, cut)) + "\u2026' (" + std::to_string(chars) + " characters)";
}

inline QString echoedValue(QStringView text)
{
    qsizetype chars = 0;
    qsizetype cut = text.size();
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i].isLowSurrogate() && i > 0 && text[i - 1].isHighSurrogate())
            continue;  // the second half of a character
        if (chars == qsizetype(kEchoedChars))
            cut = i;
        ++chars;
    }
    if (chars <= qsizetype(kEchoedChars))
        return QLatin1Char('\'') + text.toString() + QLatin1Char('\'');
    // One arg() call: a "%2" in the value is not replaced.
    return QStringLiteral("'%1\u2026' (%2 characters)")
        .arg(text.left(cut).toString(), QString::number(chars));
}

}  // namespace attnlab
