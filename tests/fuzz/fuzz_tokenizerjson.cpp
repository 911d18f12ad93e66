// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: Hugging Face tokenizer.json. The first byte picks the
// mode.
//   even: the rest is text, encoded with GPT-2's tokenizer.json
//         (tests/data/llama/tiny-llama, read once). Every id is in the
//         vocabulary, each token has a display text, the ids decode to the
//         text's bytes (as U+FFFD where the text is not valid UTF-8), and
//         they equal Gpt2Tokenizer's (vocab.json and merges.txt) unless the
//         text holds the added token "<|endoftext|>".
//   odd:  the rest is a tokenizer.json, a NUL byte, a text; "@BYTES@" in
//         the file stands for the 256 byte tokens with ids 0..255, so that
//         small inputs reach the merges, the pre-tokenizer and the added
//         tokens. A refusal is one line; an accepted file encodes the text
//         twice alike, into ids of its vocabulary that decode.

#include "gpt2tokenizer.h"
#include "tokenizerjson.h"

#include "fuzztargets.h"

#include <QFile>
#include <QString>

#include <cstdint>
#include <cstdlib>

namespace {

const attnlab::TokenizerJson& jsonTokenizer()
{
    static const std::shared_ptr<const attnlab::TokenizerJson> tokenizer = [] {
        QFile f(QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/llama/tiny-llama/tokenizer.json"));
        if (!f.open(QIODevice::ReadOnly))
            std::abort();
        const QByteArray bytes = f.readAll();
        auto t =
            attnlab::TokenizerJson::fromData(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        if (!t.ok())
            std::abort();
        return *t;
    }();
    return *tokenizer;
}

const attnlab::Gpt2Tokenizer& gpt2Tokenizer()
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

std::vector<int> checkEncoding(const attnlab::TokenizerJson& tokenizer, const QString& text)
{
    const std::vector<int> ids = tokenizer.encodeIds(text);
    if (tokenizer.encodeIds(text) != ids)
        std::abort();
    for (const int id : ids) {
        if (id < 0 || id >= tokenizer.vocabSize())
            std::abort();
        if (tokenizer.token(id).display.isEmpty())
            std::abort();
    }
    if (!tokenizer.decodeBytes(ids).ok())
        std::abort();
    return ids;
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

int fuzzTokenizerJson(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    const QByteArray rest(reinterpret_cast<const char*>(data) + 1, qsizetype(size - 1));
    if ((data[0] & 1) == 0) {
        const QString text = QString::fromUtf8(rest);
        const std::vector<int> ids = checkEncoding(jsonTokenizer(), text);
        if (jsonTokenizer().decodeBytes(ids).value() != text.toUtf8())
            std::abort();
        if (!text.contains(QStringLiteral("<|endoftext|>")) && gpt2Tokenizer().encodeIds(text) != ids)
            std::abort();
        return 0;
    }
    const qsizetype nul = rest.indexOf('\0');
    QByteArray file = nul < 0 ? rest : rest.left(nul);
    const QByteArray text = nul < 0 ? QByteArray() : rest.mid(nul + 1);
    static const QByteArray bytes = byteTokens();
    file.replace("@BYTES@", bytes);
    const auto t =
        attnlab::TokenizerJson::fromData(std::string_view(file.constData(), std::size_t(file.size())));
    if (!t.ok()) {
        if (t.error().message.empty() || t.error().message.find('\n') != std::string::npos)
            std::abort();
        return 0;
    }
    if ((*t)->vocabSize() < 256)
        std::abort();
    checkEncoding(**t, QString::fromUtf8(text));
    checkEncoding(**t, QString::fromUtf8(file.left(256)));
    return 0;
}

#ifndef ATTNLAB_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return fuzzTokenizerJson(data, size);
}
#endif
