// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalinglabrun.h"

#include "resultpool.h"

#include <cmath>

namespace attnlab {

ScalingLabRun::ScalingLabRun(AttentionWorker* worker, QObject* parent) : QObject(parent), worker_(worker)
{
    connectWorker();
}

ScalingLabRun::ScalingLabRun(QObject* parent)
    : QObject(parent), ownWorker_(std::make_unique<AttentionWorker>(std::make_shared<ResultPool>()))
{
    worker_ = ownWorker_.get();
    connectWorker();
}

ScalingLabRun::~ScalingLabRun()
{
    // The worker's signals to this object die with it (Qt drops queued
    // calls to a deleted receiver); its own worker, if any, joins after.
    if (computing_)
        worker_->cancelLab();
}

void ScalingLabRun::connectWorker()
{
    connect(worker_, &AttentionWorker::labProgress, this, &ScalingLabRun::showProgress, Qt::QueuedConnection);
    connect(worker_, &AttentionWorker::labFinished, this, &ScalingLabRun::deliver, Qt::QueuedConnection);
}

void ScalingLabRun::supersede()
{
    ++generation_;
    if (computing_)
        worker_->cancelLab();
    computing_ = false;
}

void ScalingLabRun::compute(const attn::ScalingLabConfig& config)
{
    supersede();
    config_ = config;
    auto job = std::make_unique<AttentionWorker::LabJob>();
    job->generation = generation_;
    job->config = config;
    computing_ = true;
    done_ = 0;
    total_ = config.samples;
    worker_->requestLab(std::move(job));
    emit started();
}

void ScalingLabRun::prefetch()
{
    if (!hasCurves() && !computing_)
        compute(config_);
}

void ScalingLabRun::setCurves(const attn::ScalingLabCurves& curves)
{
    supersede();
    curves_ = curves;
    error_.clear();
    config_.nKeys = curves.nKeys;
    config_.samples = curves.samples;
    config_.seed = curves.seed;
    config_.dks = curves.dK;
    emit curvesReady();
}

int ScalingLabRun::nearestIndex(double dK) const
{
    if (curves_.dK.empty() || !(dK > 0))
        return -1;
    const double target = std::log(dK);
    int best = 0;
    for (int g = 1; g < int(curves_.size()); ++g)
        if (std::abs(std::log(double(curves_.dK[g])) - target)
            < std::abs(std::log(double(curves_.dK[best])) - target))
            best = g;
    return best;
}

void ScalingLabRun::showProgress(quint64 generation, int done, int total)
{
    if (generation != generation_ || !computing_ || total <= 0)
        return;
    done_ = done;
    total_ = total;
    emit progressChanged(done, total);
}

void ScalingLabRun::deliver(const std::shared_ptr<AttentionWorker::LabOutcome>& outcome)
{
    if (outcome->cancelled || outcome->generation != generation_ || !computing_) {
        emit requestDropped();
        return;
    }
    computing_ = false;
    if (!outcome->error.isEmpty()) {
        error_ = outcome->error;
        emit failed(error_);
        return;
    }
    curves_ = std::move(outcome->curves);
    error_.clear();
    emit curvesReady();
}

}  // namespace attnlab
