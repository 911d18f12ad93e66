// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionworker.h"

#include "parallel.h"
#include "resultpool.h"

#include <algorithm>

namespace attnlab {

AttentionWorker::AttentionWorker(std::shared_ptr<ResultPool> pool, QObject* parent)
    : QObject(parent), pool_(std::move(pool))
{
    qRegisterMetaType<std::shared_ptr<AttentionWorker::Outcome>>();
    qRegisterMetaType<std::shared_ptr<AttentionWorker::LabOutcome>>();
    qRegisterMetaType<std::shared_ptr<const attn::AttentionResult>>();
}

AttentionWorker::~AttentionWorker()
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        abort_ = true;
        stop_ = true;
        labStop_ = true;
        job_.reset();
        labJob_.reset();
    }
    wake_.notify_one();
    if (thread_.joinable())
        thread_.join();
}

int AttentionWorker::threads()
{
    return std::min(attn::hardwareCores(), 4);
}

void AttentionWorker::dropWaiting()
{
    if (!job_)
        return;
    auto dropped = std::make_shared<Outcome>();
    dropped->generation = job_->generation;
    dropped->cancelled = true;
    job_.reset();
    emit finished(dropped);
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
    if (!aheadRunning_ || stop_ || job.preview)
        return false;  // not started, being stopped, or the preview is sooner
    if (aheadTakenBy_ != 0) {
        // An earlier request took it: the same work asked again supersedes it.
        auto dropped = std::make_shared<Outcome>();
        dropped->generation = aheadTakenBy_;
        dropped->cancelled = true;
        emit finished(dropped);
    }
    aheadTakenBy_ = job.generation;
    ++aheadTaken_;
    return true;
}

void AttentionWorker::stopLookAhead()
{
    ahead_.reset();
    aheadDone_.reset();
    if (!aheadRunning_)
        aheadWork_.reset();
    else if (aheadTakenBy_ == 0)
        stop_ = true;  // it ends within a panel and is dropped (finishLookAhead)
}

void AttentionWorker::lookAhead(std::unique_ptr<Job> job)
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopLookAhead();
        ahead_ = std::move(job);
        // The d_k lab yields to it as to a request (and starts again after):
        // after a step's paint the lab lane may have started in the pause
        // before it, and the step after would find nothing looked ahead.
        if (labRunning_)
            labStop_ = true;
        if (!thread_.joinable())
            thread_ = std::thread([this] { run(); });
    }
    wake_.notify_one();
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
        lastAttention_ = std::chrono::steady_clock::now();
        if (aheadTakenBy_ != 0) {
            if (stop_) {
                answer = std::make_shared<Outcome>();
                answer->cancelled = true;
            } else {
                answer = std::move(outcome);
            }
            answer->generation = aheadTakenBy_;
            aheadTakenBy_ = 0;
            aheadWork_.reset();
        } else if (stop_ || abort_) {
            aheadWork_.reset();
        } else {
            aheadDone_ = std::move(outcome);  // a failure too: the request would fail alike
        }
    }
    if (answer)
        emit finished(answer);
}

void AttentionWorker::request(std::unique_ptr<Job> job)
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        dropWaiting();
        if (takeLookAhead(*job))
            return;
        stopLookAhead();
        job_ = std::move(job);
        if (running_)
            stop_ = true;  // restart
        if (labRunning_)
            labStop_ = true;  // the lab yields, and starts again after
        if (!thread_.joinable())
            thread_ = std::thread([this] { run(); });
    }
    wake_.notify_one();
}

void AttentionWorker::cancel()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    dropWaiting();
    if (running_)
        stop_ = true;
}

void AttentionWorker::dropWaitingLab()
{
    if (!labJob_)
        return;
    auto dropped = std::make_shared<LabOutcome>();
    dropped->generation = labJob_->generation;
    dropped->cancelled = true;
    labJob_.reset();
    emit labFinished(dropped);
}

void AttentionWorker::requestLab(std::unique_ptr<LabJob> job)
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        dropWaitingLab();
        labJob_ = std::move(job);
        if (labRunning_) {
            labSuperseded_ = true;
            labStop_ = true;
        }
        if (!thread_.joinable())
            thread_ = std::thread([this] { run(); });
    }
    wake_.notify_one();
}

void AttentionWorker::cancelLab()
{
    const std::lock_guard<std::mutex> lock(mutex_);
    dropWaitingLab();
    if (labRunning_) {
        labSuperseded_ = true;
        labStop_ = true;
    }
}

void AttentionWorker::run()
{
    for (;;) {
        std::unique_ptr<Job> job;
        std::unique_ptr<LabJob> lab;
        bool ahead = false;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            running_ = false;
            for (;;) {
                wake_.wait(lock, [this] { return abort_ || job_ || ahead_ || labJob_; });
                if (abort_ || job_ || ahead_)
                    break;
                // Only a lab job waits: after a pause of the maps' work.
                const auto start = lastAttention_ + kLabQuiet;
                if (std::chrono::steady_clock::now() >= start)
                    break;
                wake_.wait_until(lock, start, [this] { return abort_ || job_ || ahead_ || !labJob_; });
            }
            if (abort_)
                return;
            if (job_) {
                job = std::move(job_);
                running_ = true;
                stop_ = false;
            } else if (ahead_) {
                job = std::move(ahead_);
                aheadWork_ = std::make_unique<Job>(*job);  // compute() moves the model out
                aheadRunning_ = true;
                aheadTakenBy_ = 0;
                ahead = true;
                running_ = true;
                stop_ = false;
            } else {
                lab = std::move(labJob_);
                labRunning_ = true;
                labSuperseded_ = false;
                labStop_ = false;
            }
        }
        if (lab) {
            computeLab(std::move(lab));
            continue;
        }
        std::shared_ptr<Outcome> outcome = compute(*job, threads());
        if (ahead) {
            finishLookAhead(std::move(outcome));
            continue;
        }
        if (stop_) {
            auto dropped = std::make_shared<Outcome>();
            dropped->generation = job->generation;
            dropped->cancelled = true;
            outcome = dropped;  // what was computed goes back with `outcome`'s last owner
        }
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            lastAttention_ = std::chrono::steady_clock::now();
        }
        emit finished(outcome);
    }
}

void AttentionWorker::computeLab(std::unique_ptr<LabJob> job)
{
    LabJob& lab = *job;
    const attn::ScalingLabProgress progress = [this, &lab](int done, int total) {
        if (done <= lab.reported)
            return;  // a restart catching up
        lab.reported = done;
        emit labProgress(lab.generation, done, total);
    };
    attn::Expected<attn::ScalingLabCurves> curves = attn::runScalingLab(lab.config, &labStop_, progress);
    auto outcome = std::make_shared<LabOutcome>();
    outcome->generation = lab.generation;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        labRunning_ = false;
        if (abort_)
            return;
        if (labSuperseded_) {
            outcome->cancelled = true;
        } else if (attn::isCancelled(curves)) {
            // An attention request stopped it (a newer lab request would have
            // superseded it, so none waits): again once that work is done.
            labJob_ = std::move(job);
            return;
        }
    }
    if (!outcome->cancelled) {
        if (curves)
            outcome->curves = std::move(curves.value());
        else
            outcome->error = QString::fromStdString(curves.error().message);
    }
    emit labFinished(outcome);
}

void AttentionWorker::previewShown(quint64 generation)
{
    quint64 seen = previewShown_.load();
    while (seen < generation && !previewShown_.compare_exchange_weak(seen, generation)) {
    }
}

std::shared_ptr<AttentionWorker::Outcome> AttentionWorker::compute(Job& job, int threads)
{
    auto outcome = std::make_shared<Outcome>();
    outcome->generation = job.generation;
    outcome->redraw = job.redraw;
    outcome->keep = job.keep;
    if (job.heads.multiHead()) {
        const quint64 generation = job.generation;
        computeHeadsJob(
            job, outcome.get(), threads, &stop_,
            [this, generation](int head, const std::shared_ptr<const attn::AttentionResult>& result) {
                emit previewed(generation, head, result);
                // The GUI thread paints it on the cores the rest would take:
                // the rest waits for that (a wait is cheaper than sharing
                // the cores, see the window bench).
                const auto until = std::chrono::steady_clock::now() + kPreviewPaintWait;
                while (previewShown_.load() < generation && !stop_.load()
                       && std::chrono::steady_clock::now() < until)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
        return outcome;
    }
    computeSingleHeadJob(job, outcome.get(), *pool_, threads, &stop_);
    return outcome;
}

}  // namespace attnlab
