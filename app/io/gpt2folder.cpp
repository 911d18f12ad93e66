// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2folder.h"

#include <string>
#include <utility>

namespace attnlab {

attn::Expected<Gpt2Model> readGpt2Model(const QString& folder)
{
    attn::Expected<Gpt2Checkpoint> checkpoint = readGpt2Checkpoint(folder);
    if (!checkpoint)
        return checkpoint.error();
    attn::Expected<Gpt2Tokenizer> tokenizer = Gpt2Tokenizer::fromFolder(folder);
    if (!tokenizer)
        return tokenizer.error();
    const int configVocab = checkpoint->weights.config.vocabSize;
    if (tokenizer->vocabSize() != configVocab)
        return attn::Error{"vocab.json has " + std::to_string(tokenizer->vocabSize())
                           + " tokens but config.json's vocab_size is " + std::to_string(configVocab)};
    Gpt2Model model;
    model.checkpoint = std::move(checkpoint).value();
    model.tokenizer = std::move(tokenizer).value();
    model.folder = folder;
    return model;
}

}  // namespace attnlab
