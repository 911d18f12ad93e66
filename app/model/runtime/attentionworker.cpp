// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionworker.h"

#include "parallel.h"
#include "resultpool.h"

#include <algorithm>
#include <thread>

namespace attnlab {

namespace {

std::shared_ptr<AttentionOutcome> cancelledOutcome(quint64 generation)
{
    auto dropped = std::make_shared<AttentionOutcome>();
    dropped->generation = generation;
    dropped->cancelled = true;
    return dropped;
}

}  // namespace

AttentionWorker::AttentionWorker(std::shared_ptr<ResultPool> pool, QObject* parent)
    : QObject(parent), pool_(std::move(pool))
{
    qRegisterMetaType<std::shared_ptr<AttentionWorker::Outcome>>();
    qRegisterMetaType<std::shared_ptr<AttentionWorker::LabOutcome>>();
    qRegisterMetaType<std::shared_ptr<const attn::AttentionResult>>();
    using Lane = LaneGroup::Lane;
    using Policy = LaneGroup::Policy;
    // Requests: the newest wins, a superseded one answers cancelled. The
    // look-ahead: its own stop flag (a request may take it in flight). The
    // lab: yields to both, runs again after, once the maps' work pauses.
    lanes_ = std::make_unique<LaneGroup>(
        std::vector<Lane>{Lane{Policy::Latest, false, {}, true}, Lane{Policy::Latest, false, {}, false},
                          Lane{Policy::Latest, true, kLabQuiet, true}},
        "attention");
}

AttentionWorker::~AttentionWorker()
{
    quitting_ = true;
    aheadStop_ = true;
    lanes_.reset();  // stops the jobs in flight, drops the waiting ones, joins
}

int AttentionWorker::threads()
{
    return std::min(attn::hardwareCores(), 4);
}

void AttentionWorker::request(std::unique_ptr<Job> job)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (takeLookAhead(*job)) {
        lanes_->cancel(kRequests);  // an older request waiting or in flight answers cancelled
        return;
    }
    stopLookAhead();
    std::shared_ptr<Job> shared(std::move(job));
    // It supersedes the request in flight or waiting, and the lab yields.
    lanes_->post(kRequests, [this, shared](const std::atomic<bool>& stop) {
        runRequest(*shared, stop);
        return true;
    });
}

void AttentionWorker::cancel()
{
    lanes_->cancel(kRequests);
}

void AttentionWorker::runRequest(Job& job, const std::atomic<bool>& stop)
{
    std::shared_ptr<Outcome> outcome;
    if (!stop)  // else superseded before it ran
        outcome = compute(job, stop, threads());
    if (stop)
        outcome = cancelledOutcome(job.generation);  // what was computed goes with its last owner
    if (!quitting_)
        emit finished(outcome);
}

bool AttentionWorker::takeLookAhead(const Job& job)
{
    if (!aheadWork_ || !sameWork(*aheadWork_, job))
        return false;
    if (aheadDone_) {
        std::shared_ptr<Outcome> outcome = std::move(aheadDone_);
        aheadWork_.reset();
        outcome->generation = job.generation;
        ++aheadTaken_;
        emit finished(outcome);
        return true;
    }
    // In flight it would come without the head a preview sends ahead.
    if (!aheadRunning_ || aheadStop_ || job.preview)
        return false;        // not started, being stopped, or the preview is sooner
    if (aheadTakenBy_ != 0)  // an earlier request took it: the same work asked again supersedes it
        emit finished(cancelledOutcome(aheadTakenBy_));
    aheadTakenBy_ = job.generation;
    ++aheadTaken_;
    return true;
}

void AttentionWorker::stopLookAhead()
{
    ++aheadEpoch_;  // one waiting does nothing
    aheadDone_.reset();
    if (!aheadRunning_)
        aheadWork_.reset();
    else if (aheadTakenBy_ == 0)
        aheadStop_ = true;  // it ends within a panel and is dropped (finishLookAhead)
}

void AttentionWorker::lookAhead(std::unique_ptr<Job> job)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    stopLookAhead();
    const quint64 epoch = aheadEpoch_;
    std::shared_ptr<Job> shared(std::move(job));
    // The d_k lab yields to it as to a request (and starts again after):
    // after a step's paint the lab lane may have started in the pause
    // before it, and the step after would find nothing looked ahead.
    lanes_->post(kLookAhead, [this, shared, epoch](const std::atomic<bool>&) {
        runLookAhead(*shared, epoch);
        return true;
    });
}

void AttentionWorker::runLookAhead(Job& job, quint64 epoch)
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (epoch != aheadEpoch_ || quitting_)
            return;                               // dropped before it started
        aheadWork_ = std::make_unique<Job>(job);  // compute() moves the model out
        aheadRunning_ = true;
        aheadTakenBy_ = 0;
        aheadStop_ = false;
    }
    finishLookAhead(compute(job, aheadStop_, threads()));
}

bool AttentionWorker::lookAheadReady()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    return aheadDone_ != nullptr;
}

void AttentionWorker::dropLookAhead()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    stopLookAhead();
}

void AttentionWorker::finishLookAhead(std::shared_ptr<Outcome> outcome)
{
    std::shared_ptr<Outcome> answer;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        aheadRunning_ = false;
        if (aheadTakenBy_ != 0) {
            answer = aheadStop_ ? cancelledOutcome(aheadTakenBy_) : std::move(outcome);
            answer->generation = aheadTakenBy_;
            aheadTakenBy_ = 0;
            aheadWork_.reset();
        } else if (aheadStop_ || quitting_) {
            aheadWork_.reset();
        } else {
            aheadDone_ = std::move(outcome);  // a failure too: the request would fail alike
        }
    }
    if (answer && !quitting_)
        emit finished(answer);
}

void AttentionWorker::requestLab(std::unique_ptr<LabJob> job)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    const quint64 sequence = ++labSequence_;
    std::shared_ptr<LabJob> shared(std::move(job));
    // It supersedes the lab job in flight or waiting.
    lanes_->post(kLab, [this, shared, sequence](const std::atomic<bool>& stop) {
        return runLab(*shared, sequence, stop);
    });
}

void AttentionWorker::cancelLab()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    ++labSequence_;  // no job has it
    lanes_->cancel(kLab);
}

bool AttentionWorker::runLab(LabJob& lab, quint64 sequence, const std::atomic<bool>& stop)
{
    auto outcome = std::make_shared<LabOutcome>();
    outcome->generation = lab.generation;
    outcome->cancelled = true;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (sequence != labSequence_) {  // superseded before it ran
            if (!quitting_)
                emit labFinished(outcome);
            return true;
        }
    }
    const attn::ScalingLabProgress progress = [this, &lab](int done, int total) {
        if (done <= lab.reported)
            return;  // a restart catching up
        lab.reported = done;
        emit labProgress(lab.generation, done, total);
    };
    attn::Expected<attn::ScalingLabCurves> curves = attn::runScalingLab(lab.config, &stop, progress);
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (quitting_)
            return true;
        // An attention job stopped it (a newer lab request would have
        // superseded it): again once that work is done.
        if (sequence == labSequence_ && attn::isCancelled(curves))
            return false;
        outcome->cancelled = sequence != labSequence_;
    }
    if (!outcome->cancelled) {
        if (curves)
            outcome->curves = std::move(curves.value());
        else
            outcome->error = QString::fromStdString(curves.error().message);
    }
    emit labFinished(outcome);
    return true;
}

void AttentionWorker::previewShown(quint64 generation)
{
    quint64 seen = previewShown_.load();
    while (seen < generation && !previewShown_.compare_exchange_weak(seen, generation)) {
    }
}

std::shared_ptr<AttentionWorker::Outcome> AttentionWorker::compute(Job& job, const std::atomic<bool>& stop,
                                                                   int threads)
{
    auto outcome = std::make_shared<Outcome>();
    outcome->generation = job.generation;
    outcome->redraw = job.redraw;
    outcome->keep = job.keep;
    if (job.heads.multiHead()) {
        const quint64 generation = job.generation;
        computeHeadsJob(
            job, outcome.get(), threads, &stop,
            [this, generation, &stop](int head, const std::shared_ptr<const attn::AttentionResult>& result) {
                emit previewed(generation, head, result);
                // The GUI thread paints it on the cores the rest would take:
                // the rest waits for that (a wait is cheaper than sharing
                // the cores, see the window bench).
                const auto until = std::chrono::steady_clock::now() + kPreviewPaintWait;
                while (previewShown_.load() < generation && !stop.load()
                       && std::chrono::steady_clock::now() < until)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
        return outcome;
    }
    computeSingleHeadJob(job, outcome.get(), *pool_, threads, &stop);
    return outcome;
}

}  // namespace attnlab
