// SPDX-License-Identifier: GPL-3.0-or-later
#include "bytelevelbpe.h"

#include <queue>
#include <utility>

namespace attnlab {
namespace {

// \s of the patterns as Unicode's White_Space property.
#define ATTNLAB_WS \
    "\\t-\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
constexpr const char* kWhiteSpace = ATTNLAB_WS;
constexpr const char* kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" ATTNLAB_WS "\\p{L}\\p{N}]+|[" ATTNLAB_WS
    "]+(?![^" ATTNLAB_WS "])|[" ATTNLAB_WS "]+";
#undef ATTNLAB_WS

std::array<char16_t, 256> makeByteCharacters()
{
    std::array<char16_t, 256> chars{};
    int next = 0x100;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
        chars[std::size_t(b)] = char16_t(printable ? b : next++);
    }
    return chars;
}

// Byte characters are below U+0144; -1 marks every other code unit.
std::array<int, 0x144> makeCharacterBytes()
{
    std::array<int, 0x144> bytes;
    bytes.fill(-1);
    const std::array<char16_t, 256>& chars = byteLevelCharacters();
    for (int b = 0; b < 256; ++b)
        bytes[chars[std::size_t(b)]] = b;
    return bytes;
}

}  // namespace

const std::array<char16_t, 256>& byteLevelCharacters()
{
    static const std::array<char16_t, 256> chars = makeByteCharacters();
    return chars;
}

int byteLevelByte(char16_t c)
{
    static const std::array<int, 0x144> bytes = makeCharacterBytes();
    return c < bytes.size() ? bytes[c] : -1;
}

QString byteHexText(int b)
{
    return QStringLiteral("0x") + QStringLiteral("%1").arg(b, 2, 16, QLatin1Char('0')).toUpper();
}

QString gpt2PreTokenizerPattern()
{
    return QString::fromLatin1(kGpt2Pattern);
}

QString whiteSpaceClassBody()
{
    return QString::fromLatin1(kWhiteSpace);
}

// The symbols are a linked list over the bytes; a symbol starting at byte i
// covers bytes i..i+len-1, and only grows, so (start, len) names it. The
// heap holds the adjacent pairs that have a rank, lowest rank and then
// leftmost first. All pairs of one rank are merged in one round, left to
// right, and the pairs the merges form enter the heap after the round:
// exactly encoder.py's "merge every occurrence of the best bigram, then look
// again".
void mergeBytePairs(const QByteArray& piece, const std::array<int, 256>& byteIds, const BpeMergeTable& merges,
                    std::vector<int>& ids)
{
    const int n = int(piece.size());
    if (n == 0)
        return;
    struct Symbol {
        int id;
        int next;  // start of the next symbol, -1 at the end
        int prev;  // start of the previous symbol, -1 at the start
        int len;   // 0 once merged into its left neighbour
    };
    struct Pair {
        int rank;
        int left;  // start of the left symbol
        int leftLen;
        int rightLen;
        int merged;
        bool operator>(const Pair& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::vector<Symbol> symbols(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        symbols[std::size_t(i)] = {byteIds[uchar(piece[i])], i + 1 < n ? i + 1 : -1, i - 1, 1};
    std::priority_queue<Pair, std::vector<Pair>, std::greater<Pair>> heap;
    const auto push = [&](int left) {
        const Symbol& l = symbols[std::size_t(left)];
        if (l.next < 0)
            return;
        const Symbol& r = symbols[std::size_t(l.next)];
        const auto it = merges.constFind(bpePairKey(l.id, r.id));
        if (it != merges.constEnd())
            heap.push({it->rank, left, l.len, r.len, it->id});
    };
    for (int i = 0; i + 1 < n; ++i)
        push(i);
    std::vector<int> merged;
    while (!heap.empty()) {
        const int rank = heap.top().rank;
        merged.clear();
        while (!heap.empty() && heap.top().rank == rank) {
            const Pair p = heap.top();
            heap.pop();
            Symbol& l = symbols[std::size_t(p.left)];
            if (l.len != p.leftLen || l.next < 0 || symbols[std::size_t(l.next)].len != p.rightLen)
                continue;  // one of its symbols has changed since the pair was seen
            Symbol& r = symbols[std::size_t(l.next)];
            l.id = p.merged;
            l.len += r.len;
            l.next = r.next;
            if (r.next >= 0)
                symbols[std::size_t(r.next)].prev = p.left;
            r.len = 0;
            merged.push_back(p.left);
        }
        for (const int s : merged) {
            if (symbols[std::size_t(s)].len == 0)
                continue;
            push(s);
            if (symbols[std::size_t(s)].prev >= 0)
                push(symbols[std::size_t(s)].prev);
        }
    }
    for (int s = 0; s >= 0; s = symbols[std::size_t(s)].next)
        ids.push_back(symbols[std::size_t(s)].id);
}

std::string quoteToken(std::string_view text)
{
    QString s = QString::fromUtf8(text.data(), qsizetype(text.size()));
    if (s.size() > 40)
        s = s.left(40) + QStringLiteral("...");
    QString out;
    for (const QChar c : std::as_const(s)) {
        if (c == QLatin1Char('"') || c == QLatin1Char('\\'))
            out += QLatin1Char('\\') + c;
        else if (c.unicode() < 0x20 || c.unicode() == 0x7F)
            out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return "\"" + out.toStdString() + "\"";
}

QString byteLevelDisplayText(const QByteArray& bytes)
{
    QString out;
    const int n = int(bytes.size());
    int i = 0;
    while (i < n) {
        const auto b = uchar(bytes[i]);
        // The length of a well-formed UTF-8 sequence starting here (RFC 3629:
        // no overlong forms, no surrogates, nothing above U+10FFFF), else 0.
        int len = 0;
        char32_t cp = 0;
        if (b < 0x80) {
            len = 1;
            cp = b;
        } else if (b >= 0xC2 && b <= 0xF4) {
            const int want = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
            cp = b & (want == 2 ? 0x1F : want == 3 ? 0x0F : 0x07);
            int k = 1;
            for (; k < want && i + k < n && (uchar(bytes[i + k]) & 0xC0) == 0x80; ++k)
                cp = (cp << 6) | (uchar(bytes[i + k]) & 0x3F);
            const bool shortest = want == 2 || (want == 3 && cp >= 0x800) || (want == 4 && cp >= 0x10000);
            if (k == want && shortest && !(cp >= 0xD800 && cp <= 0xDFFF) && cp <= 0x10FFFF)
                len = want;
        }
        const bool control = len == 1 ? (cp < 0x20 || cp == 0x7F) : (cp >= 0x80 && cp < 0xA0);
        if (len > 0 && cp == ' ')
            out += QChar(0x2423);
        else if (len > 0 && cp == '\n')
            out += QChar(0x21B5);
        else if (len > 0 && cp == '\t')
            out += QChar(0x21E5);
        else if (len > 0 && !control)
            out += QString::fromUcs4(&cp, 1);
        else {
            out += QLatin1Char('<') + byteHexText(b) + QLatin1Char('>');
            len = 1;
        }
        i += len;
    }
    return out;
}

}  // namespace attnlab
