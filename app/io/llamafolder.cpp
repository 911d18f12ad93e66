// SPDX-License-Identifier: GPL-3.0-or-later
#include "llamafolder.h"

#include "llama.h"
#include "llamacheckpoint.h"

#include <QDir>
#include <QFileInfo>

#include <string>
#include <utility>

namespace attnlab {

attn::Expected<ModelFolder> readLlamaFolder(const QString& folder, const QByteArray& config,
                                            FolderTokenizerReader readTokenizer)
{
    attn::Expected<LlamaCheckpoint> checkpoint = readLlamaCheckpoint(folder, config);
    if (!checkpoint)
        return checkpoint.error();
    const QString tokenizerPath = QDir(folder).filePath(QStringLiteral("tokenizer.json"));
    if (!QFileInfo::exists(tokenizerPath) && !QFileInfo(tokenizerPath).isSymLink())
        return attn::Error{"tokenizer.json is missing (the model's tokenizer, in Hugging Face's format)"};
    attn::Expected<std::shared_ptr<const ModelTokenizer>> tokenizer = readTokenizer(folder);
    if (!tokenizer)
        return tokenizer.error();
    const int configVocab = checkpoint->weights.config.vocabSize;
    if ((*tokenizer)->vocabSize() > configVocab)
        return attn::Error{"tokenizer.json has " + std::to_string((*tokenizer)->vocabSize())
                           + " tokens but config.json's vocab_size is only " + std::to_string(configVocab)};
    attn::Expected<std::unique_ptr<attn::LlamaDecoderModel>> decoder =
        attn::LlamaDecoderModel::create(std::move(checkpoint->weights));
    if (!decoder)
        return decoder.error();
    ModelFolder model;
    model.decoder = std::move(decoder).value();
    model.tokenizer = std::move(tokenizer).value();
    model.dtype = std::move(checkpoint->dtype);
    return model;
}

}  // namespace attnlab
