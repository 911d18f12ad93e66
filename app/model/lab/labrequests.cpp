// SPDX-License-Identifier: GPL-3.0-or-later
#include "labrequests.h"

#include "attentionworker.h"
#include "resultcells.h"
#include "resultpool.h"

#include <limits>
#include <utility>

namespace attnlab {

LabRequests::LabRequests(std::shared_ptr<ResultPool> pool, QObject* parent)
    : QObject(parent), worker_(std::make_unique<AttentionWorker>(std::move(pool)))
{
    connect(worker_.get(), &AttentionWorker::finished, this, &LabRequests::receive, Qt::QueuedConnection);
    connect(worker_.get(), &AttentionWorker::previewed, this, &LabRequests::receivePreview,
            Qt::QueuedConnection);
}

LabRequests::~LabRequests() = default;

void LabRequests::start(std::unique_ptr<AttentionJob> job, bool headsOnly)
{
    job->generation = ++generation_;
    computing_ = true;
    redraw_ = job->redraw;
    keep_ = job->keep;
    headsOnly_ = headsOnly;
    worker_->request(std::move(job));  // supersedes the request in flight
}

void LabRequests::supersede()
{
    worker_->dropLookAhead();
    if (computing_)
        cancel();
    else
        ++generation_;  // a result still to be painted starts no look-ahead
}

void LabRequests::cancel()
{
    if (!computing_)
        return;
    ++generation_;
    computing_ = false;
    worker_->cancel();
}

void LabRequests::receive(const std::shared_ptr<AttentionOutcome>& outcome)
{
    if (outcome->cancelled || outcome->generation != generation_ || !computing_) {
        emit dropped();  // superseded by a newer request
        return;
    }
    computing_ = false;
    emit delivered(outcome);
}

void LabRequests::receivePreview(quint64 generation, int head,
                                 const std::shared_ptr<const attn::AttentionResult>& result)
{
    // For the request in flight and what the views show.
    if (generation != generation_ || !computing_ || !previewFilter_ || !previewFilter_(head, *result)) {
        worker_->previewShown(generation);  // nothing to paint
        return;
    }
    preview_ = result;
    previewSamples_.reset();
    emit previewChanged();
    if (!awaitsPaint_)
        previewPainted(generation);  // nothing paints it
}

std::shared_ptr<ResultSampleCache> LabRequests::previewSamples() const
{
    if (!previewSamples_)
        previewSamples_ = std::make_shared<ResultSampleCache>();
    return previewSamples_;
}

std::shared_ptr<ResultSampleCache> LabRequests::samplesOfPreview(
    const std::shared_ptr<const attn::AttentionResult>& result) const
{
    return preview_ && preview_ == result ? previewSamples_ : nullptr;
}

void LabRequests::dropPreview()
{
    if (!preview_)
        return;
    forgetPreview();
    emit previewChanged();
}

void LabRequests::forgetPreview()
{
    preview_.reset();
    previewSamples_.reset();
}

void LabRequests::previewPainted(quint64 generation)
{
    worker_->previewShown(generation);
}

void LabRequests::setLookAheadWanted(bool wanted)
{
    lookAheadWanted_ = wanted;
    if (!wanted)
        worker_->dropLookAhead();
}

void LabRequests::seedStep(std::uint64_t next)
{
    if (!computing_ || !redraw_)
        return;  // done here, not in the worker
    seedStepGeneration_ = generation_;
    seedAhead_ = next;
}

int LabRequests::lookAheadsTaken() const
{
    return worker_->lookAheadsTaken();
}

bool LabRequests::lookAheadReady() const
{
    return worker_->lookAheadReady();
}

void LabRequests::headsShown(quint64 generation)
{
    if (generation != 0 && generation == seedStepGeneration_)
        lookAheadDue_ = generation;
    if (!awaitsPaint_)
        resultPainted(generation);  // nothing paints it
}

void LabRequests::resultPainted(quint64 generation)
{
    // The next seed step's work, once the views have painted this one:
    // started while they take it, it slowed their paint more than it gained.
    if (generation == 0 || generation != lookAheadDue_)
        return;
    lookAheadDue_ = 0;
    // Nothing changed since that result, which is the session's.
    if (!lookAheadWanted_ || generation != generation_ || computing_ || !lookAheadSource_)
        return;
    std::unique_ptr<AttentionJob> job = lookAheadSource_(seedAhead_);
    if (!job)
        return;
    job->preview = false;
    worker_->lookAhead(std::move(job));
}

}  // namespace attnlab
