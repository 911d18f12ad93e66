// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A Hugging Face tokenizer.json (the `tokenizers` library's format) of a
// byte-level BPE, as Llama 3, Qwen2/2.5/3, SmolLM2 and GPT-2 folders carry
// it, with tokenizer_config.json beside it when there is one.
//
// Encoding, as Hugging Face's tokenizers does it (without special tokens: no
// BOS is put in front, see bosTokenId):
//  1. the added tokens with normalized false are found in the raw text
//     (tokenizeraddedtokens.h); each is its id;
//  2. each stretch between them goes through the normalizer (NFC or none),
//     then the added tokens with normalized true are found in it;
//  3. each stretch left is cut by the pre-tokenizer (a Split regex, or
//     ByteLevel's GPT-2 pattern; tokenizerpretokenizer.h) into pieces;
//  4. each piece, as bytes, goes through the BPE merges (mergeBytePairs,
//     bytelevelbpe.h); with ignore_merges, a piece that is itself in the
//     vocabulary is that one token.
//
// Ids: model.vocab's must be 0..n-1, each once; an added token is either a
// vocabulary token with the same id or a new id; all ids together must run
// 0..N-1 without gaps, and vocabSize() is N (Qwen3: 151,643 + 26 = 151,669;
// the model's embedding may have more rows). A token's bytes are its
// characters read through GPT-2's byte table, or its UTF-8 when one of them
// is not a byte character (as Hugging Face's ByteLevel decoder does).
//
// Refused, with one line naming the file and the key: a file that is not a
// JSON object, no "model", a model type other than BPE (WordPiece,
// Unigram, WordLevel), byte_fallback (Llama 2, Gemma), dropout, a subword
// prefix or suffix, a Metaspace or other unsupported pre-tokenizer, an
// unknown normalizer, a merge naming a token not in the vocabulary (or
// whose two tokens joined are not in it), ids out of order, a byte with no
// token, a file larger than kMaxTokenizerFileBytes.

#include "expected.h"
#include "modeltokenizer.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <string_view>

namespace attnlab {

class TokenizerJson final : public ModelTokenizer {
public:
    // The two files' bytes; `configJson` empty when there is no
    // tokenizer_config.json. Messages start with "tokenizer.json: " or
    // "tokenizer_config.json: ".
    static attn::Expected<std::shared_ptr<const TokenizerJson>> fromData(std::string_view tokenizerJson,
                                                                         std::string_view configJson = {});

    QString name() const override;  // "byte-level BPE (tokenizer.json)"
    int vocabSize() const override;
    int modelVocabSize() const;  // model.vocab's tokens
    int mergeCount() const;
    int addedTokenCount() const;
    // The id put before a text when special tokens are added, or -1:
    // tokenizer_config.json's bos_token when its add_bos_token is true; else,
    // without add_bos_token, the first special token of the post_processor's
    // TemplateProcessing (Llama 3's <|begin_of_text|>). encodeIds never adds it.
    int bosTokenId() const;

    std::vector<int> encodeIds(const QString& text) const override;

    ModelToken token(int id) const override;
    QByteArray tokenBytes(int id) const override;

private:
    struct Data;
    std::shared_ptr<const Data> data_;

    TokenizerJson() = default;
};

// FOLDER/tokenizer.json and FOLDER/tokenizer_config.json (when present).
attn::Expected<std::shared_ptr<const ModelTokenizer>> readTokenizerJson(const QString& folder);

}  // namespace attnlab
