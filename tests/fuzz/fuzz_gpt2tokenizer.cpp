// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: GPT-2's BPE. The first byte picks the mode.
//   even: the rest is text, encoded with GPT-2's real vocabulary
//         (tests/data/gpt2/tiny-gpt2, read once). Every id is in the
//         vocabulary, encoding twice (the second time from the cache) gives
//         the same ids, and the ids decode to the text's bytes (to the input
//         itself when it is valid UTF-8), each token with a display text.
//   odd:  the rest is a vocab.json, a NUL byte, a merges.txt; "@BYTES@" in
//         the vocabulary stands for the 256 byte tokens with ids 0..255, so
//         that small inputs reach the merges. A refusal has a message; an
//         accepted pair of files encodes its own bytes and decodes them back.

#include "gpt2tokenizer.h"

#include "fuzztargets.h"

#include <QString>

#include <cstdint>
#include <cstdlib>

namespace {

const attnlab::Gpt2Tokenizer& realTokenizer()
{
    static const attnlab::Gpt2Tokenizer tokenizer = [] {
        auto t = attnlab::Gpt2Tokenizer::fromFolder(
            QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/gpt2/tiny-gpt2"));
        if (!t.ok())
            std::abort();
        return std::move(t).value();
    }();
    return tokenizer;
}

bool validUtf8(const QByteArray& bytes)
{
    return QString::fromUtf8(bytes).toUtf8() == bytes;
}

void checkEncoding(const attnlab::Gpt2Tokenizer& tokenizer, const QByteArray& text)
{
    const std::vector<int> ids = tokenizer.encodeUtf8(text);
    if (tokenizer.encodeUtf8(text) != ids)
        std::abort();
    for (const int id : ids) {
        if (id < 0 || id >= tokenizer.vocabSize())
            std::abort();
        if (tokenizer.token(id).display.isEmpty())
            std::abort();
    }
    const auto bytes = tokenizer.decodeBytes(ids);
    if (!bytes.ok() || *bytes != QString::fromUtf8(text).toUtf8())
        std::abort();
    if (validUtf8(text) && *bytes != text)
        std::abort();
}

// The 256 byte tokens as JSON members, ids 0..255 (bytes_to_unicode).
QByteArray byteTokens()
{
    QByteArray json;
    int next = 0x100;
    for (int b = 0; b < 256; ++b) {
        const bool own = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        QString c(QChar(own ? b : next));
        if (!own)
            ++next;
        if (c == QLatin1String("\"") || c == QLatin1String("\\"))
            c.prepend(QLatin1Char('\\'));
        if (b > 0)
            json += ", ";
        json += "\"" + c.toUtf8() + "\": " + QByteArray::number(b);
    }
    return json;
}

}  // namespace

int fuzzGpt2Tokenizer(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    const QByteArray rest(reinterpret_cast<const char*>(data) + 1, qsizetype(size - 1));
    if ((data[0] & 1) == 0) {
        checkEncoding(realTokenizer(), rest);
        return 0;
    }
    const qsizetype nul = rest.indexOf('\0');
    QByteArray vocab = nul < 0 ? rest : rest.left(nul);
    const QByteArray merges = nul < 0 ? QByteArray() : rest.mid(nul + 1);
    static const QByteArray bytes = byteTokens();
    vocab.replace("@BYTES@", bytes);
    const auto t =
        attnlab::Gpt2Tokenizer::fromData(std::string_view(vocab.constData(), std::size_t(vocab.size())),
                                         std::string_view(merges.constData(), std::size_t(merges.size())));
    if (!t.ok()) {
        if (t.error().message.empty() || t.error().message.find('\n') != std::string::npos)
            std::abort();
        return 0;
    }
    if (t->vocabSize() < 256)
        std::abort();
    checkEncoding(*t, merges);
    checkEncoding(*t, vocab.left(256));
    return 0;
}

#ifndef ATTNLAB_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return fuzzGpt2Tokenizer(data, size);
}
#endif
