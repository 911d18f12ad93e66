// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head lab's options of a --model export (issue 39), for any model
// family (the core's head_scores.h over DecoderModel):
//
//   --head-scores            also write head_scores.json (headlabexport.h):
//                            every head's previous_token, duplicate_token,
//                            induction and first_token scores
//   --ablate L.H[,L.H...]    run the model with these heads' contexts
//                            ablated (layer and head from 0): every number
//                            written is the ablated pass's, and
//                            model_attention.json adds the intact model's
//                            next tokens
//   --ablation zero|mean     how (zero, the default; mean: each column of
//                            the head's context set to its mean over the
//                            positions); needs --ablate
//   --probe repeat:R[:SEED]  instead of --sentence, R random token ids
//                            (head_scores.h: repeatProbeIdRange,
//                            repeatedSpanIds; SEED 0 when left out) repeated
//                            twice, with the model's loss on each repeat
//   --logit-lens             also write logit_lens.json (lens_rollout.h):
//                            after each layer, each position's 5 most likely
//                            next tokens
//   --rollout                add attention rollout (n x n) to
//                            model_attention.json; needs --format json
//   --rope L.H               also write rope.json (rotaryexport.h) and, with
//                            --format png, svg or pdf, rope.<ext>: head H
//                            of layer L (from 0) before and after RoPE; a
//                            model without RoPE (GPT-2) exits 2
//   --compare KIND           also write difference.json (differenceexport.h)
//                            and, with --format png, svg or pdf,
//                            difference.<ext>: map B - map A of two runs,
//                            as the Lens page's A/B difference: "ablated"
//                            (intact and --ablate's; needs --ablate),
//                            "unscaled" (÷ √head_dim and ÷ 1 in every head;
//                            not with --scale or --ablate) or
//                            "sentence:TEXT" (--sentence and TEXT, of as
//                            many tokens; not with --ablate or --probe)
//   --compare-map L.H|rollout
//                            the map compared: a head's weights or the
//                            attention rollout (the default); needs --compare
//
// They combine with each other, --scale, --temperature and --format. Bad
// values exit 2 with one line, before anything is written.

#include "decoder_config.h"
#include "decoder_model.h"
#include "expected.h"
#include "modelcomparison.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace attnlab {

class CommandLineParser;

struct HeadLabRequest {
    bool headScores = false;
    std::vector<attn::HeadIndex> ablate;
    attn::HeadAblation ablation = attn::HeadAblation::Zero;
    bool probe = false;
    int probeSpan = 0;
    std::uint64_t probeSeed = 0;
    bool logitLens = false;
    bool rollout = false;
    std::optional<attn::HeadIndex> rope;
    std::optional<ComparisonKind> compare;
    QString compareSentence;                     // "sentence:TEXT"'s TEXT
    std::optional<attn::HeadIndex> compareHead;  // none: the rollout
};

// The options above, if any is given.
bool asksForHeadLab(const CommandLineParser& parser);

// Without --model they are refused: the line to print, or nothing.
std::optional<QString> headLabWithoutModel(const CommandLineParser& parser);

// The options read and checked on their own (syntax, --ablation without
// --ablate, --probe with --sentence); the error is the line to print.
attn::Expected<HeadLabRequest> readHeadLabRequest(const CommandLineParser& parser);

// The request against the model read: every head in range, the probe's
// 2R tokens within its positions and R distinct ids in its vocabulary,
// --rope's model rotating q and k (`rotary`: its frequencies are not empty).
attn::Status checkHeadLabRequest(const HeadLabRequest& request, const attn::DecoderConfig& config,
                                 bool rotary = true);

}  // namespace attnlab
