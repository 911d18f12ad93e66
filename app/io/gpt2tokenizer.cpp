// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2tokenizer.h"

#include "bytelevelbpe.h"
#include "inputfile.h"
#include "jsonvalue.h"

#include <QDir>
#include <QHash>
#include <QRegularExpression>

#include <array>
#include <cstdint>
#include <mutex>
#include <string>

namespace attnlab {
namespace {

constexpr int kMaxVocabSize = 1 << 20;
// The per-piece cache is cleared when it holds this many pieces; pieces
// longer than kMaxCachedPieceBytes are not kept.
constexpr int kMaxCachedPieces = 1 << 16;
constexpr int kMaxCachedPieceBytes = 64;

std::string lineText(int line)
{
    return " line " + std::to_string(line);
}

}  // namespace

struct Gpt2Tokenizer::Data {
    std::vector<QString> pieces;    // by id, as vocab.json has them
    std::vector<QByteArray> bytes;  // by id, the bytes they stand for
    std::array<int, 256> byteIds{};
    BpeMergeTable merges;
};

struct Gpt2Tokenizer::Cache {
    std::mutex mutex;
    QHash<QByteArray, std::vector<int>> pieces;
};

attn::Expected<Gpt2Tokenizer> Gpt2Tokenizer::fromFolder(const QString& folder)
{
    const QDir dir(folder);
    const attn::Expected<QByteArray> vocab =
        readInputFile(dir.filePath(QStringLiteral("vocab.json")), kMaxTokenizerFileBytes, "vocab.json");
    if (!vocab)
        return vocab.error();
    const attn::Expected<QByteArray> merges =
        readInputFile(dir.filePath(QStringLiteral("merges.txt")), kMaxTokenizerFileBytes, "merges.txt");
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

    const std::array<char16_t, 256>& chars = byteLevelCharacters();

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
            return attn::Error{where + "the id of " + quoteToken(token) + " is "
                               + JsonValue::typeName(value.type()) + ", not an integer"};
        const std::string& digits = value.text();
        const bool integral = !digits.empty() && digits.find_first_of(".eE") == std::string::npos;
        if (!integral || digits[0] == '-' || value.number() >= n)
            return attn::Error{where + "the id of " + quoteToken(token) + " is " + digits
                               + (integral ? ", outside 0.." + std::to_string(n - 1) + " (the file has "
                                                 + std::to_string(n) + " tokens)"
                                           : ", not an integer")};
        const int id = int(value.number());
        if (idEntry[std::size_t(id)] != 0)
            return attn::Error{where + "the id " + digits + " of " + quoteToken(token)
                               + " is already the id of "
                               + quoteToken(data->pieces[std::size_t(id)].toStdString()) + " (entry "
                               + std::to_string(idEntry[std::size_t(id)]) + ")"};
        if (token.empty())
            return attn::Error{where + "an empty token"};
        const QString piece = QString::fromStdString(token);
        QByteArray bytes;
        bytes.reserve(piece.size());
        for (const QChar c : piece) {
            const int byte = byteLevelByte(c.unicode());
            if (byte < 0)
                return attn::Error{
                    where + "the token " + quoteToken(token) + " has "
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
            return attn::Error{"vocab.json: the byte " + byteHexText(b).toStdString() + " has no token ("
                               + quoteToken(QString(QChar(chars[std::size_t(b)])).toStdString()) + ")"};
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
                return attn::Error{where + "expected \"#version: ...\", found " + quoteToken(text)};
            continue;
        }
        const std::size_t space = text.find(' ');
        if (space == 0 || space == std::string_view::npos || space + 1 == text.size()
            || text.find(' ', space + 1) != std::string_view::npos)
            return attn::Error{where + quoteToken(text) + " is not two tokens separated by one space"};
        const std::string_view left = text.substr(0, space);
        const std::string_view right = text.substr(space + 1);
        const auto l = ids.constFind(QByteArrayView(left.data(), qsizetype(left.size())));
        if (l == ids.constEnd())
            return attn::Error{where + quoteToken(left) + " is not in vocab.json"};
        const auto r = ids.constFind(QByteArrayView(right.data(), qsizetype(right.size())));
        if (r == ids.constEnd())
            return attn::Error{where + quoteToken(right) + " is not in vocab.json"};
        joined.assign(left).append(right);
        const auto m = ids.constFind(QByteArrayView(joined.data(), qsizetype(joined.size())));
        if (m == ids.constEnd())
            return attn::Error{where + "the merge of " + quoteToken(left) + " and " + quoteToken(right)
                               + " gives " + quoteToken(joined) + ", which is not in vocab.json"};
        const std::uint64_t key = bpePairKey(*l, *r);
        const auto seen = data->merges.constFind(key);
        if (seen != data->merges.constEnd())
            return attn::Error{where + "the merge " + quoteToken(text) + " is already on line "
                               + std::to_string(seen->where)};
        data->merges.insert(key, BpeMerge{rank, *m, line});
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

// One pre-tokenized piece (its UTF-8 bytes) through the merges
// (mergeBytePairs), through the cache.
void Gpt2Tokenizer::encodePiece(const QByteArray& piece, std::vector<int>& ids) const
{
    const int n = int(piece.size());
    if (n <= kMaxCachedPieceBytes) {
        const std::lock_guard<std::mutex> lock(cache_->mutex);
        const auto it = cache_->pieces.constFind(piece);
        if (it != cache_->pieces.constEnd()) {
            ids.insert(ids.end(), it->begin(), it->end());
            return;
        }
    }
    const std::size_t first = ids.size();
    mergeBytePairs(piece, data_->byteIds, data_->merges, ids);
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
    thread_local const QRegularExpression pattern(gpt2PreTokenizerPattern());
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
    if (id < 0 || std::size_t(id) >= data_->pieces.size())
        return outsideVocabulary(id);
    return {id, data_->pieces.at(std::size_t(id)), displayText(data_->bytes.at(std::size_t(id)))};
}

QByteArray Gpt2Tokenizer::tokenBytes(int id) const
{
    if (id < 0 || std::size_t(id) >= data_->bytes.size())
        return QByteArray();
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
    return byteLevelDisplayText(bytes);
}

}  // namespace attnlab
