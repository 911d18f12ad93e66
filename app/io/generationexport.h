// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// generation.json (attention-lab --model DIR --sentence TEXT --generate N
// [--sample --temperature T --top-k K --seed S] --export-dir OUT; issue 40),
// an object with
//   model          as model_attention.json's (modelattentionexport.h)
//   prompt_ids     the sentence's token ids; prompt_tokens their text
//   mode           "greedy" or "sample"
//   temperature    T: probabilities = softmax(logits / T)
//   top_k          K with sample (null: the whole vocabulary, or greedy)
//   seed           with sample: the seed (its low 32 bits seed the draws)
//   scale          mode and divisor, as model_attention.json's
//   mask, qk_norm_removed  the what-ifs every step ran with
//   ablated        with --ablate: [[layer, head], ...] (from 0), the heads
//                  every step ran without, and ablation: "zero" or "mean"
//                  (as model_attention.json's); absent otherwise
//   kv_cache       the cache's shape: layers, kv_heads, heads, head_dim,
//                  bytes_per_number (8: the engine's double)
//   steps          one object per generated token, in order: id, token
//                  (its text), probability (softmax(logits / T) of it
//                  over the whole vocabulary), position (its place in the
//                  text, from 0), cache_tokens (the tokens cached when it
//                  was chosen: the prompt and the tokens before it),
//                  cache_bytes (2 x layers x kv_heads x head_dim x
//                  bytes_per_number x cache_tokens) and
//                  cache_bytes_one_kv_per_head (the same with heads for
//                  kv_heads: the cache without grouped-query attention);
//                  with mean ablation, whose every step is a whole pass
//                  over the text (core/generation.h), no cache is kept
//                  and these three are null
//   generated_ids  the steps' ids
//   text           the prompt and the generated tokens decoded together
//                  (UTF-8; a character cut short is U+FFFD)
//   continuation   the generated tokens alone, decoded

#include "decoder_model.h"
#include "generation.h"
#include "modelfolder.h"
#include "stagedwrite.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace attnlab {

inline constexpr char kGenerationFileName[] = "generation.json";

// A generation and what it was run with.
struct GenerationRun {
    attn::Generation generation;
    attn::GenerationOptions options;  // its divisors filled in
    std::string scaleMode;            // "sqrt-dk", "none" or "custom"
};

void writeGenerationJson(std::ostream& out, const ModelFolder& model, const GenerationRun& run);

// generation.json as an OutputFile; its writer refers to both arguments,
// which must outlive it.
OutputFile generationJsonFile(const ModelFolder& model, const GenerationRun& run);

}  // namespace attnlab
