// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A value the user gave, quoted for a message: whole when it has at most
// kEchoedChars characters (code points), else its first kEchoedChars, an
// ellipsis and its length, so that a 10^6-digit number or a path of a
// megabyte makes a message of one short line:
//   '1234'   '9999999999999999999999999999999999999999…' (1000000 characters)
// The one place that quotes what the command line and the export formats
// echo back. echoedList cuts a list the same way (a shape from a file's
// header may have millions of dimensions):
//   [16, 48]   [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, …] (5000000 dimensions)

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

// `count` items, item i written by itemText(i), joined by ", " between
// `open` and `close`: whole when it takes at most kEchoedChars characters,
// else the items that fit, an ellipsis and how many `what` there are. Only
// the items shown are written out.
template <typename ItemText>
std::string echoedList(std::size_t count, ItemText itemText, std::string_view open = "[",
                       std::string_view close = "]", std::string_view what = "dimensions")
{
    std::string out(open);
    for (std::size_t i = 0; i < count; ++i) {
        const std::string item = (i > 0 ? ", " : "") + std::string(itemText(i));
        if (out.size() + item.size() > kEchoedChars)
            return out + (i > 0 ? ", \u2026" : "\u2026") + std::string(close) + " (" + std::to_string(count)
                   + " " + std::string(what) + ")";
        out += item;
    }
    return out + std::string(close);
}

}  // namespace attnlab
