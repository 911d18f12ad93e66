// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Llama family's folders (modelfamilies.h, model_types "llama",
// "qwen2", "qwen3" and "mistral"): the weights (llamacheckpoint.h:
// config.json and model.safetensors or its shards) and the tokenizer
// (tokenizer.json and tokenizer_config.json), checked against each other,
// as a ModelFolder whose decoder is an attn::LlamaDecoderModel.

#include "expected.h"
#include "modelfolder.h"
#include "modeltokenizer.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <vector>

namespace attnlab {

// The registrations, one per model_type: "llama" (Llama), "qwen2" (Qwen2),
// "qwen3" (Qwen3), "mistral" (Mistral), each read by readLlamaFolder.
std::vector<ModelFamily> llamaFamilies();

// Reads a folder's tokenizer: FOLDER's tokenizer.json (and
// tokenizer_config.json).
using FolderTokenizerReader =
    attn::Expected<std::shared_ptr<const ModelTokenizer>> (*)(const QString& folder);

// FOLDER, config.json's bytes given: the weights first (so a broken
// checkpoint is told before the tokenizer is parsed), then
// "tokenizer.json is missing" or the tokenizer's own message, then
// "tokenizer.json has N tokens but config.json's vocab_size is only M" when
// the tokenizer has ids the embedding has no row for (the embedding may have
// more rows than the tokenizer has tokens, as Qwen's do).
attn::Expected<ModelFolder> readLlamaFolder(const QString& folder, const QByteArray& config,
                                            FolderTokenizerReader readTokenizer);

}  // namespace attnlab
