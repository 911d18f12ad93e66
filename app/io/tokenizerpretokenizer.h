// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The text steps of a Hugging Face tokenizer.json before its BPE model: the
// normalizer and the byte-level pre-tokenizer, read from their JSON and
// applied (tokenizerjson.h puts them together).
//
// Normalizer: none, "NFC" (and "NFD", "NFKC", "NFKD", QString::normalized),
// or a "Sequence" of those. Anything else ("Lowercase", "Prepend",
// "Replace", ...) is refused by name.
//
// Pre-tokenizer, as Llama 3 and Qwen write it: a "Sequence" of "Split"
// steps (a regex or a string, behavior "Isolated", invert false: the
// matches and the text between them become pieces) then "ByteLevel"
// (use_regex false); or, as GPT-2 and SmolLM2 write it, "ByteLevel" alone
// with use_regex true, which splits each piece with GPT-2's own pattern
// (bytelevelbpe.h). add_prefix_space puts a space before each piece that
// does not start with one, as Hugging Face's ByteLevel does. Each piece
// comes out as its UTF-8 bytes, the BPE model's input. "Metaspace" (Llama 2,
// Gemma) and every other type are refused by name.
//
// Split patterns are Oniguruma's syntax (Hugging Face compiles them with
// it); they are read with QRegularExpression (PCRE2, Unicode properties on),
// whose syntax is the same for these patterns except \s: Oniguruma's is
// Unicode's White_Space, so \s and \S are written out as that class
// (gpt2PreTokenizerPattern does the same). A \S inside a character class,
// or a nested class, is refused.

#include "expected.h"

#include <QByteArray>
#include <QString>

#include <vector>

namespace attnlab {

class JsonValue;

// The normalizer; `json` is the "normalizer" value or null.
class TokenizerNormalizer {
public:
    static attn::Expected<TokenizerNormalizer> fromJson(const JsonValue* json);
    bool isNone() const { return forms_.empty(); }
    QString apply(const QString& text) const;

private:
    std::vector<int> forms_;  // QString::NormalizationForm, in order
};

// Oniguruma pattern -> PCRE2 pattern, or an error naming what is refused.
attn::Expected<QString> pcrePatternFromOniguruma(const QString& pattern);

class TokenizerPreTokenizer {
public:
    // `json` is the "pre_tokenizer" value, or null. Errors start with
    // "pre_tokenizer".
    static attn::Expected<TokenizerPreTokenizer> fromJson(const JsonValue* json);

    // Appends the pieces of `text` (normalised, without added tokens), each
    // as UTF-8 bytes, to `pieces`.
    void split(const QString& text, std::vector<QByteArray>& pieces) const;

private:
    std::vector<QString> splitPatterns_;  // PCRE2, applied in order
    bool addPrefixSpace_ = false;
    bool gpt2Regex_ = false;  // ByteLevel's use_regex
};

}  // namespace attnlab
