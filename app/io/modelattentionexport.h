// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The export of one model's run, whatever its family (attention-lab --model
// DIR --sentence TEXT --export-dir OUT --format json): model_attention.json,
// issue 17's contract, an object with
//   model        model_type (config.json's: "gpt2"), n_layer, n_head,
//                n_embd, n_positions, vocab_size (DecoderConfig's layers,
//                heads, width, maxPositions, vocabSize, under GPT-2's
//                names), dtype (as stored: "F32", "F16", "BF16", or
//                several joined by "+")
//   tokens       each token's bytes as text (UTF-8; a byte of a character
//                cut short is U+FFFD), one string per token
//   pieces       the same tokens as the tokenizer spells them ("Ġcinema")
//   token_ids    the ids
//   scale        mode ("sqrt-dk", "none", "custom" or "per-head") and
//                divisor (the one applied to every head, null when the
//                heads differ)
//   mask         the mask every head attended with: "causal", "sliding:W"
//                (the model's own: model.sliding_window; or --mask's
//                what-if) or "sink:S,window:W"
//   temperature  the next-token softmax's: probabilities =
//                softmax(logits / temperature)
//   layers       n_layer objects with heads: n_head objects with kv_head,
//                divisor, score_variance, scaled_score_variance,
//                mean_max_weight, mean_entropy (score_range.h), scores (raw q_i . k_j, n x n, null where the
//                mask hides key j from query i: above the diagonal, and before the window) and weights (n x
//                n, 0 there)
//   next_token   the most likely next tokens after the last position,
//                largest logit first: id, token (its text as in tokens),
//                piece, logit, probability (over the whole vocabulary)
// and, from the head lab's options (headlabexport.h), next_token_intact,
// ablated and ablation (--ablate), probe (--probe).
// Numbers are written in their shortest round-trip form (numberformat.h).

#include "decoder_model.h"
#include "modelfolder.h"
#include "stagedwrite.h"

#include <ostream>
#include <string>
#include <vector>

namespace attnlab {

class JsonWriter;
class ModelTokenizer;
struct ModelHeadLab;

inline constexpr char kModelAttentionFileName[] = "model_attention.json";

// The next tokens and temperature written instead of the result's own (the
// window applies a temperature to the last logits without a new pass).
struct ModelNextTokens {
    std::vector<attn::TopToken> top;
    double temperature = 1.0;
};

// `result` must have been run with keepMaps (every head's maps); `scaleMode`
// names how its divisor table was made (see `scale` above); `lab`, if
// given, the head lab's keys.
void writeModelAttentionJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                             const std::string& scaleMode, const ModelNextTokens* next = nullptr,
                             const ModelHeadLab* lab = nullptr);

// The parts other files of a run share (head_scores.json): the `model`
// object; the keys tokens, pieces, token_ids, scale and mask; a list of
// top tokens as next_token writes it.
void writeModelObject(JsonWriter& json, const ModelFolder& model);
void writeModelRunKeys(JsonWriter& json, const ModelFolder& model, const attn::DecoderResult& result,
                       const std::string& scaleMode);
void writeTopTokens(JsonWriter& json, const ModelTokenizer& tokenizer,
                    const std::vector<attn::TopToken>& tops);

// The `scale` mode of a divisor table: "sqrt-dk" (sqrt(head_dim) everywhere),
// "none" (1 everywhere), "custom" (one other divisor everywhere) or "per-head".
std::string divisorScaleMode(const attn::HeadDivisors& divisors, int headDim);

// The largest model_attention.json written unasked: the command line
// refuses a larger one, naming its estimated size, unless given
// --allow-large-export.
inline constexpr double kMaxModelAttentionJsonBytes = 1e9;

// About how many bytes model_attention.json takes for a pass of `tokens`
// tokens through a model of `config`: its scores and weights, n x n for each
// of the n_layer x n_head heads, about 26 bytes a pair of entries (a
// shortest round-trip double, null or 0 above the diagonal, separators),
// within a few percent of the real size from a few dozen tokens on (GPT-2
// small at 1,000 tokens: about 3.8 GB).
double modelAttentionJsonBytes(const attn::DecoderConfig& config, int tokens);

// model_attention.json as an OutputFile; its writer refers to `model`,
// `result` and `lab`, which must outlive it.
OutputFile modelAttentionJsonFile(const ModelFolder& model, const attn::DecoderResult& result,
                                  const std::string& scaleMode, const ModelHeadLab* lab = nullptr);

}  // namespace attnlab
