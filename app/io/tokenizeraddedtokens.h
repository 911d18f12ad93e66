// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A tokenizer.json's added tokens ("<|endoftext|>", "<|im_start|>", ...)
// found in a text, as Hugging Face's AddedVocabulary finds them: the
// leftmost match first, the longest of those that start there, the search
// going on after it. A token with single_word is only taken when no word
// character (\w) touches it; lstrip and rstrip take the white space before
// and after it into the token (so the text around loses it).

#include <QString>

#include <vector>

namespace attnlab {

class AddedTokenMatcher {
public:
    struct Token {
        QString content;  // as matched (normalised for the normalised tokens)
        int id = 0;
        bool singleWord = false;
        bool lstrip = false;
        bool rstrip = false;
    };
    // A stretch of the text: a token's id, or -1 for text between tokens.
    struct Part {
        int id = -1;
        QString text;
    };

    explicit AddedTokenMatcher(std::vector<Token> tokens = {});
    bool isEmpty() const { return tokens_.empty(); }

    // `text` cut at the tokens, in order; empty text between tokens is left
    // out.
    void split(const QString& text, std::vector<Part>& parts) const;

private:
    std::vector<Token> tokens_;     // longest first
    std::vector<char16_t> firsts_;  // the first code units, sorted, for a quick test
};

}  // namespace attnlab
