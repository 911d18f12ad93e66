// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2folder.h"

#include "gpt2.h"
#include "gpt2checkpoint.h"
#include "gpt2tokenizer.h"

#include <memory>
#include <string>
#include <utility>

namespace attnlab {

namespace {

const std::vector<const char*>& gpt2Files()
{
    static const std::vector<const char*> files{"config.json", "vocab.json", "merges.txt",
                                                "model.safetensors"};
    return files;
}

}  // namespace

ModelFamily gpt2Family()
{
    ModelFamily family;
    family.modelType = "gpt2";
    family.name = "GPT-2";
    family.files = gpt2Files();
    family.read = &readGpt2Folder;
    return family;
}

attn::Expected<ModelFolder> readGpt2Folder(const QString& folder, const QByteArray& config)
{
    attn::Expected<Gpt2Checkpoint> checkpoint = readGpt2Checkpoint(folder, config);
    if (!checkpoint)
        return checkpoint.error();
    attn::Expected<Gpt2Tokenizer> tokenizer = Gpt2Tokenizer::fromFolder(folder);
    if (!tokenizer)
        return tokenizer.error();
    const int configVocab = checkpoint->weights.config.vocabSize;
    if (tokenizer->vocabSize() != configVocab)
        return attn::Error{"vocab.json has " + std::to_string(tokenizer->vocabSize())
                           + " tokens but config.json's vocab_size is " + std::to_string(configVocab)};
    attn::Expected<std::unique_ptr<attn::Gpt2DecoderModel>> decoder =
        attn::Gpt2DecoderModel::create(std::move(checkpoint->weights));
    if (!decoder)
        return decoder.error();
    ModelFolder model;
    model.decoder = std::move(decoder).value();
    model.tokenizer = std::make_shared<const Gpt2Tokenizer>(std::move(tokenizer).value());
    model.dtype = std::move(checkpoint->dtype);
    return model;
}

QString gpt2FolderIdentity(const QString& folder)
{
    return folderIdentity(folder, gpt2Files());
}

const attn::Gpt2Weights* gpt2Weights(const ModelFolder& model)
{
    const auto* gpt2 = dynamic_cast<const attn::Gpt2DecoderModel*>(model.decoder.get());
    return gpt2 ? &gpt2->weights() : nullptr;
}

}  // namespace attnlab
