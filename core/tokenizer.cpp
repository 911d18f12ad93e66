// SPDX-License-Identifier: GPL-3.0-or-later
#include "tokenizer.h"

#include "size_limits.h"

#include <algorithm>
#include <cstdint>

namespace attn {
namespace {

// Decodes one UTF-8 code point at s[i]; returns its length in bytes, or 0 for
// an invalid sequence (overlong, surrogate, beyond U+10FFFF, truncated).
int decodeUtf8(std::string_view s, std::size_t i, char32_t* cp)
{
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        *cp = b0;
        return 1;
    }
    int len = 0;
    char32_t value = 0;
    char32_t minimum = 0;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2;
        value = b0 & 0x1F;
        minimum = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3;
        value = b0 & 0x0F;
        minimum = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4;
        value = b0 & 0x07;
        minimum = 0x10000;
    } else {
        return 0;
    }
    if (i + len > s.size())
        return 0;
    for (int k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80)
            return 0;
        value = (value << 6) | (b & 0x3F);
    }
    if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
        return 0;
    *cp = value;
    return len;
}

// White space as Python's str.split() sees it (the article splits with it).
bool isSpace(char32_t c)
{
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680
           || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F
           || c == 0x3000;
}

bool isPunctuation(char32_t c)
{
    if (c < 0x80)
        return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60)
               || (c >= 0x7B && c <= 0x7E);
    return c == 0xA1 || c == 0xA7 || c == 0xAB || c == 0xB6 || c == 0xB7 || c == 0xBB || c == 0xBF
           || c == 0x37E || c == 0x387 || (c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E)
           || (c >= 0x3001 && c <= 0x3003) || (c >= 0x3008 && c <= 0x3011) || (c >= 0x3014 && c <= 0x301F)
           || (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40)
           || (c >= 0xFF5B && c <= 0xFF65);
}

bool isControl(char32_t c)
{
    return (c < 0x20 && !isSpace(c)) || c == 0x7F || (c >= 0x80 && c < 0xA0 && c != 0x85);
}

}  // namespace

Expected<Tokenization> tokenize(std::string_view sentence, TokenizerMode mode)
{
    if (sentence.size() > std::size_t(kMaxSentenceBytes))
        return Error{"The sentence is " + std::to_string(sentence.size()) + " bytes long; the limit is "
                     + std::to_string(kMaxSentenceBytes) + "."};

    Tokenization out;
    std::string current;
    auto flush = [&]() {
        if (!current.empty()) {
            out.tokens.push_back(std::move(current));
            current.clear();
        }
    };

    std::size_t i = 0;
    while (i < sentence.size()) {
        char32_t cp = 0;
        const int len = decodeUtf8(sentence, i, &cp);
        if (len == 0)
            return Error{"The sentence is not valid UTF-8 (byte " + std::to_string(i + 1) + ")."};
        if (isControl(cp))
            return Error{"The sentence contains a control character (byte " + std::to_string(i + 1)
                         + "); only printable text is accepted."};
        const std::string_view bytes = sentence.substr(i, len);
        if (isSpace(cp)) {
            flush();
        } else if (mode == TokenizerMode::Article && cp == U',') {
            // The article removes commas before splitting: "short," -> "short".
        } else if (mode == TokenizerMode::Punctuation && isPunctuation(cp)) {
            flush();
            out.tokens.emplace_back(bytes);
        } else {
            current.append(bytes);
        }
        if (out.tokens.size() > std::size_t(kMaxTokens))
            return Error{"The sentence has more than " + std::to_string(kMaxTokens) + " tokens; the limit is "
                         + std::to_string(kMaxTokens) + "."};
        i += len;
    }
    flush();
    if (out.tokens.size() > std::size_t(kMaxTokens))
        return Error{"The sentence has " + std::to_string(out.tokens.size()) + " tokens; the limit is "
                     + std::to_string(kMaxTokens) + "."};
    if (out.tokens.empty())
        return Error{"The sentence has no tokens: type at least one word."};

    // std::string compares bytes as unsigned char, and UTF-8 byte order is
    // code-point order, so this is the order of Python's sorted().
    out.vocab = out.tokens;
    std::sort(out.vocab.begin(), out.vocab.end());
    out.vocab.erase(std::unique(out.vocab.begin(), out.vocab.end()), out.vocab.end());
    out.ids.reserve(out.tokens.size());
    for (const std::string& token : out.tokens) {
        const auto it = std::lower_bound(out.vocab.begin(), out.vocab.end(), token);
        out.ids.push_back(int(it - out.vocab.begin()));
    }
    return out;
}

const char* tokenizerModeName(TokenizerMode mode)
{
    return mode == TokenizerMode::Article ? "article" : "punctuation";
}

bool parseTokenizerMode(std::string_view name, TokenizerMode* mode)
{
    if (name == "article") {
        *mode = TokenizerMode::Article;
        return true;
    }
    if (name == "punctuation") {
        *mode = TokenizerMode::Punctuation;
        return true;
    }
    return false;
}

}  // namespace attn
