// SPDX-License-Identifier: GPL-3.0-or-later
#include "tokenizeraddedtokens.h"

#include <algorithm>

namespace attnlab {
namespace {

// The code point that ends just before `end` / starts at `start`.
char32_t codePointBefore(const QString& text, qsizetype end)
{
    const QChar last = text[end - 1];
    if (last.isLowSurrogate() && end >= 2 && text[end - 2].isHighSurrogate())
        return QChar::surrogateToUcs4(text[end - 2], last);
    return last.unicode();
}

char32_t codePointAt(const QString& text, qsizetype start)
{
    const QChar first = text[start];
    if (first.isHighSurrogate() && start + 1 < text.size() && text[start + 1].isLowSurrogate())
        return QChar::surrogateToUcs4(first, text[start + 1]);
    return first.unicode();
}

// Rust's regex \w: letters, marks, numbers, connector punctuation ("_").
bool isWordCharacter(char32_t c)
{
    return QChar::isLetterOrNumber(c) || QChar::isMark(c)
           || QChar::category(c) == QChar::Punctuation_Connector;
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<Token> tokens) : tokens_(std::move(tokens))
{
    tokens_.erase(
        std::remove_if(tokens_.begin(), tokens_.end(), [](const Token& t) { return t.content.isEmpty(); }),
        tokens_.end());
    std::stable_sort(tokens_.begin(), tokens_.end(),
                     [](const Token& a, const Token& b) { return a.content.size() > b.content.size(); });
    for (const Token& t : tokens_)
        firsts_.push_back(t.content[0].unicode());
    std::sort(firsts_.begin(), firsts_.end());
    firsts_.erase(std::unique(firsts_.begin(), firsts_.end()), firsts_.end());
}

void AddedTokenMatcher::split(const QString& text, std::vector<Part>& parts) const
{
    const qsizetype n = text.size();
    qsizetype done = 0;  // the text before it is in `parts`
    qsizetype pos = 0;   // where the search goes on
    while (pos < n) {
        // The leftmost match, the longest there.
        const Token* match = nullptr;
        qsizetype at = pos;
        for (; at < n && !match; ++at) {
            if (!std::binary_search(firsts_.begin(), firsts_.end(), text[at].unicode()))
                continue;
            const QStringView rest = QStringView(text).mid(at);
            for (const Token& t : tokens_)
                if (rest.startsWith(t.content)) {
                    match = &t;
                    break;
                }
        }
        if (!match)
            break;
        qsizetype start = at - 1;
        qsizetype stop = start + match->content.size();
        pos = stop;
        if (match->singleWord) {
            const bool wordBefore = start > 0 && isWordCharacter(codePointBefore(text, start));
            const bool wordAfter = stop < n && isWordCharacter(codePointAt(text, stop));
            if (wordBefore || wordAfter)
                continue;
        }
        if (match->lstrip)
            while (start > done && text[start - 1].isSpace())
                --start;
        if (match->rstrip)
            while (stop < n && text[stop].isSpace())
                ++stop;
        if (start > done)
            parts.push_back({-1, text.mid(done, start - done)});
        parts.push_back({match->id, QString()});
        done = stop;
        pos = stop;
    }
    if (done < n)
        parts.push_back({-1, done == 0 ? text : text.mid(done)});
}

}  // namespace attnlab
