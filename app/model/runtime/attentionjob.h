// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One request of the lab's attention and what it gives: what is computed,
// not where. AttentionWorker runs jobs on its thread (attentionworker.h);
// Session computes lesson sizes itself with the same functions.

#include "attention.h"
#include "labfile.h"
#include "model.h"
#include "multihead.h"
#include "scaling_lab.h"
#include "statistics.h"
#include "usercells.h"

#include <QList>
#include <QSize>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace attnlab {

class ResultPool;
struct ResultSampleCache;

// One request: redraw from `config` (then `model` only gives the user's
// cells to keep) or recompute over `model`'s matrices.
struct AttentionJob {
    quint64 generation = 0;
    bool redraw = false;
    bool keep = false;         // lay the user's cells of `model` over the draw
    UserCells cells;           // of `model`, when keeping
    bool comparison = false;   // compute the scaling comparison too
    QList<QSize> sampleSizes;  // the pictures the maps sample (see Presampler)
    attn::ModelConfig config;
    attn::AttentionOptions options;
    attn::Model model;
    // heads.multiHead(): every head's pass (see Session's multi-head
    // part). A redraw draws the heads and puts model's kept cells into
    // head selectedHead; a recompute runs over `params`.
    attn::HeadsConfig heads;
    int selectedHead = 0;
    attn::MultiHeadParams params;
    // A recompute of these heads alone over a copy of `base` (the
    // others' parameters unchanged since base was computed).
    std::vector<int> recomputeHeads;
    unsigned recomputeParts = attn::kHeadAllParts;  // which of their W_q, W_k, W_v changed
    std::shared_ptr<const attn::MultiHeadResult> base;
    // Multi-head: the selected head's pass alone first, sent ahead of
    // the rest by previewed() (see previewHead).
    bool preview = false;
};
struct AttentionOutcome {
    quint64 generation = 0;
    bool cancelled = false;  // superseded before it was done; nothing else is set
    bool redraw = false;
    QString error;  // empty on success
    attn::Model model;
    bool keep = false;
    attn::ModelConfig config;  // model's, for a redraw
    UserCells cells;           // of model, for a redraw
    KeptReport report;
    std::shared_ptr<attn::AttentionResult> result;
    attn::AttentionStats stats;
    std::shared_ptr<const attn::ScalingComparison> comparison;  // null unless asked for
    std::shared_ptr<ResultSampleCache> samples;                 // null unless sampled
    // Multi-head: every head's result (`result` is the selected head's,
    // sharing it); the parameters it was computed over and, for a
    // redraw, the seed's draw they came from.
    std::shared_ptr<attn::MultiHeadResult> multi;
    int selectedHead = 0;  // the head `result` is, within the heads
    attn::MultiHeadParams params;
    attn::MultiHeadParams drawnParams;
    // The head previewed() sent ahead (the same numbers as that head of
    // `multi`, bit for bit), or null.
    std::shared_ptr<const attn::AttentionResult> preview;
    int previewHead = 0;
    // A recompute of some heads over job.base: those heads, and the
    // base whose other heads `multi` holds again unchanged; else empty
    // and null.
    std::vector<int> recomputedHeads;
    const attn::MultiHeadResult* base = nullptr;
};

// A multi-head job done on the calling thread (the worker's own, or the
// session's for lesson sizes): `stop` as the worker's restart flag.
// `preview`, when set and job.preview asks for it, is given the
// selected head's pass alone before the rest is computed.
using PreviewSink = std::function<void(int head, const std::shared_ptr<const attn::AttentionResult>&)>;
void computeHeadsJob(AttentionJob& job, AttentionOutcome* outcome, int threads, const std::atomic<bool>* stop,
                     const PreviewSink& preview = {});
// The selected head's pass alone, from its own draw for a redraw (the
// same X, the same weights and kept cells as the whole draw gives it)
// or from the job's parameters: null where that head alone would not
// be the whole pass's head bit for bit (attn::headAloneExact), where it
// cannot be drawn alone (the Article and torch-mha draws are one
// stream) or where it fails (the whole pass then says why).
std::shared_ptr<const attn::AttentionResult> previewHead(const AttentionJob& job, int* head, int threads,
                                                         const std::atomic<bool>* stop);

// The single head's job: a redraw (buildModel, the user's cells kept) or a
// recompute over job.model, into a result from `pool`, sampling the maps'
// pictures as it goes (Presampler). `stop` stops it within a panel of rows.
void computeSingleHeadJob(AttentionJob& job, AttentionOutcome* outcome, ResultPool& pool, int threads,
                          const std::atomic<bool>* stop);

// Whether two redraw requests compute the same numbers: all they carry
// but the generation, the preview (a request taking a look-ahead gets
// no preview, only the whole result sooner) and, for the heads, the
// sample sizes (their pass samples nothing). False for anything but two
// redraws.
bool sameWork(const AttentionJob& a, const AttentionJob& b);

}  // namespace attnlab
