// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The lab's requests to its worker (attentionworker.h), for Session: each
// request is numbered (generation()), only the newest one's outcome is
// delivered, and every older one the worker was given is announced as
// dropped. Two refinements ride on them:
//
// - The preview: a multi-head request may send its selected head ahead of
//   the rest (AttentionJob::preview). Session decides whether it fits what
//   is shown (setPreviewFilter); LabRequests holds it (preview()) until the
//   result comes, and the samples the maps take of it.
// - The look-ahead: after a seed step by one (seedStep()) whose heads were
//   computed in the worker, the next step in the same direction is computed
//   once the views have painted this one (resultPainted), so that stepping
//   on shows at the cost of a paint. Session gives the job for a seed
//   (setLookAheadSource), or none when nothing should be looked ahead.
//
// Waiting for the views' paint: the policy lives with the views (a window's
// PaintAcknowledger says when they painted). While awaitsPaint(), the rest
// of a multi-head request waits after its preview (up to
// AttentionWorker::kPreviewPaintWait) until previewPainted(), and a seed
// step's look-ahead starts at resultPainted(). Without views (tests, the
// command line) both happen as soon as the preview or the result is out.

#include "attentionjob.h"

#include <QObject>

#include <cstdint>
#include <functional>
#include <memory>

namespace attnlab {

class AttentionWorker;
class ResultPool;
struct ResultSampleCache;

class LabRequests : public QObject {
    Q_OBJECT
public:
    explicit LabRequests(std::shared_ptr<ResultPool> pool, QObject* parent = nullptr);
    ~LabRequests() override;

    AttentionWorker* worker() const { return worker_.get(); }

    // The request the newest preview or result belongs to: a view's paint is
    // acknowledged with it.
    quint64 generation() const { return generation_; }
    // A request is in flight; it redraws the matrices (keeping the user's
    // cells), or recomputes some heads alone over the current result.
    bool computing() const { return computing_; }
    bool redrawing() const { return computing_ && redraw_; }
    bool keeps() const { return keep_; }
    bool headsOnly() const { return headsOnly_; }

    // Numbers `job` and hands it to the worker, superseding the request in
    // flight (which is announced as dropped).
    void start(std::unique_ptr<AttentionJob> job, bool headsOnly = false);
    // No request in flight any more, and no look-ahead: what follows is
    // computed by the caller. An outcome still to come is dropped.
    void supersede();
    // The request in flight only (the inputs were replaced whole).
    void cancel();

    // The preview of the request in flight (see above); null when none is
    // out. Its samples are made on first use.
    std::shared_ptr<const attn::AttentionResult> preview() const { return preview_; }
    std::shared_ptr<ResultSampleCache> previewSamples() const;
    // Those samples, if `result` is the preview shown; null otherwise.
    std::shared_ptr<ResultSampleCache> samplesOfPreview(
        const std::shared_ptr<const attn::AttentionResult>& result) const;
    // Whether requests send the selected head ahead (on by default). The head
    // alone is computed twice and the rest waits for its paint, so a window
    // whose shown views all wait for every head (the Heads tab) turns it off.
    void setPreviewWanted(bool wanted) { previewWanted_ = wanted; }
    bool previewWanted() const { return previewWanted_; }
    // Whether a preview of `head` fits what the views show (the same tokens,
    // the head still selected). Set by the session.
    using PreviewFilter = std::function<bool(int head, const attn::AttentionResult& result)>;
    void setPreviewFilter(PreviewFilter filter) { previewFilter_ = std::move(filter); }
    // The preview goes, with previewChanged() (a problem: its request gives
    // no result); forgetPreview() without a signal (a result came).
    void dropPreview();
    void forgetPreview();

    // See above. On by default; the bench turns it off for its baseline.
    void setLookAheadWanted(bool wanted);
    // The job that computes the lab at `seed`, or null when nothing is to be
    // looked ahead now. Set by the session.
    using LookAheadSource = std::function<std::unique_ptr<AttentionJob>(std::uint64_t seed)>;
    void setLookAheadSource(LookAheadSource source) { lookAheadSource_ = std::move(source); }
    // The redraw in flight is a seed step by one; `next` is the seed after it.
    void seedStep(std::uint64_t next);
    // Requests the worker answered from a look-ahead so far; whether one is
    // done and kept.
    int lookAheadsTaken() const;
    bool lookAheadReady() const;

    // See above.
    void setAwaitsPaint(bool on) { awaitsPaint_ = on; }
    void previewPainted(quint64 generation);
    void resultPainted(quint64 generation);
    // The session has published request `generation`'s heads (after
    // resultChanged; the single head is not looked ahead).
    void headsShown(quint64 generation);

signals:
    // The newest request's outcome, not cancelled (an error included).
    void delivered(std::shared_ptr<attnlab::AttentionOutcome> outcome);
    // A request's result will never show: a newer request superseded it.
    void dropped();
    void previewChanged();  // preview() changed

private:
    void receive(const std::shared_ptr<AttentionOutcome>& outcome);
    void receivePreview(quint64 generation, int head,
                        const std::shared_ptr<const attn::AttentionResult>& result);

    std::unique_ptr<AttentionWorker> worker_;
    quint64 generation_ = 0;  // of the newest request; older outcomes are stale
    bool computing_ = false;
    bool redraw_ = false;
    bool keep_ = false;
    bool headsOnly_ = false;
    std::shared_ptr<const attn::AttentionResult> preview_;
    mutable std::shared_ptr<ResultSampleCache> previewSamples_;
    bool previewWanted_ = true;
    PreviewFilter previewFilter_;
    bool lookAheadWanted_ = true;
    LookAheadSource lookAheadSource_;
    bool awaitsPaint_ = false;
    // The seed step request in flight (its generation, 0: none), the seed
    // one step further, and the step whose paint starts the look-ahead.
    quint64 seedStepGeneration_ = 0;
    std::uint64_t seedAhead_ = 0;
    quint64 lookAheadDue_ = 0;
};

}  // namespace attnlab
