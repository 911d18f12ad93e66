// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// GPT-2's byte-level BPE (OpenAI's encoder.py, which Hugging Face's GPT2Tokenizer
// repeats), read from a checkpoint folder's vocab.json and merges.txt.
//
// Encoding: the text's UTF-8 bytes are split by the pre-tokenizer pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (\s is Unicode's White_Space, as in Python's `regex` module; the match is
// case-sensitive, so "I'LL" is "I", "'", "LL"); each piece's bytes become
// characters through bytes_to_unicode (printable Latin-1 bytes stand for
// themselves, the other 68 for U+0100.., so a space is "Ġ" and "\n" is "Ċ");
// then the adjacent pair with the lowest merge rank is merged, every
// occurrence left to right, until no pair has a rank. That last step runs
// with a heap over the pairs (mergeBytePairs, bytelevelbpe.h), O(m log m) for a piece of m bytes, so a
// 50,000-character word costs milliseconds, not minutes; results are cached
// per piece (a bounded cache shared by copies, safe across threads).
//
// Reading is strict: vocab.json must be a JSON object of token -> integer id,
// the ids exactly 0..n-1 each once, every token made of byte characters, all
// 256 single-byte tokens present; merges.txt a "#version: ..." line, then
// one "left right" pair of vocabulary tokens per line, by rank, whose
// concatenation is in the vocabulary too, no pair twice. Anything else is a
// one-line message naming the file, the line and the problem.

#include "expected.h"
#include "modeltokenizer.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <string_view>
#include <vector>

namespace attnlab {

// The first ModelTokenizer: a token's piece is as vocab.json stores it.
class Gpt2Tokenizer final : public ModelTokenizer {
public:
    // vocab.json and merges.txt in `folder`.
    static attn::Expected<Gpt2Tokenizer> fromFolder(const QString& folder);
    // The two files' bytes; messages name them "vocab.json" and "merges.txt".
    static attn::Expected<Gpt2Tokenizer> fromData(std::string_view vocabJson, std::string_view mergesText);

    QString name() const override;  // "GPT-2 byte-level BPE"
    int vocabSize() const override;
    int mergeCount() const;

    std::vector<int> encodeIds(const QString& text) const override;
    // Arbitrary bytes: invalid UTF-8 is read as U+FFFD first (QString::fromUtf8).
    std::vector<int> encodeUtf8(const QByteArray& utf8) const;

    // `id` in 0..vocabSize()-1.
    ModelToken token(int id) const override;
    QByteArray tokenBytes(int id) const override;
    attn::Expected<QByteArray> decodeBytes(const std::vector<int>& ids) const override;

    // Bytes as a label: "␣" for a space, "↵" for "\n", "⇥" for a tab, and
    // "<0xE2>" for each byte that is not part of a whole, printable UTF-8
    // character (a piece of a character, a control byte).
    static QString displayText(const QByteArray& bytes);

private:
    struct Data;
    struct Cache;
    std::shared_ptr<const Data> data_;
    std::shared_ptr<Cache> cache_;

    void encodePiece(const QByteArray& piece, std::vector<int>& ids) const;
};

}  // namespace attnlab
