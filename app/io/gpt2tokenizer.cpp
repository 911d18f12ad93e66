// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2tokenizer.h"

#include "inputfile.h"
#include "jsonvalue.h"

#include <QDir>
#include <QHash>
#include <QRegularExpression>

#include <array>
#include <cstdint>
#include <mutex>
#include <queue>
#include <string>

namespace attnlab {
namespace {

// Real GPT-2 files are 1.0 MB (vocab.json) and 0.46 MB (merges.txt); the
// caps leave room for larger vocabularies and keep a wrong file from filling
// memory.
constexpr long long kMaxVocabFileBytes = 64LL << 20;
constexpr long long kMaxMergesFileBytes = 64LL << 20;
constexpr int kMaxVocabSize = 1 << 20;
// The per-piece cache is cleared when it holds this many pieces; pieces
// longer than kMaxCachedPieceBytes are not kept.
constexpr int kMaxCachedPieces = 1 << 16;
constexpr int kMaxCachedPieceBytes = 64;

// \s of the pattern as Unicode's White_Space property, which is what
// Python's `regex` module matches (PCRE2's \s without UCP is ASCII only, and
// with UCP leaves out U+0085).
#define ATTNLAB_WS \
    "\\t-\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
constexpr const char* kPattern = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" ATTNLAB_WS
                                 "\\p{L}\\p{N}]+|[" ATTNLAB_WS "]+(?![^" ATTNLAB_WS "])|[" ATTNLAB_WS "]+";
#undef ATTNLAB_WS

// bytes_to_unicode: the bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF are their
// own code points; the other 68, in byte order, become U+0100, U+0101, ...
std::array<char16_t, 256> byteCharacters()
{
    std::array<char16_t, 256> chars{};
    int next = 0x100;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
        chars[std::size_t(b)] = char16_t(printable ? b : next++);
    }
    return chars;
}

std::uint64_t pairKey(int left, int right)
{
    return (std::uint64_t(std::uint32_t(left)) << 32) | std::uint32_t(right);
}

// A token or a line for a message: quoted, at most 40 characters, control
// characters escaped so that the message stays one line.
std::string quote(std::string_view text)
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

std::string lineText(int line)
{
    return " line " + std::to_string(line);
}

// "0xE2"
QString hexByte(int b)
{
    return QStringLiteral("0x") + QStringLiteral("%1").arg(b, 2, 16, QLatin1Char('0')).toUpper();
}

struct Merge {
    int rank = 0;
    int id = 0;    // of the merged token
    int line = 0;  // in merges.txt
};

}  // namespace

struct Gpt2Tokenizer::Data {
    std::vector<QString> pieces;    // by id, as vocab.json has them
    std::vector<QByteArray> bytes;  // by id, the bytes they stand for
    std::array<int, 256> byteIds{};
    QHash<std::uint64_t, Merge> merges;  // (left id, right id) -> rank, merged id
};

struct Gpt2Tokenizer::Cache {
    std::mutex mutex;
    QHash<QByteArray, std::vector<int>> pieces;
};

attn::Expected<Gpt2Tokenizer> Gpt2Tokenizer::fromFolder(const QString& folder)
{
    const QDir dir(folder);
    const attn::Expected<QByteArray> vocab =
        readInputFile(dir.filePath(QStringLiteral("vocab.json")), kMaxVocabFileBytes, "a vocab.json");
    if (!vocab)
        return vocab.error();
    const attn::Expected<QByteArray> merges =
        readInputFile(dir.filePath(QStringLiteral("merges.txt")), kMaxMergesFileBytes, "a merges.txt");
    if (!merges)
        return merges.error();
    return fromData(std::string_view(vocab->constData(), std::size_t(vocab->size())),
                    std::string_view(merges->constData(), std::size_t(merges->size())));
}

attn::Expected<Gpt2Tokenizer> Gpt2Tokenizer::fromData(std::string_view vocabJson, std::string_view mergesText)
{
    JsonLimits limits;
    limits.maxValues = kMaxVocabSize + 1;
    const attn::Expected<JsonValue> json = parseJson(vocabJson, limits);
    if (!json)
        return attn::Error{"vocab.json: " + json.error().message};
    if (!json->isObject())
        return attn::Error{std::string("vocab.json: expected an object of token -> id, found ")
                           + JsonValue::typeName(json->type())};
    const auto& members = json->members();
    const int n = int(members.size());
    if (n == 0)
        return attn::Error{"vocab.json: the object has no tokens"};

    const std::array<char16_t, 256> chars = byteCharacters();
    // Byte characters are below U+0144; -1 marks every other code unit.
    std::array<int, 0x144> charByte;
    charByte.fill(-1);
    for (int b = 0; b < 256; ++b)
        charByte[chars[std::size_t(b)]] = b;

    auto data = std::make_shared<Data>();
    data->pieces.resize(std::size_t(n));
    data->bytes.resize(std::size_t(n));
    std::vector<int> idEntry(std::size_t(n), 0);
    // Token bytes (UTF-8, as in the files) -> id; QHash, open addressing, is
    // about twice as fast here as std::unordered_map.
    QHash<QByteArrayView, int> ids;
    ids.reserve(n);
    int entry = 0;
    for (const auto& [token, value] : members) {
        ++entry;
        const std::string where =
            "vocab.json" + lineText(value.line()) + ", entry " + std::to_string(entry) + ": ";
        if (!value.isNumber())
            return attn::Error{where + "the id of " + quote(token) + " is "
                               + JsonValue::typeName(value.type()) + ", not an integer"};
        const std::string& digits = value.text();
        const bool integral = !digits.empty() && digits.find_first_of(".eE") == std::string::npos;
        if (!integral || digits[0] == '-' || value.number() >= n)
            return attn::Error{where + "the id of " + quote(token) + " is " + digits
                               + (integral ? ", outside 0.." + std::to_string(n - 1) + " (the file has "
                                                 + std::to_string(n) + " tokens)"
                                           : ", not an integer")};
        const int id = int(value.number());
        if (idEntry[std::size_t(id)] != 0)
            return attn::Error{where + "the id " + digits + " of " + quote(token) + " is already the id of "
                               + quote(data->pieces[std::size_t(id)].toStdString()) + " (entry "
                               + std::to_string(idEntry[std::size_t(id)]) + ")"};
        if (token.empty())
            return attn::Error{where + "an empty token"};
        const QString piece = QString::fromStdString(token);
        QByteArray bytes;
        bytes.reserve(piece.size());
        for (const QChar c : piece) {
            const int byte = c.unicode() < charByte.size() ? charByte[c.unicode()] : -1;
            if (byte < 0)
                return attn::Error{
                    where + "the token " + quote(token) + " has "
                    + QStringLiteral("U+%1").arg(c.unicode(), 4, 16, QLatin1Char('0')).toUpper().toStdString()
                    + ", which is not one of GPT-2's 256 byte characters"};
            bytes += char(byte);
        }
        idEntry[std::size_t(id)] = entry;
        data->pieces[std::size_t(id)] = piece;
        data->bytes[std::size_t(id)] = bytes;
        ids.insert(QByteArrayView(token.data(), qsizetype(token.size())), id);
    }
    for (int b = 0; b < 256; ++b) {
        const QByteArray utf8 = QString(QChar(chars[std::size_t(b)])).toUtf8();
        const auto it = ids.constFind(QByteArrayView(utf8));
        if (it == ids.constEnd())
            return attn::Error{"vocab.json: the byte " + hexByte(b).toStdString() + " has no token ("
                               + quote(QString(QChar(chars[std::size_t(b)])).toStdString()) + ")"};
        data->byteIds[std::size_t(b)] = *it;
    }

    // merges.txt: "#version: ..." then one "left right" line per rank; the
    // final line break is optional, a "\r" before it (a file saved on
    // Windows) is allowed.
    data->merges.reserve(n);
    std::string joined;
    int line = 0;
    std::size_t pos = 0;
    int rank = 0;
    while (pos < mergesText.size()) {
        std::size_t end = mergesText.find('\n', pos);
        if (end == std::string_view::npos)
            end = mergesText.size();
        std::string_view text = mergesText.substr(pos, end - pos);
        pos = end + 1;
        ++line;
        if (!text.empty() && text.back() == '\r')
            text.remove_suffix(1);
        const std::string where = "merges.txt" + lineText(line) + ": ";
        if (line == 1) {
            if (text.substr(0, 8) != "#version")
                return attn::Error{where + "expected \"#version: ...\", found " + quote(text)};
            continue;
        }
        const std::size_t space = text.find(' ');
        if (space == 0 || space == std::string_view::npos || space + 1 == text.size()
            || text.find(' ', space + 1) != std::string_view::npos)
            return attn::Error{where + quote(text) + " is not two tokens separated by one space"};
        const std::string_view left = text.substr(0, space);
        const std::string_view right = text.substr(space + 1);
        const auto l = ids.constFind(QByteArrayView(left.data(), qsizetype(left.size())));
        if (l == ids.constEnd())
            return attn::Error{where + quote(left) + " is not in vocab.json"};
        const auto r = ids.constFind(QByteArrayView(right.data(), qsizetype(right.size())));
        if (r == ids.constEnd())
            return attn::Error{where + quote(right) + " is not in vocab.json"};
        joined.assign(left).append(right);
        const auto m = ids.constFind(QByteArrayView(joined.data(), qsizetype(joined.size())));
        if (m == ids.constEnd())
            return attn::Error{where + "the merge of " + quote(left) + " and " + quote(right) + " gives "
                               + quote(joined) + ", which is not in vocab.json"};
        const std::uint64_t key = pairKey(*l, *r);
        const auto seen = data->merges.constFind(key);
        if (seen != data->merges.constEnd())
            return attn::Error{where + "the merge " + quote(text) + " is already on line "
                               + std::to_string(seen->line)};
        data->merges.insert(key, Merge{rank, *m, line});
        ++rank;
    }
    if (line == 0)
        return attn::Error{"merges.txt: the file is empty (expected \"#version: ...\" and the merges)"};

    Gpt2Tokenizer tokenizer;
    tokenizer.data_ = std::move(data);
    tokenizer.cache_ = std::make_shared<Cache>();
    return tokenizer;
}

QString Gpt2Tokenizer::name() const
{
    return QStringLiteral("GPT-2 byte-level BPE");
}

int Gpt2Tokenizer::vocabSize() const
{
    return int(data_->pieces.size());
}

int Gpt2Tokenizer::mergeCount() const
{
    return int(data_->merges.size());
}

// One pre-tokenized piece (its UTF-8 bytes) through the merges. The symbols
// are a linked list over the bytes; a symbol starting at byte i covers
// bytes i..i+len-1, and only grows, so (start, len) names it. The heap holds
// the adjacent pairs that have a rank, lowest rank and then leftmost first.
// All pairs of one rank are merged in one round, left to right, and the
// pairs the merges form enter the heap after the round: exactly encoder.py's
// "merge every occurrence of the best bigram, then look again".
void Gpt2Tokenizer::encodePiece(const QByteArray& piece, std::vector<int>& ids) const
{
    const Data& d = *data_;
    const int n = int(piece.size());
    if (n <= kMaxCachedPieceBytes) {
        const std::lock_guard<std::mutex> lock(cache_->mutex);
        const auto it = cache_->pieces.constFind(piece);
        if (it != cache_->pieces.constEnd()) {
            ids.insert(ids.end(), it->begin(), it->end());
            return;
        }
    }

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
        symbols[std::size_t(i)] = {d.byteIds[uchar(piece[i])], i + 1 < n ? i + 1 : -1, i - 1, 1};
    std::priority_queue<Pair, std::vector<Pair>, std::greater<Pair>> heap;
    const auto push = [&](int left) {
        const Symbol& l = symbols[std::size_t(left)];
        if (l.next < 0)
            return;
        const Symbol& r = symbols[std::size_t(l.next)];
        const auto it = d.merges.constFind(pairKey(l.id, r.id));
        if (it != d.merges.constEnd())
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
    const std::size_t first = ids.size();
    for (int s = 0; s >= 0; s = symbols[std::size_t(s)].next)
        ids.push_back(symbols[std::size_t(s)].id);

    if (n <= kMaxCachedPieceBytes) {
        const std::lock_guard<std::mutex> lock(cache_->mutex);
        if (cache_->pieces.size() >= kMaxCachedPieces)
            cache_->pieces.clear();
        cache_->pieces.insert(piece, std::vector<int>(ids.begin() + std::ptrdiff_t(first), ids.end()));
    }
}

std::vector<int> Gpt2Tokenizer::encodeIds(const QString& text) const
{
    // Through UTF-8 and back, so that a lone surrogate (which PCRE2 refuses
    // to match) is U+FFFD like in every other path.
    return encodeUtf8(text.toUtf8());
}

std::vector<int> Gpt2Tokenizer::encodeUtf8(const QByteArray& utf8) const
{
    thread_local const QRegularExpression pattern(QString::fromLatin1(kPattern));
    const QString text = QString::fromUtf8(utf8);
    std::vector<int> ids;
    ids.reserve(std::size_t(text.size()) / 3 + 1);
    QRegularExpressionMatchIterator it = pattern.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch match = it.next();
        encodePiece(match.capturedView().toUtf8(), ids);
    }
    return ids;
}

ModelToken Gpt2Tokenizer::token(int id) const
{
    return {id, data_->pieces.at(std::size_t(id)), displayText(data_->bytes.at(std::size_t(id)))};
}

QByteArray Gpt2Tokenizer::tokenBytes(int id) const
{
    return data_->bytes.at(std::size_t(id));
}

attn::Expected<QByteArray> Gpt2Tokenizer::decodeBytes(const std::vector<int>& ids) const
{
    QByteArray bytes;
    for (const int id : ids) {
        if (id < 0 || id >= vocabSize())
            return attn::Error{"token id " + std::to_string(id) + " is not in the vocabulary (ids 0 to "
                               + std::to_string(vocabSize() - 1) + ")"};
        bytes += data_->bytes[std::size_t(id)];
    }
    return bytes;
}

QString Gpt2Tokenizer::displayText(const QByteArray& bytes)
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
            out += QLatin1Char('<') + hexByte(b) + QLatin1Char('>');
            len = 1;
        }
        i += len;
    }
    return out;
}

}  // namespace attnlab
