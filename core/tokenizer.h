// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Sentence -> tokens -> vocabulary ids.
//
// Article mode reproduces Raschka's walk-through: remove commas, split on
// white space. Punctuation mode splits every punctuation character into a
// token of its own. In both, the vocabulary is the sorted set of distinct
// tokens in code-point order ("Life" sorts before "dessert"), and a token's id
// is its index in that vocabulary, so a repeated word shares one id.
// Input is UTF-8; tokens are never cut inside a code point.

#include "expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace attn {

enum class TokenizerMode { Article, Punctuation };

struct Tokenization {
    std::vector<std::string> tokens;  // in sentence order
    std::vector<int> ids;             // ids[i] = index of tokens[i] in vocab
    std::vector<std::string> vocab;   // sorted, distinct (buildModel may renumber: model.h)
};

// Refuses invalid UTF-8, text over kMaxSentenceBytes, more than kMaxTokens
// tokens, and a sentence with no token at all.
Expected<Tokenization> tokenize(std::string_view sentence, TokenizerMode mode);

const char* tokenizerModeName(TokenizerMode mode);  // "article" / "punctuation"
bool parseTokenizerMode(std::string_view name, TokenizerMode* mode);

}  // namespace attn
