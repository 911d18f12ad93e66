// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The model families the app reads, one registration each, by config.json's
// model_type, and the one reader of a model folder that goes through them
// (modelfolder.h). Adding a family: its reader in app/io (a ModelFamily, as
// gpt2folder.h's gpt2Family()) and its DecoderModel in core, then one line
// in modelfamilies.cpp (docs/ARCHITECTURE.md, "Models").

#include "expected.h"
#include "modelfolder.h"

#include <QString>

#include <string_view>
#include <vector>

namespace attnlab {

// Every family registered, in the order messages list them.
const std::vector<ModelFamily>& modelFamilies();
// The family of `modelType`, or null.
const ModelFamily* findModelFamily(std::string_view modelType);
// The model_types registered, for messages: "gpt2, llama, qwen2, qwen3, mistral".
std::string supportedModelTypes();
// Their names, for the views: "GPT-2, Llama, Qwen2, Qwen3, Mistral".
QString supportedFamilyNames();

// FOLDER read by the family its config.json's model_type names. Errors: the
// file readers' one line for config.json (missing, too large, unreadable),
// "config.json: not valid JSON: ...", "config.json: not a JSON object",
// "config.json: no model_type (supported: gpt2, llama, qwen2, qwen3,
// mistral)", "config.json: model_type \"gemma\" is not supported
// (supported: ...)", "config.json: attention_lab_label must be a line of
// text of 1 to 200 characters" (ModelFolder::label; its whitespace runs
// become one space), then the family's own.
attn::Expected<ModelFolder> readModelFolder(const QString& folder);

}  // namespace attnlab
