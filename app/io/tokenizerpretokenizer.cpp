// SPDX-License-Identifier: GPL-3.0-or-later
#include "tokenizerpretokenizer.h"

#include "bytelevelbpe.h"
#include "jsonvalue.h"

#include <QHash>
#include <QRegularExpression>

#include <string>

namespace attnlab {
namespace {

const char* const kSupportedPreTokenizers =
    "supported: ByteLevel, or a Sequence of Split regexes then ByteLevel, as GPT-2, SmolLM2, Llama 3 and "
    "Qwen "
    "write them";

// A step's "type", or "" when it has none.
std::string typeOf(const JsonValue& json)
{
    const JsonValue* type = json.isObject() ? json.find("type") : nullptr;
    return type && type->isString() ? type->text() : std::string();
}

// A boolean key: `fallback` when absent or null, an error when not a boolean.
attn::Expected<bool> booleanKey(const JsonValue& json, const char* key, bool fallback,
                                const std::string& where)
{
    const JsonValue* value = json.find(key);
    if (!value || value->type() == JsonValue::Type::Null)
        return fallback;
    if (!value->isBoolean())
        return attn::Error{where + "." + key + " is " + JsonValue::typeName(value->type())
                           + ", not true or false"};
    return value->boolean();
}

// The compiled patterns, one set per thread (a QRegularExpression is
// matched from one thread at a time here), few: one per Split step.
QRegularExpression regexFor(const QString& pattern, QRegularExpression::PatternOptions options)
{
    thread_local QHash<QString, QRegularExpression> compiled;
    const auto it = compiled.constFind(pattern);
    if (it != compiled.constEnd())
        return *it;
    if (compiled.size() >= 32)
        compiled.clear();
    const QRegularExpression re(pattern, options);
    compiled.insert(pattern, re);
    return re;
}

// Isolated: each match and each stretch between matches is a piece; empty
// pieces are dropped.
void splitIsolated(const QRegularExpression& re, const QString& text, std::vector<QString>& out)
{
    qsizetype last = 0;
    QRegularExpressionMatchIterator it = re.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        if (m.capturedLength() == 0)
            continue;
        if (m.capturedStart() > last)
            out.push_back(text.mid(last, m.capturedStart() - last));
        out.push_back(m.captured());
        last = m.capturedEnd();
    }
    if (last < text.size())
        out.push_back(text.mid(last));
}

}  // namespace

attn::Expected<TokenizerNormalizer> TokenizerNormalizer::fromJson(const JsonValue* json)
{
    TokenizerNormalizer normalizer;
    if (!json || json->type() == JsonValue::Type::Null)
        return normalizer;
    std::vector<const JsonValue*> steps{json};
    if (typeOf(*json) == "Sequence") {
        const JsonValue* list = json->find("normalizers");
        if (!list || !list->isArray() || list->allNumbers())
            return attn::Error{"normalizer: a Sequence without a \"normalizers\" list"};
        steps.clear();
        for (const JsonValue& step : list->items())
            steps.push_back(&step);
    }
    for (const JsonValue* step : steps) {
        const std::string type = typeOf(*step);
        if (type == "NFC")
            normalizer.forms_.push_back(QString::NormalizationForm_C);
        else if (type == "NFD")
            normalizer.forms_.push_back(QString::NormalizationForm_D);
        else if (type == "NFKC")
            normalizer.forms_.push_back(QString::NormalizationForm_KC);
        else if (type == "NFKD")
            normalizer.forms_.push_back(QString::NormalizationForm_KD);
        else
            return attn::Error{"normalizer " + quoteToken(type.empty() ? std::string("(no type)") : type)
                               + " is not supported (supported: NFC, NFD, NFKC, NFKD or none)"};
    }
    return normalizer;
}

QString TokenizerNormalizer::apply(const QString& text) const
{
    QString out = text;
    for (const int form : forms_)
        out = out.normalized(QString::NormalizationForm(form));
    return out;
}

attn::Expected<QString> pcrePatternFromOniguruma(const QString& pattern)
{
    const QString ws = whiteSpaceClassBody();
    QString out;
    bool inClass = false;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern[i];
        if (c == QLatin1Char('\\') && i + 1 < pattern.size()) {
            const QChar e = pattern[++i];
            if (e == QLatin1Char('s'))
                out += inClass ? ws : QLatin1Char('[') + ws + QLatin1Char(']');
            else if (e == QLatin1Char('S') && !inClass)
                out += QStringLiteral("[^") + ws + QLatin1Char(']');
            else if (e == QLatin1Char('S'))
                return attn::Error{"\\S inside a character class is not supported"};
            else
                out += c + QString(e);
            continue;
        }
        if (inClass && c == QLatin1Char('[')) {
            if (i + 1 < pattern.size() && pattern[i + 1] == QLatin1Char(':')) {  // [:alpha:]
                const qsizetype end = pattern.indexOf(QStringLiteral(":]"), i + 2);
                if (end < 0)
                    return attn::Error{"an unclosed [: in a character class"};
                out += pattern.mid(i, end + 2 - i);
                i = end + 1;
                continue;
            }
            return attn::Error{"a character class inside a character class is not supported"};
        }
        if (!inClass && c == QLatin1Char('[')) {
            inClass = true;
            out += c;
            // A ']' first (after '^') stands for itself.
            if (i + 1 < pattern.size() && pattern[i + 1] == QLatin1Char('^')) {
                out += QLatin1Char('^');
                ++i;
            }
            if (i + 1 < pattern.size() && pattern[i + 1] == QLatin1Char(']')) {
                out += QStringLiteral("\\]");
                ++i;
            }
            continue;
        }
        if (inClass && c == QLatin1Char(']'))
            inClass = false;
        out += c;
    }
    return out;
}

attn::Expected<TokenizerPreTokenizer> TokenizerPreTokenizer::fromJson(const JsonValue* json)
{
    if (!json || json->type() == JsonValue::Type::Null)
        return attn::Error{std::string("pre_tokenizer is missing (") + kSupportedPreTokenizers + ")"};
    std::vector<std::pair<const JsonValue*, std::string>> steps;
    if (typeOf(*json) == "Sequence") {
        const JsonValue* list = json->find("pretokenizers");
        if (!list || !list->isArray() || list->allNumbers())
            return attn::Error{"pre_tokenizer: a Sequence without a \"pretokenizers\" list"};
        for (std::size_t i = 0; i < list->items().size(); ++i)
            steps.emplace_back(&list->items()[i], "pre_tokenizer.pretokenizers[" + std::to_string(i) + "]");
    } else {
        steps.emplace_back(json, "pre_tokenizer");
    }

    TokenizerPreTokenizer pre;
    bool byteLevel = false;
    for (const auto& [step, where] : steps) {
        const std::string type = typeOf(*step);
        if (byteLevel)
            return attn::Error{where + " " + quoteToken(type) + " comes after ByteLevel ("
                               + kSupportedPreTokenizers + ")"};
        if (type == "ByteLevel") {
            byteLevel = true;
            const attn::Expected<bool> prefix = booleanKey(*step, "add_prefix_space", true, where);
            if (!prefix)
                return prefix.error();
            const attn::Expected<bool> regex = booleanKey(*step, "use_regex", true, where);
            if (!regex)
                return regex.error();
            pre.addPrefixSpace_ = *prefix;
            pre.gpt2Regex_ = *regex;
        } else if (type == "Split") {
            const JsonValue* behavior = step->find("behavior");
            if (!behavior || !behavior->isString() || behavior->text() != "Isolated")
                return attn::Error{where + ".behavior "
                                   + (behavior && behavior->isString() ? quoteToken(behavior->text())
                                                                       : std::string("(missing)"))
                                   + " is not supported (supported: Isolated)"};
            const attn::Expected<bool> invert = booleanKey(*step, "invert", false, where);
            if (!invert)
                return invert.error();
            if (*invert)
                return attn::Error{where + ".invert is true (supported: false)"};
            const JsonValue* pattern = step->find("pattern");
            const JsonValue* regex = pattern && pattern->isObject() ? pattern->find("Regex") : nullptr;
            const JsonValue* string = pattern && pattern->isObject() ? pattern->find("String") : nullptr;
            QString pcre;
            if (regex && regex->isString()) {
                const attn::Expected<QString> translated =
                    pcrePatternFromOniguruma(QString::fromStdString(regex->text()));
                if (!translated)
                    return attn::Error{where + ".pattern.Regex: " + translated.error().message};
                pcre = *translated;
            } else if (string && string->isString()) {
                pcre = QRegularExpression::escape(QString::fromStdString(string->text()));
            } else {
                return attn::Error{where + ".pattern is not {\"Regex\": ...} or {\"String\": ...}"};
            }
            const QRegularExpression re(pcre, QRegularExpression::UseUnicodePropertiesOption);
            if (!re.isValid())
                return attn::Error{where + ".pattern does not compile: " + re.errorString().toStdString()
                                   + " at offset " + std::to_string(re.patternErrorOffset())};
            pre.splitPatterns_.push_back(pcre);
        } else if (type == "Metaspace") {
            return attn::Error{where + " \"Metaspace\" is not supported (SentencePiece-style, as Llama 2 and "
                                       "Gemma write it; "
                               + kSupportedPreTokenizers + ")"};
        } else {
            return attn::Error{where + " " + quoteToken(type.empty() ? std::string("(no type)") : type)
                               + " is not supported (" + kSupportedPreTokenizers + ")"};
        }
    }
    if (!byteLevel)
        return attn::Error{std::string("pre_tokenizer has no ByteLevel step (") + kSupportedPreTokenizers
                           + ")"};
    return pre;
}

void TokenizerPreTokenizer::split(const QString& text, std::vector<QByteArray>& pieces) const
{
    std::vector<QString> current{text};
    std::vector<QString> next;
    for (const QString& pattern : splitPatterns_) {
        const QRegularExpression re = regexFor(pattern, QRegularExpression::UseUnicodePropertiesOption);
        next.clear();
        for (const QString& piece : current)
            splitIsolated(re, piece, next);
        current.swap(next);
    }
    const QRegularExpression gpt2 =
        gpt2Regex_ ? regexFor(gpt2PreTokenizerPattern(), QRegularExpression::NoPatternOption)
                   : QRegularExpression();
    for (QString& piece : current) {
        if (piece.isEmpty())
            continue;
        if (addPrefixSpace_ && !piece.startsWith(QLatin1Char(' ')))
            piece.prepend(QLatin1Char(' '));
        if (!gpt2Regex_) {
            pieces.push_back(piece.toUtf8());
            continue;
        }
        next.clear();
        splitIsolated(gpt2, piece, next);
        for (const QString& part : next)
            pieces.push_back(part.toUtf8());
    }
}

}  // namespace attnlab
