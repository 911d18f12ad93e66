// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// GPT-2's family (modelfamilies.h, model_type "gpt2"): a Hugging Face GPT-2
// folder read whole, the weights (gpt2checkpoint.h: config.json and
// model.safetensors) and the tokenizer (gpt2tokenizer.h: vocab.json and
// merges.txt), checked against each other, as a ModelFolder whose decoder
// is an attn::Gpt2DecoderModel and whose tokenizer a Gpt2Tokenizer.

#include "expected.h"
#include "gpt2_weights.h"
#include "modelfolder.h"

#include <QByteArray>
#include <QString>

namespace attnlab {

// The registration: model_type "gpt2", "GPT-2", its four files and
// readGpt2Folder.
ModelFamily gpt2Family();

// FOLDER's four files, config.json's bytes given (`config`). Errors are
// the readers' one-line messages (they name the file, the tensor or line,
// and the problem), or "vocab.json has N tokens but config.json's
// vocab_size is M" when the two halves disagree. The weights are read
// first, so a folder with a broken checkpoint is told about that before
// its tokenizer files are parsed.
attn::Expected<ModelFolder> readGpt2Folder(const QString& folder, const QByteArray& config);

// The identity of a GPT-2 FOLDER's files as they are now
// (ModelFolder::identity): config.json, vocab.json and merges.txt whole,
// model.safetensors' header, size and modification time.
QString gpt2FolderIdentity(const QString& folder);

// The GPT-2 weights of a model folder GPT-2's family read, else null (the
// pieces only GPT-2's own views use, such as a head's Conv1D columns).
const attn::Gpt2Weights* gpt2Weights(const ModelFolder& model);

}  // namespace attnlab
