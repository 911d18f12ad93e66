// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head lab's files (issue 39), for any model family:
//
// head_scores.json (attention-lab --model DIR --head-scores ...), an object
// with
//   model        as model_attention.json's (modelattentionexport.h)
//   tokens, pieces, token_ids, scale
//                as model_attention.json's: the pass the scores are of
//   layers       n_layer objects with heads: n_head objects with
//                previous_token, duplicate_token, induction, first_token
//                (core/head_scores.h defines them; null where no row
//                defines the score), layer and head numbered from 0
//   ranking      per score, every head that has it as [layer, head],
//                largest score first (ties: lower layer, then head)
// and the keys below that the options add.
//
// The keys the head lab adds to model_attention.json and head_scores.json:
//   ablated            [[layer, head], ...] the heads ablated (--ablate),
//                      with ablation: "zero" or "mean"; every number of the
//                      file is then the ablated pass's
//   next_token_intact  model_attention.json only, with ablated: the intact
//                      model's next tokens, as next_token
//   rollout            model_attention.json only (--rollout): attention
//                      rollout, n x n (lens_rollout.h)
//   probe              (--probe repeat:R[:SEED]) kind "repeat", span R, seed,
//                      id_low and id_high (the ids drawn from, id_high
//                      excluded), loss_first and loss_second: the model's
//                      mean next-token loss (natural log, temperature 1) on
//                      the first and the second repeat
//
// logit_lens.json (--logit-lens): model, tokens, pieces, token_ids, scale,
// temperature as model_attention.json's; layers: n_layer objects with
// positions: n objects with top: the 5 most likely next tokens read from
// the residual stream after that layer (id, token, probability under
// softmax(logits / temperature)), largest first; and the keys above.

#include "decoder_model.h"
#include "head_scores.h"
#include "lens_rollout.h"
#include "modelfolder.h"
#include "stagedwrite.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace attnlab {

class JsonWriter;

inline constexpr char kHeadScoresFileName[] = "head_scores.json";
inline constexpr char kLogitLensFileName[] = "logit_lens.json";

struct RepeatProbeRun {
    int span = 0;
    std::uint64_t seed = 0;
    attn::TokenIdRange range;
    attn::RepeatLoss loss;
};

struct ModelHeadLab {
    std::vector<attn::HeadIndex> ablated;  // empty: nothing ablated
    attn::HeadAblation ablation = attn::HeadAblation::Zero;
    std::vector<attn::TopToken> intactTop;  // with ablated: the intact pass's next tokens
    std::optional<RepeatProbeRun> probe;
    std::optional<attn::Matrix> rollout;  // --rollout
};

// "zero" or "mean".
const char* headAblationName(attn::HeadAblation kind);

// The keys `lab` adds (above), for a writer inside the file's object;
// next_token_intact and rollout are written only by model_attention.json's
// writer (forModelAttention).
void writeHeadLabKeys(JsonWriter& json, const ModelTokenizer& tokenizer, const ModelHeadLab& lab,
                      bool forModelAttention = true);

void writeHeadScoresJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                         const std::string& scaleMode, const attn::HeadScoreTable& scores,
                         const ModelHeadLab& lab);

// head_scores.json as an OutputFile; its writer refers to every argument,
// which must outlive it.
OutputFile headScoresJsonFile(const ModelFolder& model, const attn::DecoderResult& result,
                              const std::string& scaleMode, const attn::HeadScoreTable& scores,
                              const ModelHeadLab& lab);

void writeLogitLensJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                        const std::string& scaleMode, const attn::LogitLens& lens, const ModelHeadLab& lab);
OutputFile logitLensJsonFile(const ModelFolder& model, const attn::DecoderResult& result,
                             const std::string& scaleMode, const attn::LogitLens& lens,
                             const ModelHeadLab& lab);

}  // namespace attnlab
