// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// difference.json (issue 39): the head lab's A/B difference, two runs of
// the model over the same number of tokens that differ in one thing, and
// map B minus map A, as the Lens page shows it (ModelComparison), written
// by `attention-lab --model DIR --sentence TEXT --compare KIND
// [--compare-map L.H|rollout] --export-dir OUT`. An object with
//   model, tokens, pieces, token_ids, scale, mask, qk_norm_removed
//                as model_attention.json's (modelattentionexport.h), of A
//   comparison   "ablated" (A intact, B without the --ablate heads),
//                "unscaled" (A ÷ √head_dim, B ÷ 1 in every head) or
//                "sentence" (A --sentence, B other_sentence)
//   map          "rollout", or "head" with layer and head (from 0)
//   other_sentence, other_token_ids
//                B's sentence and ids ("sentence" only)
//   a, b         n x n: the map of each run
//   difference   n x n: b - a, entry by entry
//   largest_change
//                the largest |b - a|
// and the head lab's keys (ablated, ablation) for "ablated".
// Numbers in their shortest round-trip form.

#include "decoder_model.h"
#include "headlabexport.h"
#include "matrix.h"
#include "modelfolder.h"
#include "stagedwrite.h"

#include <QString>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace attnlab {

inline constexpr char kDifferenceFileName[] = "difference.json";

struct ModelDifference {
    std::string comparison;               // "ablated", "unscaled", "sentence"
    std::optional<attn::HeadIndex> head;  // none: the rollout
    QString otherSentence;                // "sentence"
    std::vector<int> otherIds;
    attn::Matrix a;
    attn::Matrix b;
};

void writeDifferenceJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                         const std::string& scaleMode, const ModelDifference& difference,
                         const ModelHeadLab* lab = nullptr);

// difference.json as an OutputFile; its writer refers to every argument,
// which must outlive it.
OutputFile differenceJsonFile(const ModelFolder& model, const attn::DecoderResult& result,
                              const std::string& scaleMode, const ModelDifference& difference,
                              const ModelHeadLab* lab = nullptr);

}  // namespace attnlab
