// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionworker.h"

#include "headparams.h"
#include "parallel.h"
#include "presampler.h"
#include "reaper.h"
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

namespace {

bool sameModel(const attn::Model& a, const attn::Model& b)
{
    return a.tokenization.tokens == b.tokenization.tokens && a.tokenization.ids == b.tokenization.ids
           && a.tokenization.vocab == b.tokenization.vocab && attn::sameBits(a.X, b.X)
           && attn::sameBits(a.Wq, b.Wq) && attn::sameBits(a.Wk, b.Wk) && attn::sameBits(a.Wv, b.Wv);
}

bool sameCells(const UserCells& a, const UserCells& b)
{
    for (int i = 0; i < 4; ++i) {
        const CellMask& x = a.mask[i];
        const CellMask& y = b.mask[i];
        if (x.rows() != y.rows() || x.cols() != y.cols() || (x.size() > 0 && !(x == y).all()))
            return false;
    }
    return true;
}

}  // namespace

bool AttentionWorker::sameWork(const Job& a, const Job& b)
{
    // A redraw reads the model only for the user's cells it keeps; the
    // heads' pass samples nothing for the maps (the single head's does).
    const bool sameSamples = a.heads.multiHead() || a.sampleSizes == b.sampleSizes;
    return a.redraw && b.redraw && a.config == b.config && a.options == b.options && a.keep == b.keep
           && a.comparison == b.comparison && sameSamples && a.heads == b.heads
           && a.selectedHead == b.selectedHead && a.recomputeHeads.empty() && b.recomputeHeads.empty()
           && !a.base && !b.base && (!a.keep || (sameCells(a.cells, b.cells) && sameModel(a.model, b.model)));
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
        computeHeads(
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
    if (job.redraw) {
        attn::Expected<attn::Model> built = attn::buildModel(job.config);
        if (!built) {
            outcome->error = QString::fromStdString(built.error().message);
            return outcome;
        }
        outcome->model = std::move(built.value());
        outcome->config = job.config;
        outcome->cells = job.keep ? keepUserCells(job.model, job.cells, &outcome->model, &outcome->report)
                                  : UserCells::none(outcome->model);
    } else {
        outcome->model = std::move(job.model);
    }
    if (stop_)
        return outcome;
    const attn::Model& m = outcome->model;
    outcome->result = pool_->take(m.X.rows());
    const Presampler presampler(int(m.X.rows()), job.sampleSizes);
    attn::WeightRowVisitor sample;
    if (presampler.cache())
        sample = [&presampler](int i, const attn::WeightRow& row) { presampler.visit(i, row); };
    // Every core: the GUI thread waits for the result anyway.
    const attn::Status status = attn::computeAttentionWithStatistics(
        m.X, m.Wq, m.Wk, m.Wv, job.options, outcome->result.get(), &outcome->stats, threads, sample, &stop_);
    outcome->samples = presampler.cache();
    if (!status) {
        outcome->error = QString::fromStdString(status.error().message);
        return outcome;
    }
    if (job.comparison && !stop_)
        outcome->comparison = shareLarge<const attn::ScalingComparison>(
            attn::compareScaling(*outcome->result), 2 * ResultPool::mapBytes(m.X.rows()));
    return outcome;
}

std::shared_ptr<const attn::AttentionResult> AttentionWorker::previewHead(const Job& job, int* head,
                                                                          int threads,
                                                                          const std::atomic<bool>* stop)
{
    const attn::HeadLayout layout = job.heads.layout;
    const bool split = layout == attn::HeadLayout::Split;
    if (!attn::headAloneExact(layout))
        return {};
    auto result = std::make_shared<attn::AttentionResult>();
    attn::AttentionStats stats;
    if (job.redraw) {
        if (!headDrawsAlone(job.config, job.heads))
            return {};
        attn::Expected<attn::Model> built = attn::buildModel(job.config);
        if (!built)
            return {};
        *head = std::clamp(job.selectedHead, 0, job.heads.heads - 1);
        attn::Expected<attn::HeadWeights> drawn = drawHeadAlone(job.config, job.heads, *head);
        if (!drawn)
            return {};
        attn::Model& m = built.value();
        m.Wq = std::move(drawn->Wq);
        m.Wk = std::move(drawn->Wk);
        m.Wv = std::move(drawn->Wv);
        if (job.keep) {
            KeptReport report;
            keepUserCells(job.model, job.cells, &m, &report);
        }
        // The draw's split biases are zero, added as the whole pass adds them.
        const attn::RowVector bias = attn::RowVector::Zero(3 * m.Wq.cols());
        if (!attn::computeHeadAlone(m.X, layout, attn::HeadWeights{m.Wq, m.Wk, m.Wv}, split ? &bias : nullptr,
                                    job.options, result.get(), &stats, threads, stop))
            return {};
        return result;
    }
    const int h = job.params.headCount();
    if (h < 1)
        return {};
    *head = std::clamp(job.selectedHead, 0, h - 1);
    const attn::RowVector bias = split ? attn::splitHeadBias(job.params.split, *head) : attn::RowVector();
    if (!attn::computeHeadAlone(job.model.X, layout, job.params.head(*head), split ? &bias : nullptr,
                                job.options, result.get(), &stats, threads, stop))
        return {};
    return result;
}

void AttentionWorker::computeHeads(Job& job, Outcome* outcome, int threads, const std::atomic<bool>* stop,
                                   const PreviewSink& preview)
{
    if (job.preview && preview) {
        outcome->preview = previewHead(job, &outcome->previewHead, threads, stop);
        if (outcome->preview && !(stop && *stop))
            preview(outcome->previewHead, outcome->preview);
    }
    if (job.redraw) {
        attn::Expected<attn::Model> built = attn::buildModel(job.config);
        if (!built) {
            outcome->error = QString::fromStdString(built.error().message);
            return;
        }
        attn::Expected<attn::MultiHeadParams> drawn = drawMultiHead(job.config, job.heads);
        if (!drawn) {
            outcome->error = QString::fromStdString(drawn.error().message);
            return;
        }
        job.selectedHead = std::clamp(job.selectedHead, 0, drawn->headCount() - 1);
        attn::Model& m = built.value();
        attn::HeadWeights selected = drawn->head(job.selectedHead);
        m.Wq = std::move(selected.Wq);
        m.Wk = std::move(selected.Wk);
        m.Wv = std::move(selected.Wv);
        outcome->config = job.config;
        outcome->cells =
            job.keep ? keepUserCells(job.model, job.cells, &m, &outcome->report) : UserCells::none(m);
        outcome->params = drawn.value();
        setHeadWeights(&outcome->params, job.selectedHead, attn::HeadWeights{m.Wq, m.Wk, m.Wv});
        outcome->drawnParams = std::move(drawn.value());
        outcome->model = std::move(m);
    } else {
        outcome->model = std::move(job.model);
        outcome->params = std::move(job.params);
    }
    if (stop && *stop)
        return;
    const int h = outcome->params.headCount();
    const int n = int(outcome->model.X.rows());
    const bool update = !job.redraw && job.base && !job.recomputeHeads.empty();
    attn::MultiHeadResult start =
        update ? attn::copyMultiHeadResult(*job.base, threads) : attn::MultiHeadResult();
    outcome->multi = shareLarge(std::move(start), multiHeadBytes(h, n));
    const attn::Status status =
        update ? recomputeHeads(outcome->model.X, outcome->params, job.recomputeHeads, job.options,
                                outcome->multi.get(), threads, stop, job.recomputeParts)
               : attnlab::computeHeads(outcome->model.X, outcome->params, job.options, outcome->multi.get(),
                                       threads, stop);
    if (!status) {
        outcome->error = QString::fromStdString(status.error().message);
        outcome->multi.reset();
        return;
    }
    if (update) {
        outcome->recomputedHeads = job.recomputeHeads;
        outcome->base = job.base.get();
    }
    const int selected = std::clamp(job.selectedHead, 0, h - 1);
    outcome->selectedHead = selected;
    outcome->result =
        std::shared_ptr<attn::AttentionResult>(outcome->multi, &outcome->multi->heads[std::size_t(selected)]);
    outcome->stats = outcome->multi->stats[std::size_t(selected)];
    if (job.comparison && !(stop && *stop))
        outcome->comparison = shareLarge<const attn::ScalingComparison>(
            attn::compareScaling(*outcome->result), 2 * ResultPool::mapBytes(n));
}

}  // namespace attnlab
