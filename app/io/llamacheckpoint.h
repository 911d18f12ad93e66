// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A Hugging Face folder of the Llama family (LlamaForCausalLM,
// Qwen2ForCausalLM, Qwen3ForCausalLM, MistralForCausalLM:
// save_pretrained's config.json and model.safetensors, or shards named by
// model.safetensors.index.json) as attn::LlamaWeights. The tokenizer's files
// are not read here.
//
// config.json: model_type llama, qwen2, qwen3 or mistral; architectures, if
// given, a list whose names end in "ForCausalLM". Required whole numbers:
// hidden_size, num_hidden_layers, num_attention_heads, intermediate_size,
// vocab_size, max_position_embeddings. Optional, with transformers'
// defaults: num_key_value_heads (num_attention_heads; must divide it),
// head_dim (hidden_size / num_attention_heads; must be even), rms_norm_eps
// (1e-6), rope_theta (10000), rope_scaling (null; "llama3" with factor,
// low_freq_factor, high_freq_factor and original_max_position_embeddings,
// or "default"; any other type is refused by name), tie_word_embeddings
// (false), attention_bias (false: Llama's and Qwen3's q, k, v and o
// biases), sliding_window (Mistral; null for none), hidden_act (silu, the
// only one read). Qwen2 always has q, k and v biases; Qwen3 has q_norm and
// k_norm. Refused by name: use_sliding_window true (Qwen2, Qwen3),
// mlp_bias true (Llama), another hidden_act.
//
// Tensors (model.embed_tokens.weight, model.layers.N.input_layernorm.weight,
// .self_attn.{q,k,v,o}_proj.weight (and .bias), .self_attn.{q,k}_norm.weight,
// .post_attention_layernorm.weight, .mlp.{gate,up,down}_proj.weight,
// model.norm.weight, lm_head.weight unless tied): each checked against the
// config, a missing one named, one that belongs to no model of this config
// refused (rotary_emb.inv_freq buffers are skipped). F32 stays in the
// file's bytes; F16 and BF16 are converted to float32 exactly, except a
// large BF16 checkpoint's matrices, which stay in the bytes read
// (Bf16Matrices).

#include "expected.h"
#include "llama_weights.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <string>
#include <string_view>

namespace attnlab {

class SafetensorsShards;

struct LlamaCheckpoint {
    attn::LlamaWeights weights;
    std::string dtype;  // "F32", "BF16", several joined by "+"
};

// Bounds of the configuration (Llama 3.1 405B: 126 layers, 128 / 8 heads,
// width 16384, MLP 53248; Qwen's vocabulary 151936).
constexpr int kMaxLlamaLayers = 512;
constexpr int kMaxLlamaHeads = 512;
constexpr int kMaxLlamaWidth = 65536;
constexpr int kMaxLlamaIntermediate = 262144;
constexpr int kMaxLlamaHeadDim = 1024;
constexpr int kMaxLlamaVocab = 1 << 21;
constexpr int kMaxLlamaPositions = 1 << 24;

// The model_types read.
bool isLlamaModelType(std::string_view modelType);

// config.json's bytes; `name` starts every message.
attn::Expected<attn::LlamaConfig> parseLlamaConfig(const QByteArray& json, std::string_view name);

// How a BF16 checkpoint's matrices are held: converted to float32, or
// left as the file's bfloat16 (FloatTensor::bf16; the products convert each
// entry as they read it, so the numbers are the same bit for bit). Auto
// leaves them from kBf16InPlaceBytes of tensors on: Qwen2.5-0.5B's 988 MB
// would be 1.98 GB of float32, which took most of the 6 s it took to open;
// a small checkpoint is converted (nothing to gain).
enum class Bf16Matrices { Auto, Converted, InPlace };
inline constexpr std::uint64_t kBf16InPlaceBytes = std::uint64_t(64) << 20;

// The tensors of `shards` as the weights of `config`.
attn::Expected<LlamaCheckpoint> llamaFromShards(const attn::LlamaConfig& config, SafetensorsShards& shards,
                                                Bf16Matrices bf16 = Bf16Matrices::Auto);

// FOLDER's checkpoint, config.json's bytes given.
attn::Expected<LlamaCheckpoint> readLlamaCheckpoint(const QString& folder, const QByteArray& config);

}  // namespace attnlab
