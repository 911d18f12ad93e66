// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The lab's side of a computation (Session): the request it makes of the
// attention worker from its inputs (attentionjob.h), the same request
// computed here, and an outcome taken back into the inputs with the result
// it publishes. Plain functions over values: Session decides when, these
// say what.

#include "attentionjob.h"
#include "labinputs.h"
#include "labresult.h"

#include <QList>
#include <QSize>
#include <QString>

#include <memory>

namespace attnlab {

class LabRequests;
class ResultPool;

enum class LabJobKind {
    Recompute,       // the attention over the current matrices
    RecomputeHeads,  // the heads edited since the current result, over it
    Redraw,          // the matrices drawn from the seed again
    RedrawKeeping,   // the same with the user's cells laid over the draw
};

// What the views want with the result, beside the inputs.
struct LabJobWishes {
    bool comparison = false;     // the unscaled-vs-scaled comparison
    QList<QSize> sampleSizes;    // the pictures the maps sample the result into
    bool previewWanted = false;  // the selected head first (LabRequests::previewWanted)
    // The current heads, which a RecomputeHeads request updates.
    std::shared_ptr<const attn::MultiHeadResult> base;
};

std::unique_ptr<AttentionJob> makeLabJob(const LabInputs& in, LabJobKind kind, const LabJobWishes& wishes);

// The work of computing `heads` at `config` over `tokens` tokens, about
// n^2 (d_k + d_v) + n d_model (2 d_k + d_v) per head, against `limit`:
// above it the work leaves the GUI thread.
bool isLargeLabWork(const attn::ModelConfig& config, const attn::HeadsConfig& heads, int tokens,
                    double limit);

// `job` computed on this thread (every core when it is large work over
// about `tokens` tokens), as the worker would.
std::shared_ptr<AttentionOutcome> computeLabJob(AttentionJob& job, int tokens, double largeWork,
                                                ResultPool& pool);

// The single head's result in `outcome`, labelled with `over`'s tokens.
LabResult singleHeadResult(AttentionOutcome& outcome, const attn::Model& over,
                           const attn::AttentionOptions& options);

// A successful `outcome` of a request of `in` taken into `in` (its model,
// cells and heads), and the result it brings over `current` (a preview the
// maps keep is reused from `requests`). The notice says what became of the
// user's cells on a redraw.
struct TakenOutcome {
    LabResult result;
    QString notice;
};
TakenOutcome takeOutcome(AttentionOutcome& outcome, LabInputs& in, const LabResult& current,
                         const LabRequests& requests);

}  // namespace attnlab
