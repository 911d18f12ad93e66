// SPDX-License-Identifier: GPL-3.0-or-later
#include "llamafolder.h"

#include "llama.h"
#include "llamacheckpoint.h"
#include "tokenizerjson.h"

#include <QDir>
#include <QFileInfo>

#include <future>
#include <string>
#include <utility>

namespace attnlab {

namespace {

attn::Expected<ModelFolder> readWithTokenizerJson(const QString& folder, const QByteArray& config)
{
    return readLlamaFolder(folder, config, &readTokenizerJson);
}

// The folder's files, config.json first: the loading message lists them and
// folderIdentity digests them (and, through the index, each shard it names).
const std::vector<const char*>& llamaFiles()
{
    static const std::vector<const char*> files{"config.json", "tokenizer.json", "tokenizer_config.json",
                                                "model.safetensors", "model.safetensors.index.json"};
    return files;
}

ModelFamily family(const char* modelType, const char* name)
{
    ModelFamily f;
    f.modelType = modelType;
    f.name = name;
    f.files = llamaFiles();
    f.read = &readWithTokenizerJson;
    return f;
}

}  // namespace

std::vector<ModelFamily> llamaFamilies()
{
    return {family("llama", "Llama"), family("qwen2", "Qwen2"), family("qwen3", "Qwen3"),
            family("mistral", "Mistral")};
}

attn::Expected<ModelFolder> readLlamaFolder(const QString& folder, const QByteArray& config,
                                            FolderTokenizerReader readTokenizer)
{
    // The tokenizer is read on a thread of its own while the weights are
    // read (reading the checkpoint's bytes leaves a core free); the messages
    // keep their order: the checkpoint's first.
    const QString tokenizerPath = QDir(folder).filePath(QStringLiteral("tokenizer.json"));
    const bool hasTokenizer = QFileInfo::exists(tokenizerPath) || QFileInfo(tokenizerPath).isSymLink();
    std::future<attn::Expected<std::shared_ptr<const ModelTokenizer>>> reading;
    if (hasTokenizer)
        reading = std::async(std::launch::async | std::launch::deferred, readTokenizer, folder);
    attn::Expected<LlamaCheckpoint> checkpoint = readLlamaCheckpoint(folder, config);
    if (!checkpoint)
        return checkpoint.error();  // the future's destructor waits for the tokenizer
    if (!hasTokenizer)
        return attn::Error{"tokenizer.json is missing (the model's tokenizer, in Hugging Face's format)"};
    attn::Expected<std::shared_ptr<const ModelTokenizer>> tokenizer = reading.get();
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
