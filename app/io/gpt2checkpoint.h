// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A Hugging Face GPT-2 folder (GPT2LMHeadModel.save_pretrained: config.json
// and model.safetensors) as attn::Gpt2Weights. vocab.json and merges.txt are
// the tokenizer's and not read here.
//
// config.json: model_type must be "gpt2" (any other is refused with the list
// of supported types); n_layer, n_head, n_embd, n_positions and vocab_size
// are required whole numbers within the bounds below, n_embd a multiple of
// n_head; layer_norm_epsilon (default 1e-5) a number in (0, 1);
// activation_function (default gelu_new) must be gelu_new. Options that
// would change the computation away from GPT-2's are refused when set:
// n_inner other than 4 n_embd, scale_attn_weights false,
// scale_attn_by_inverse_layer_idx true. Defaults are transformers'
// GPT2Config's.
//
// model.safetensors: names with or without the "transformer." prefix
// (lm_head.weight never has it); the causal-mask buffers h.N.attn.bias and
// h.N.attn.masked_bias are skipped whatever their dtype; lm_head.weight is
// used if present, else the head is tied to wte. Every tensor's shape is
// checked against the config, a missing tensor is named, and a tensor that
// belongs to no GPT-2 of that config (a layer beyond n_layer, a name of
// another model) is refused, so a config that does not match its tensors
// never loads. F32 tensors stay in the file's bytes, read into memory
// (SafetensorsFile::open: not mapped, so a file changed on disk while the
// model is open cannot fault); F16 and BF16 are converted to float32
// (SafetensorsFile::floats), and the weights keep the file's bytes only
// while some tensor points into them.

#include "expected.h"
#include "gpt2_weights.h"

#include <QByteArray>
#include <QString>

#include <string>
#include <string_view>

namespace attnlab {

class SafetensorsFile;

struct Gpt2Checkpoint {
    attn::Gpt2Weights weights;
    std::string dtype;  // as stored: "F32", "F16" or "BF16"; several joined by "+" ("F16+F32")
};

// Bounds of the configuration (GPT-2 XL is 48 layers of 25 heads, E 1600,
// 1024 positions, 50257 tokens).
constexpr int kMaxGpt2Layers = 256;
constexpr int kMaxGpt2Heads = 256;
constexpr int kMaxGpt2Embd = 16384;
constexpr int kMaxGpt2Positions = 65536;
constexpr int kMaxGpt2Vocab = 1 << 20;

// config.json's bytes; `name` starts every message.
attn::Expected<attn::Gpt2Config> parseGpt2Config(const QByteArray& json, std::string_view name);

// The tensors of `file` as the weights of `config`; the weights keep the
// file's storage alive.
attn::Expected<Gpt2Checkpoint> gpt2FromSafetensors(const attn::Gpt2Config& config,
                                                   const SafetensorsFile& file);

// FOLDER/config.json and FOLDER/model.safetensors (a folder with only
// PyTorch's pickled pytorch_model.bin is told that it is not read).
attn::Expected<Gpt2Checkpoint> readGpt2Checkpoint(const QString& folder);
// The same with config.json's bytes already read (`config`).
attn::Expected<Gpt2Checkpoint> readGpt2Checkpoint(const QString& folder, const QByteArray& config);

}  // namespace attnlab
