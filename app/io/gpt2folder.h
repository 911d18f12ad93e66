// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A Hugging Face GPT-2 folder read whole: the weights (gpt2checkpoint.h:
// config.json and model.safetensors) and the tokenizer (gpt2tokenizer.h:
// vocab.json and merges.txt), checked against each other. The command
// line's --model DIR and the window's File > Open model read a folder
// through this one function, so both refuse the same folders with the same
// messages.

#include "decoder_model.h"
#include "expected.h"
#include "gpt2checkpoint.h"
#include "modeltokenizer.h"

#include <QString>

#include <memory>

namespace attnlab {

struct Gpt2Model {
    Gpt2Checkpoint checkpoint;  // weights, config and stored dtype
    // The pass over those weights, through the models' one interface
    // (attn::DecoderModel; GPT-2's is attn::Gpt2DecoderModel). It shares
    // the checkpoint's storage.
    std::shared_ptr<const attn::DecoderModel> decoder;
    std::shared_ptr<const ModelTokenizer> tokenizer;  // a Gpt2Tokenizer
    QString folder;                                   // as given
    // Which model this is, whatever the folder is called: its canonical path
    // and a digest of its files (config.json, vocab.json and merges.txt
    // whole; model.safetensors' first MiB, which holds its header, with its
    // size and modification time). Two folders of one name differ; a
    // checkpoint copied over the old one differs from it.
    QString identity;
};

// The identity of FOLDER's files as they are now (Gpt2Model::identity).
QString gpt2FolderIdentity(const QString& folder);

// FOLDER's four files. Errors are the readers' one-line messages (they
// name the file, the tensor or line, and the problem), or "vocab.json has N
// tokens but config.json's vocab_size is M" when the two halves disagree.
// The weights are read first, so a folder with a broken checkpoint is told
// about that before its tokenizer files are parsed.
attn::Expected<Gpt2Model> readGpt2Model(const QString& folder);

}  // namespace attnlab
