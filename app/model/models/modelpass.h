// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One request of the Model tab's pass (ModelSession) and what it computes
// off the GUI thread: the pass over the tokens (every head's maps and the
// residual stream kept), every head's type scores and score-range
// readouts, with heads ablated the same pass again without them (its maps
// and stream kept too, for the logit lens, the rollout and the export),
// and for the induction probe each repeat's loss in both passes.
//
// The probe (issue 39): instead of the typed sentence, a span of R random
// token ids repeated twice (attn::repeatedSpanIds over
// attn::repeatProbeIdRange, seeded), as `--probe repeat:R:SEED` draws it.

#include "decoder_model.h"
#include "expected.h"
#include "head_scores.h"
#include "modelfolder.h"
#include "score_range.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

// The induction probe's choice: R (from 2) and the seed.
struct RepeatProbe {
    int span = attn::kDefaultRepeatSpan;
    std::uint64_t seed = attn::kDefaultRepeatSeed;

    bool operator==(const RepeatProbe& o) const { return span == o.span && seed == o.seed; }
    bool operator!=(const RepeatProbe& o) const { return !(*this == o); }
};

// The probe's 2R tokens under `model` (its vocabulary's pieces). Errors,
// one line each: R below 2, 2R beyond the model's positions, R beyond the
// distinct ids the vocabulary gives (as the command line's --probe).
attn::Expected<std::vector<ModelToken>> repeatProbeTokens(const ModelFolder& model, const RepeatProbe& probe);

struct ModelPassRequest {
    std::shared_ptr<const ModelFolder> model;
    std::vector<int> ids;
    attn::DecoderRunOptions options;  // cancel and the hook set by runModelPass
    std::vector<attn::HeadIndex> ablated;
    attn::HeadAblation ablation = attn::HeadAblation::Zero;
    std::optional<RepeatProbe> probe;  // the ids are this probe's
};

struct ModelPassOutcome {
    attn::Expected<attn::DecoderResult> result = attn::Error{};
    bool cancelled = false;  // stopped by `stop`
    attn::HeadScoreTable scores;
    attn::ScoreRangeTable ranges;
    // With heads ablated: the pass without them, and what it ran without.
    std::shared_ptr<const attn::DecoderResult> ablatedResult;
    std::vector<attn::HeadIndex> ablated;
    attn::HeadAblation ablation = attn::HeadAblation::Zero;
    // With a probe: each repeat's mean loss (attn::repeatLoss), intact and
    // (with heads ablated) ablated.
    std::optional<attn::RepeatLoss> probeLoss;
    std::optional<attn::RepeatLoss> ablatedProbeLoss;
};

// The request's work, on the calling thread; `stop` ends it between layers.
ModelPassOutcome runModelPass(const ModelPassRequest& request, const std::atomic<bool>& stop);

}  // namespace attnlab
