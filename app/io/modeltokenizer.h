// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A model's tokenizer: text to the ids the model reads (the core takes and
// gives ids only, decoder_model.h) and the token strings the views show for
// them. Every family has one (GPT-2's byte-level BPE: gpt2tokenizer.h); the
// model session, the command line, the lesson and the exports use this
// interface, never a family's class. Implementations are immutable once
// made and safe to use from several threads at once.

#include "expected.h"

#include <QByteArray>
#include <QString>

#include <vector>

namespace attnlab {

struct ModelToken {
    int id = 0;
    QString piece;    // as the tokenizer's files spell it: "Ġcinema", "ðŁ"
    QString display;  // its bytes as text: "␣cinema", "<0xF0><0x9F>" (part of a character)
};

class ModelTokenizer {
public:
    virtual ~ModelTokenizer() = default;

    // What messages call it: "GPT-2 byte-level BPE".
    virtual QString name() const = 0;
    // Ids are 0..vocabSize()-1.
    virtual int vocabSize() const = 0;

    // The ids of `text`, and the same with each token's piece and display
    // text (encode(text)[i].id == encodeIds(text)[i]).
    virtual std::vector<int> encodeIds(const QString& text) const = 0;
    virtual std::vector<ModelToken> encode(const QString& text) const;

    // The token shown for `id`, and the bytes it stands for. An id outside
    // 0..vocabSize()-1 (a model's vocab_size may be larger than its
    // tokenizer's, Qwen2.5's 151936 against 151665 tokens, and its logits
    // rank every id) is outsideVocabulary(id) with no bytes.
    virtual ModelToken token(int id) const = 0;
    virtual QByteArray tokenBytes(int id) const = 0;

    // The bytes the ids stand for, and those bytes as UTF-8 text
    // (QString::fromUtf8: each byte of a character cut short is U+FFFD); an
    // id outside the vocabulary is an error naming it.
    virtual attn::Expected<QByteArray> decodeBytes(const std::vector<int>& ids) const;
    attn::Expected<QString> decode(const std::vector<int>& ids) const;

    // "<id 151700>": no piece, the id shown.
    static ModelToken outsideVocabulary(int id);

protected:
    ModelTokenizer() = default;
    ModelTokenizer(const ModelTokenizer&) = default;
    ModelTokenizer& operator=(const ModelTokenizer&) = default;
    ModelTokenizer(ModelTokenizer&&) = default;
    ModelTokenizer& operator=(ModelTokenizer&&) = default;
};

}  // namespace attnlab
