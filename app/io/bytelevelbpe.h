// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The parts every byte-level BPE tokenizer shares (GPT-2's vocab.json and
// merges.txt, gpt2tokenizer.h; Hugging Face's tokenizer.json,
// tokenizerjson.h): the byte characters, the merge loop over one piece, the
// GPT-2 pre-tokenizer pattern and the display text of a token's bytes.

#include <QByteArray>
#include <QHash>
#include <QString>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// The largest tokenizer file read (vocab.json, merges.txt, tokenizer.json).
// GPT-2's vocab.json is 1.0 MB, Qwen3's tokenizer.json 11 MB, Gemma 3's (the
// largest in use) 33 MB; the cap keeps a wrong file from filling memory.
inline constexpr long long kMaxTokenizerFileBytes = 64LL << 20;

// bytes_to_unicode: the bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF are their
// own code points; the other 68, in byte order, become U+0100, U+0101, ...
// (so a space is "Ġ" and "\n" is "Ċ").
const std::array<char16_t, 256>& byteLevelCharacters();
// The byte a character stands for, or -1 when it is not one of the 256.
int byteLevelByte(char16_t c);

// GPT-2's pre-tokenizer pattern, for QRegularExpression:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// with \s as Unicode's White_Space (what Python's `regex` module and
// Oniguruma match; PCRE2's \s without UCP is ASCII only, and with UCP leaves
// out U+0085).
QString gpt2PreTokenizerPattern();
// Unicode's White_Space as the inside of a character class:
// "\t-\r \x{85}\x{A0}...".
QString whiteSpaceClassBody();

struct BpeMerge {
    int rank = 0;
    int id = 0;     // of the merged token
    int where = 0;  // its line or entry in the file, for messages
};

inline std::uint64_t bpePairKey(int left, int right)
{
    return (std::uint64_t(std::uint32_t(left)) << 32) | std::uint32_t(right);
}

// (left id, right id) -> rank and merged id.
using BpeMergeTable = QHash<std::uint64_t, BpeMerge>;

// One pre-tokenized piece (its bytes) through the merges, its ids appended
// to `ids`: the piece starts as one token per byte (byteIds), then the
// adjacent pair with the lowest rank is merged, every occurrence left to
// right, until no pair has a rank (OpenAI's encoder.py; Hugging Face's
// merge loop gives the same tokens). A heap over the pairs makes it
// O(m log m) for m bytes.
void mergeBytePairs(const QByteArray& piece, const std::array<int, 256>& byteIds, const BpeMergeTable& merges,
                    std::vector<int>& ids);

// "0xE2": a byte for a message.
QString byteHexText(int b);

// A token or a line for a message: quoted, at most 40 characters, control
// characters escaped so that the message stays one line.
std::string quoteToken(std::string_view text);

// Bytes as a label: "␣" for a space, "↵" for "\n", "⇥" for a tab, and
// "<0xE2>" for each byte that is not part of a whole, printable UTF-8
// character (a piece of a character, a control byte).
QString byteLevelDisplayText(const QByteArray& bytes);

}  // namespace attnlab
