// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A Hugging Face model folder read whole, whatever its family: the pass
// (the core's attn::DecoderModel) and the tokenizer (ModelTokenizer),
// checked against each other, with what the views say of it. The command
// line's --model DIR and the window's File > Open model read a folder
// through readModelFolder (modelfamilies.h), the one list of the families
// read, so both refuse the same folders with the same messages.
//
// A family (GPT-2: gpt2folder.h) gives a ModelFamily: config.json's
// model_type, its name, the files that identify a folder and the reader
// of a folder whose config.json names the family.

#include "decoder_model.h"
#include "expected.h"
#include "modeltokenizer.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <string>
#include <vector>

namespace attnlab {

struct ModelFolder {
    QString family;      // config.json's model_type: "gpt2"
    QString familyName;  // as the views name it: "GPT-2"
    std::string dtype;   // as stored: "F32", "F16" or "BF16"; several joined by "+" ("F16+F32")
    // The pass over the folder's weights (it keeps their storage alive).
    std::shared_ptr<const attn::DecoderModel> decoder;
    std::shared_ptr<const ModelTokenizer> tokenizer;
    QString folder;  // as given
    // Which model this is, whatever the folder is called: its canonical path
    // and a digest of its files (folderIdentity). Two folders of one name
    // differ; a checkpoint copied over the old one differs from it.
    QString identity;
    // config.json's optional "attention_lab_label": one line saying what the
    // model is ("a 2-layer demo model set by hand ..., not a language
    // model"), shown beside its name in the Model tab and under the title of
    // every picture of it; empty for other folders.
    QString label;

    const attn::DecoderConfig& config() const { return decoder->config(); }
};

struct ModelFamily {
    const char* modelType = "";  // config.json's model_type: "gpt2"
    const char* name = "";       // "GPT-2"
    // The folder's files, config.json first: the loading message lists
    // them and folderIdentity digests them.
    std::vector<const char*> files;
    // FOLDER, whose config.json (`config`, its bytes, already read) names
    // this family: the weights, the tokenizer and their checks. The
    // returned model's family, familyName and identity are filled in by
    // readModelFolder. Errors are one line naming the file, the key or the
    // tensor.
    attn::Expected<ModelFolder> (*read)(const QString& folder, const QByteArray& config) = nullptr;
};

// The identity of FOLDER's `files` as they are now (ModelFolder::identity):
// its canonical path, then a digest of each file whole, except a
// .safetensors file's, of which its first MiB (which holds its header), its
// size and its modification time count. A model.safetensors.index.json
// among them adds each shard its weight_map names, as a .safetensors file.
QString folderIdentity(const QString& folder, const std::vector<const char*>& files);

}  // namespace attnlab
