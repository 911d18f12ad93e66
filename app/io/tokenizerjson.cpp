// SPDX-License-Identifier: GPL-3.0-or-later
#include "tokenizerjson.h"

#include "bytelevelbpe.h"
#include "inputfile.h"
#include "jsonvalue.h"
#include "tokenizeraddedtokens.h"
#include "tokenizerpretokenizer.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>

#include <array>
#include <optional>
#include <string>

namespace attnlab {
namespace {

constexpr int kMaxVocabSize = 1 << 20;
// Values in tokenizer.json: a token is one, a merge one or three; Llama 3's
// file (128,256 tokens, 280,147 merges as pairs) holds about a million. The
// cap bounds the parser's memory (about 150 bytes a value) at about 300 MB.
constexpr long long kMaxTokenizerJsonValues = 1 << 21;
constexpr long long kMaxConfigFileBytes = 16LL << 20;

const char* const kSupported = "supported: BPE with byte-level pre-tokenization";

std::string at(const JsonValue& value)
{
    return " (line " + std::to_string(value.line()) + ")";
}

// A non-negative integer id below kMaxVocabSize, or nullopt.
std::optional<int> idOf(const JsonValue& value)
{
    if (!value.isNumber())
        return std::nullopt;
    const std::string& digits = value.text();
    if (digits.empty() || digits.find_first_of(".eE-") != std::string::npos
        || value.number() >= kMaxVocabSize)
        return std::nullopt;
    return int(value.number());
}

std::string idText(const JsonValue& value)
{
    return value.isNumber() ? value.text() : std::string(JsonValue::typeName(value.type()));
}

// A token's bytes: its characters through the byte table, or its UTF-8 when
// one is not a byte character (Hugging Face's ByteLevel decoder).
QByteArray tokenBytesOf(const QString& piece)
{
    QByteArray bytes;
    bytes.reserve(piece.size());
    for (const QChar c : piece) {
        const int b = byteLevelByte(c.unicode());
        if (b < 0)
            return piece.toUtf8();
        bytes += char(b);
    }
    return bytes;
}

struct AddedEntry {
    QString content;
    int id = 0;
    bool singleWord = false;
    bool lstrip = false;
    bool rstrip = false;
    bool normalized = false;
    bool special = false;
};

// One added token object ({"id": ..., "content": ..., ...}); `id` given when
// the object has none (tokenizer_config.json's added_tokens_decoder keys).
attn::Expected<AddedEntry> readAddedToken(const JsonValue& json, const std::string& where,
                                          std::optional<int> id = std::nullopt)
{
    if (!json.isObject())
        return attn::Error{where + " is " + JsonValue::typeName(json.type()) + ", not an object"};
    AddedEntry entry;
    if (!id) {
        const JsonValue* idValue = json.find("id");
        if (!idValue)
            return attn::Error{where + " has no \"id\""};
        id = idOf(*idValue);
        if (!id)
            return attn::Error{where + ".id " + idText(*idValue) + " is not an id (an integer 0.."
                               + std::to_string(kMaxVocabSize - 1) + ")"};
    }
    entry.id = *id;
    const JsonValue* content = json.find("content");
    if (!content || !content->isString() || content->text().empty())
        return attn::Error{where + ".content is missing or not a non-empty string"};
    entry.content = QString::fromStdString(content->text());
    const JsonValue* special = json.find("special");
    entry.special = special && special->isBoolean() && special->boolean();
    entry.normalized = !entry.special;
    for (const auto& [key, flag] : {std::pair<const char*, bool*>{"single_word", &entry.singleWord},
                                    {"lstrip", &entry.lstrip},
                                    {"rstrip", &entry.rstrip},
                                    {"normalized", &entry.normalized}}) {
        const JsonValue* value = json.find(key);
        if (!value || value->type() == JsonValue::Type::Null)
            continue;
        if (!value->isBoolean())
            return attn::Error{where + "." + key + " is " + JsonValue::typeName(value->type())
                               + ", not true or false"};
        *flag = value->boolean();
    }
    return entry;
}

}  // namespace

struct TokenizerJson::Data {
    std::vector<QString> pieces;    // by id, as the file spells them
    std::vector<QByteArray> bytes;  // by id
    int modelVocab = 0;
    int added = 0;
    std::array<int, 256> byteIds{};
    BpeMergeTable merges;
    bool ignoreMerges = false;
    QHash<QByteArray, int> vocabByPiece;  // UTF-8 piece -> id, with ignore_merges only
    TokenizerNormalizer normalizer;
    TokenizerPreTokenizer preTokenizer;
    AddedTokenMatcher rawTokens;         // normalized false
    AddedTokenMatcher normalizedTokens;  // normalized true, their content normalised
    int bosId = -1;
};

attn::Expected<std::shared_ptr<const TokenizerJson>> TokenizerJson::fromData(std::string_view tokenizerJson,
                                                                             std::string_view configJson)
{
    const auto fail = [](const std::string& message) { return attn::Error{"tokenizer.json: " + message}; };
    JsonLimits limits;
    limits.maxValues = kMaxTokenizerJsonValues;
    const attn::Expected<JsonValue> json = parseJson(tokenizerJson, limits);
    if (!json)
        return fail(json.error().message);
    if (!json->isObject())
        return fail(std::string("expected a JSON object, found ") + JsonValue::typeName(json->type()));
    const JsonValue* model = json->find("model");
    if (!model || model->type() == JsonValue::Type::Null)
        return fail("no \"model\" (the vocabulary and merges)");
    if (!model->isObject())
        return fail(std::string("model is ") + JsonValue::typeName(model->type()) + ", not an object");

    // What kind of tokenizer, before its parts are read, so that the message
    // names the kind.
    const JsonValue* type = model->find("type");
    if (type && !type->isString())
        return fail("model.type is not a string");
    if (type && type->text() != "BPE")
        return fail("model type " + quoteToken(type->text()) + " is not supported (" + kSupported + ")");
    const JsonValue* vocab = model->find("vocab");
    const JsonValue* merges = model->find("merges");
    if (!type && (!merges || !vocab || !vocab->isObject()))
        return fail(std::string("model has no \"type\" and is not a BPE (") + kSupported + ")");
    const JsonValue* byteFallback = model->find("byte_fallback");
    if (byteFallback && byteFallback->isBoolean() && byteFallback->boolean())
        return fail(
            "model.byte_fallback is true (SentencePiece-style BPE, as Llama 2 and Gemma use) is not "
            "supported ("
            + std::string(kSupported) + ")");
    const JsonValue* dropout = model->find("dropout");
    if (dropout && dropout->type() != JsonValue::Type::Null
        && !(dropout->isNumber() && dropout->number() == 0))
        return fail("model.dropout " + idText(*dropout) + " is not supported (BPE dropout is random)");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
        const JsonValue* affix = model->find(key);
        if (affix && affix->type() != JsonValue::Type::Null && !(affix->isString() && affix->text().empty()))
            return fail(std::string("model.") + key + " is set; byte-level BPE has none (" + kSupported
                        + ")");
    }

    auto data = std::make_shared<Data>();
    {
        attn::Expected<TokenizerPreTokenizer> pre =
            TokenizerPreTokenizer::fromJson(json->find("pre_tokenizer"));
        if (!pre)
            return fail(pre.error().message);
        data->preTokenizer = std::move(pre).value();
        attn::Expected<TokenizerNormalizer> normalizer =
            TokenizerNormalizer::fromJson(json->find("normalizer"));
        if (!normalizer)
            return fail(normalizer.error().message);
        data->normalizer = std::move(normalizer).value();
    }
    const JsonValue* ignore = model->find("ignore_merges");
    if (ignore && ignore->type() != JsonValue::Type::Null && !ignore->isBoolean())
        return fail("model.ignore_merges is not true or false");
    data->ignoreMerges = ignore && ignore->isBoolean() && ignore->boolean();

    // The vocabulary: ids 0..n-1, each once.
    if (!vocab)
        return fail("model has no \"vocab\"");
    if (!vocab->isObject())
        return fail(std::string("model.vocab is ") + JsonValue::typeName(vocab->type()) + ", not an object");
    const int n = int(vocab->members().size());
    if (n == 0)
        return fail("model.vocab has no tokens");
    data->pieces.resize(std::size_t(n));
    data->bytes.resize(std::size_t(n));
    std::vector<bool> seen(std::size_t(n), false);
    QHash<QByteArrayView, int> ids;  // token (UTF-8, as in the file) -> id
    ids.reserve(n);
    for (const auto& [token, value] : vocab->members()) {
        const std::optional<int> id = idOf(value);
        if (!id || *id >= n)
            return fail("model.vocab" + at(value) + ": the id of " + quoteToken(token) + " is "
                        + idText(value) + ", not one of 0.." + std::to_string(n - 1) + " (the vocabulary has "
                        + std::to_string(n) + " tokens)");
        if (seen[std::size_t(*id)])
            return fail("model.vocab" + at(value) + ": the id " + value.text() + " of " + quoteToken(token)
                        + " is already the id of "
                        + quoteToken(data->pieces[std::size_t(*id)].toStdString()));
        if (token.empty())
            return fail("model.vocab" + at(value) + ": an empty token");
        seen[std::size_t(*id)] = true;
        data->pieces[std::size_t(*id)] = QString::fromStdString(token);
        data->bytes[std::size_t(*id)] = tokenBytesOf(data->pieces[std::size_t(*id)]);
        ids.insert(QByteArrayView(token.data(), qsizetype(token.size())), *id);
        if (data->ignoreMerges)
            data->vocabByPiece.insert(QByteArray(token.data(), qsizetype(token.size())), *id);
    }
    data->modelVocab = n;
    const std::array<char16_t, 256>& chars = byteLevelCharacters();
    for (int b = 0; b < 256; ++b) {
        const QByteArray utf8 = QString(QChar(chars[std::size_t(b)])).toUtf8();
        const auto it = ids.constFind(QByteArrayView(utf8));
        if (it == ids.constEnd())
            return fail("model.vocab: the byte " + byteHexText(b).toStdString() + " has no token ("
                        + quoteToken(utf8.toStdString()) + "), which byte-level BPE needs");
        data->byteIds[std::size_t(b)] = *it;
    }

    // The merges, by rank: "left right" strings or ["left", "right"] pairs.
    if (!merges)
        return fail("model has no \"merges\"");
    if (!merges->isArray() || (merges->allNumbers() && merges->size() > 0))
        return fail("model.merges is not a list of merges");
    data->merges.reserve(qsizetype(merges->size()));
    std::string joined;
    int rank = 0;
    for (const JsonValue& merge : merges->items()) {
        const std::string where = "model.merges[" + std::to_string(rank) + "]" + at(merge);
        std::string_view left;
        std::string_view right;
        if (merge.isString()) {
            const std::string& text = merge.text();
            const std::size_t space = text.find(' ');
            if (space == 0 || space == std::string::npos || space + 1 == text.size()
                || text.find(' ', space + 1) != std::string::npos)
                return fail(where + ": " + quoteToken(text) + " is not two tokens separated by one space");
            left = std::string_view(text).substr(0, space);
            right = std::string_view(text).substr(space + 1);
        } else if (merge.isArray() && merge.size() == 2 && !merge.allNumbers() && merge.items()[0].isString()
                   && merge.items()[1].isString()) {
            left = merge.items()[0].text();
            right = merge.items()[1].text();
        } else {
            return fail(where + ": not a \"left right\" string or a [\"left\", \"right\"] pair");
        }
        const auto l = ids.constFind(QByteArrayView(left.data(), qsizetype(left.size())));
        if (l == ids.constEnd())
            return fail(where + ": " + quoteToken(left) + " is not in model.vocab");
        const auto r = ids.constFind(QByteArrayView(right.data(), qsizetype(right.size())));
        if (r == ids.constEnd())
            return fail(where + ": " + quoteToken(right) + " is not in model.vocab");
        joined.assign(left).append(right);
        const auto m = ids.constFind(QByteArrayView(joined.data(), qsizetype(joined.size())));
        if (m == ids.constEnd())
            return fail(where + ": the merge of " + quoteToken(left) + " and " + quoteToken(right) + " gives "
                        + quoteToken(joined) + ", which is not in model.vocab");
        // A pair given twice keeps its last rank, as Hugging Face's does.
        data->merges.insert(bpePairKey(*l, *r), BpeMerge{rank, *m, merge.line()});
        ++rank;
    }

    // Added tokens: tokenizer.json's, then tokenizer_config.json's that it
    // lacks (as transformers adds them).
    std::vector<AddedEntry> added;
    QHash<int, qsizetype> addedById;
    const auto addEntry = [&](AddedEntry entry, const std::string& where) -> std::optional<attn::Error> {
        if (entry.id < n) {
            if (data->pieces[std::size_t(entry.id)] != entry.content)
                return attn::Error{where + ": " + quoteToken(entry.content.toStdString()) + " has the id "
                                   + std::to_string(entry.id) + ", which model.vocab gives to "
                                   + quoteToken(data->pieces[std::size_t(entry.id)].toStdString())};
        }
        const auto known = addedById.constFind(entry.id);
        if (known != addedById.constEnd()) {
            if (added[std::size_t(*known)].content != entry.content)
                return attn::Error{where + ": " + quoteToken(entry.content.toStdString()) + " has the id "
                                   + std::to_string(entry.id) + " of the added token "
                                   + quoteToken(added[std::size_t(*known)].content.toStdString())};
            return std::nullopt;  // the same token again
        }
        addedById.insert(entry.id, qsizetype(added.size()));
        added.push_back(std::move(entry));
        return std::nullopt;
    };
    if (const JsonValue* list = json->find("added_tokens"); list && list->type() != JsonValue::Type::Null) {
        if (!list->isArray() || (list->allNumbers() && list->size() > 0))
            return fail("added_tokens is not a list of token objects");
        for (std::size_t i = 0; i < list->items().size(); ++i) {
            const std::string where = "added_tokens[" + std::to_string(i) + "]" + at(list->items()[i]);
            attn::Expected<AddedEntry> entry = readAddedToken(list->items()[i], where);
            if (!entry)
                return fail(entry.error().message);
            if (const auto error = addEntry(std::move(entry).value(), where))
                return fail(error->message);
        }
    }
    std::optional<JsonValue> config;
    if (!configJson.empty()) {
        const auto failConfig = [](const std::string& message) {
            return attn::Error{"tokenizer_config.json: " + message};
        };
        attn::Expected<JsonValue> parsed = parseJson(configJson);
        if (!parsed)
            return failConfig(parsed.error().message);
        if (!parsed->isObject())
            return failConfig(std::string("expected a JSON object, found ")
                              + JsonValue::typeName(parsed->type()));
        config = std::move(parsed).value();
        if (const JsonValue* decoder = config->find("added_tokens_decoder");
            decoder && decoder->type() != JsonValue::Type::Null) {
            if (!decoder->isObject())
                return failConfig("added_tokens_decoder is not an object of id -> token");
            for (const auto& [key, value] : decoder->members()) {
                const std::string where = "added_tokens_decoder[\"" + key + "\"]" + at(value);
                std::optional<int> id;
                if (!key.empty() && key.size() <= 7
                    && key.find_first_not_of("0123456789") == std::string::npos
                    && std::stoi(key) < kMaxVocabSize)
                    id = std::stoi(key);
                if (!id)
                    return failConfig(where + ": the key is not an id");
                attn::Expected<AddedEntry> entry = readAddedToken(value, where, id);
                if (!entry)
                    return failConfig(entry.error().message);
                if (const auto error = addEntry(std::move(entry).value(), where))
                    return failConfig(error->message);
            }
        }
    }

    // All ids: 0..N-1 without a gap.
    int size = n;
    for (const AddedEntry& e : added)
        size = std::max(size, e.id + 1);
    data->pieces.resize(std::size_t(size));
    data->bytes.resize(std::size_t(size));
    seen.resize(std::size_t(size), false);
    std::vector<AddedTokenMatcher::Token> raw;
    std::vector<AddedTokenMatcher::Token> normalized;
    for (const AddedEntry& e : added) {
        if (e.id >= n) {
            seen[std::size_t(e.id)] = true;
            data->pieces[std::size_t(e.id)] = e.content;
            data->bytes[std::size_t(e.id)] = tokenBytesOf(e.content);
            ++data->added;
        }
        AddedTokenMatcher::Token t{e.content, e.id, e.singleWord, e.lstrip, e.rstrip};
        if (e.normalized) {
            t.content = data->normalizer.apply(t.content);
            normalized.push_back(std::move(t));
        } else {
            raw.push_back(std::move(t));
        }
    }
    for (int id = n; id < size; ++id)
        if (!seen[std::size_t(id)])
            return fail("no token has the id " + std::to_string(id) + " (model.vocab has 0.."
                        + std::to_string(n - 1) + "; added_tokens go up to " + std::to_string(size - 1)
                        + "; the ids must run without a gap)");
    data->rawTokens = AddedTokenMatcher(std::move(raw));
    data->normalizedTokens = AddedTokenMatcher(std::move(normalized));

    // The BOS a caller may put in front.
    const auto idOfContent = [&](const std::string& content) {
        const auto it = ids.constFind(QByteArrayView(content.data(), qsizetype(content.size())));
        if (it != ids.constEnd())
            return *it;
        const QString text = QString::fromStdString(content);
        for (const AddedEntry& e : added)
            if (e.content == text)
                return e.id;
        return -1;
    };
    const JsonValue* addBos = config ? config->find("add_bos_token") : nullptr;
    if (addBos && addBos->isBoolean()) {
        const JsonValue* bos = config->find("bos_token");
        if (bos && bos->isObject())
            bos = bos->find("content");
        if (addBos->boolean() && bos && bos->isString())
            data->bosId = idOfContent(bos->text());
    } else if (const JsonValue* post = json->find("post_processor"); post && post->isObject()) {
        std::vector<const JsonValue*> processors{post};
        if (const JsonValue* list = post->find("processors"); list && list->isArray() && !list->allNumbers())
            for (const JsonValue& p : list->items())
                processors.push_back(&p);
        for (const JsonValue* p : processors) {
            const JsonValue* type = p->isObject() ? p->find("type") : nullptr;
            const JsonValue* single = p->isObject() ? p->find("single") : nullptr;
            if (!type || !type->isString() || type->text() != "TemplateProcessing" || !single
                || !single->isArray() || single->allNumbers() || single->items().empty()
                || !single->items()[0].isObject())
                continue;
            const JsonValue* special = single->items()[0].find("SpecialToken");
            const JsonValue* name = special && special->isObject() ? special->find("id") : nullptr;
            if (name && name->isString())
                data->bosId = idOfContent(name->text());
        }
    }

    std::shared_ptr<TokenizerJson> tokenizer(new TokenizerJson);
    tokenizer->data_ = std::move(data);
    return std::shared_ptr<const TokenizerJson>(std::move(tokenizer));
}

QString TokenizerJson::name() const
{
    return QStringLiteral("byte-level BPE (tokenizer.json)");
}

int TokenizerJson::vocabSize() const
{
    return int(data_->pieces.size());
}

int TokenizerJson::modelVocabSize() const
{
    return data_->modelVocab;
}

int TokenizerJson::mergeCount() const
{
    return int(data_->merges.size());
}

int TokenizerJson::addedTokenCount() const
{
    return data_->added;
}

int TokenizerJson::bosTokenId() const
{
    return data_->bosId;
}

std::vector<int> TokenizerJson::encodeIds(const QString& text) const
{
    const Data& d = *data_;
    // Through UTF-8 and back, so that a lone surrogate (which PCRE2 refuses
    // to match) is U+FFFD, as in Gpt2Tokenizer.
    const QString clean = QString::fromUtf8(text.toUtf8());
    std::vector<int> ids;
    if (clean.isEmpty())
        return ids;
    ids.reserve(std::size_t(clean.size()) / 3 + 1);
    std::vector<AddedTokenMatcher::Part> rawParts;
    d.rawTokens.split(clean, rawParts);
    std::vector<AddedTokenMatcher::Part> parts;
    std::vector<QByteArray> pieces;
    const std::array<char16_t, 256>& chars = byteLevelCharacters();
    QString mapped;
    for (const AddedTokenMatcher::Part& raw : rawParts) {
        if (raw.id >= 0) {
            ids.push_back(raw.id);
            continue;
        }
        parts.clear();
        d.normalizedTokens.split(d.normalizer.apply(raw.text), parts);
        for (const AddedTokenMatcher::Part& part : parts) {
            if (part.id >= 0) {
                ids.push_back(part.id);
                continue;
            }
            pieces.clear();
            d.preTokenizer.split(part.text, pieces);
            for (const QByteArray& piece : pieces) {
                if (d.ignoreMerges) {
                    mapped.resize(piece.size());
                    for (qsizetype i = 0; i < piece.size(); ++i)
                        mapped[i] = QChar(chars[uchar(piece[i])]);
                    const auto it = d.vocabByPiece.constFind(mapped.toUtf8());
                    if (it != d.vocabByPiece.constEnd()) {
                        ids.push_back(*it);
                        continue;
                    }
                }
                mergeBytePairs(piece, d.byteIds, d.merges, ids);
            }
        }
    }
    return ids;
}

ModelToken TokenizerJson::token(int id) const
{
    if (id < 0 || std::size_t(id) >= data_->pieces.size())
        return outsideVocabulary(id);
    return {id, data_->pieces.at(std::size_t(id)), byteLevelDisplayText(data_->bytes.at(std::size_t(id)))};
}

QByteArray TokenizerJson::tokenBytes(int id) const
{
    if (id < 0 || std::size_t(id) >= data_->bytes.size())
        return QByteArray();
    return data_->bytes.at(std::size_t(id));
}

attn::Expected<std::shared_ptr<const ModelTokenizer>> readTokenizerJson(const QString& folder)
{
    const QDir dir(folder);
    const QString path = dir.filePath(QStringLiteral("tokenizer.json"));
    if (!QFileInfo::exists(path))
        return attn::Error{"tokenizer.json: no such file in "
                           + QDir::toNativeSeparators(folder).toStdString()};
    const attn::Expected<QByteArray> tokenizer =
        readInputFile(path, kMaxTokenizerFileBytes, "tokenizer.json");
    if (!tokenizer)
        return tokenizer.error();
    QByteArray config;
    const QString configPath = dir.filePath(QStringLiteral("tokenizer_config.json"));
    if (QFileInfo::exists(configPath)) {
        attn::Expected<QByteArray> read =
            readInputFile(configPath, kMaxConfigFileBytes, "tokenizer_config.json");
        if (!read)
            return read.error();
        config = std::move(read).value();
        if (config.isEmpty())
            return attn::Error{"tokenizer_config.json: the file is empty"};
    }
    attn::Expected<std::shared_ptr<const TokenizerJson>> read =
        TokenizerJson::fromData(std::string_view(tokenizer->constData(), std::size_t(tokenizer->size())),
                                std::string_view(config.constData(), std::size_t(config.size())));
    if (!read)
        return read.error();
    return std::shared_ptr<const ModelTokenizer>(std::move(read).value());
}

}  // namespace attnlab
