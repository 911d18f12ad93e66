// SPDX-License-Identifier: GPL-3.0-or-later
#include "traininglabrun.h"

#include "scheduler.h"

#include <QMetaObject>

#include <mutex>
#include <utility>

namespace attnlab {

// Shared by the GUI thread and the job thread, under `mutex`.
struct TrainingLabRun::Control {
    std::mutex mutex;
    quint64 generation = 0;                           // of the current lab; reset() raises it
    bool play = false;                                // train until the last step
    int pendingSteps = 0;                             // single steps asked for and not yet done
    bool jobActive = false;                           // a job of this generation is posted or running
    std::shared_ptr<const TrainingSnapshot> pending;  // not yet taken by the GUI thread
    quint64 pendingGeneration = 0;
    bool posted = false;  // a take() is queued on the GUI thread
};

TrainingLabRun::TrainingLabRun(QObject* parent)
    : QObject(parent),
      control_(std::make_shared<Control>()),
      thread_(std::make_unique<JobLane>(JobLane::Policy::Latest, "training"))
{
    pending_ = settings_;
    reset();
}

TrainingLabRun::~TrainingLabRun()
{
    {
        // The job stops at its next step and publishes nothing more.
        std::lock_guard<std::mutex> lock(control_->mutex);
        ++control_->generation;
    }
    thread_.reset();
}

attn::Status TrainingLabRun::setSettings(const attn::TrainingSettings& settings)
{
    const attn::Status valid = attn::validateTrainingSettings(settings);
    if (!valid) {
        emit failed(QString::fromStdString(valid.error().message));
        return valid;
    }
    pending_ = settings;
    return valid;
}

namespace {

bool sameSettings(const attn::TrainingSettings& a, const attn::TrainingSettings& b)
{
    const attn::TrainingTask &s = a.task, &t = b.task;
    return s.nKeys == t.nKeys && s.dModel == t.dModel && s.classes == t.classes && s.beta == t.beta
           && s.batch == t.batch && s.queryNoise == t.queryNoise && a.dK == b.dK && a.steps == b.steps
           && a.seed == b.seed && a.optimizer == b.optimizer && a.learningRate == b.learningRate
           && a.adamBeta1 == b.adamBeta1 && a.adamBeta2 == b.adamBeta2 && a.adamEps == b.adamEps
           && a.customDivisor == b.customDivisor;
}

}  // namespace

bool TrainingLabRun::settingsPending() const
{
    return !sameSettings(settings_, pending_);
}

std::shared_ptr<const TrainingSnapshot> TrainingLabRun::makeSnapshot(const attn::TrainingLab& lab)
{
    auto s = std::make_shared<TrainingSnapshot>();
    s->settings = lab.settings();
    s->stepsDone = lab.stepsDone();
    s->finished = lab.finished();
    s->curves = lab.curves();
    for (int r = 0; r < int(s->curves.size()); ++r)
        s->probeAttention.push_back(lab.probeAttention(r));
    s->probeTargets = lab.probes().targets;
    return s;
}

void TrainingLabRun::start()
{
    {
        std::lock_guard<std::mutex> lock(control_->mutex);
        if (snapshot_->finished)
            return;
        control_->play = true;
    }
    setRunning(true);
    postJob();
}

void TrainingLabRun::pause()
{
    {
        std::lock_guard<std::mutex> lock(control_->mutex);
        control_->play = false;
        control_->pendingSteps = 0;
    }
    setRunning(false);
}

void TrainingLabRun::step()
{
    {
        std::lock_guard<std::mutex> lock(control_->mutex);
        if (control_->play || snapshot_->finished)
            return;
        ++control_->pendingSteps;
    }
    postJob();
}

void TrainingLabRun::reset()
{
    {
        std::lock_guard<std::mutex> lock(control_->mutex);
        ++control_->generation;
        control_->play = false;
        control_->pendingSteps = 0;
        control_->jobActive = false;  // the old job, if any, ends at its next step
        control_->pending.reset();
    }
    jobActive_ = false;
    settings_ = pending_;
    // A new lab: the old job keeps its own until it ends.
    lab_ = std::make_shared<attn::TrainingLab>(settings_, kProbes);
    snapshot_ = makeSnapshot(*lab_);
    setRunning(false);
    emit snapshotReady();
}

void TrainingLabRun::postJob()
{
    quint64 generation = 0;
    {
        std::lock_guard<std::mutex> lock(control_->mutex);
        if (control_->jobActive)
            return;  // the job in flight sees the new play or step
        control_->jobActive = true;
        generation = control_->generation;
    }
    jobActive_ = true;
    // The job publishes under the mutex and only while its generation is
    // current; the destructor raises it before joining, so `this` outlives
    // every call the job queues (and Qt drops those left at destruction).
    const std::shared_ptr<Control> control = control_;
    const std::shared_ptr<attn::TrainingLab> lab = lab_;
    // A newer job is posted only once this one has left its loop, or after a
    // reset, which the generation tells; the stop flag adds nothing.
    thread_->post([this, control, lab, generation](const std::atomic<bool>&) {
        // Called with the mutex held.
        const auto publishLocked = [&](std::shared_ptr<const TrainingSnapshot> snapshot) {
            control->pending = std::move(snapshot);
            control->pendingGeneration = generation;
            if (!control->posted) {
                control->posted = true;
                QMetaObject::invokeMethod(this, &TrainingLabRun::take, Qt::QueuedConnection);
            }
        };
        auto last = std::chrono::steady_clock::now();
        for (;;) {
            {
                std::lock_guard<std::mutex> lock(control->mutex);
                if (control->generation != generation)
                    return;
                if (lab->finished() || !(control->play || control->pendingSteps > 0)) {
                    // The last snapshot is pending before the job is seen as
                    // ended, under one lock: a take() of an earlier snapshot
                    // must not find the job ended and emit stopped() early.
                    publishLocked(makeSnapshot(*lab));
                    control->jobActive = false;
                    control->play = false;
                    return;
                }
                if (!control->play)
                    --control->pendingSteps;
            }
            lab->step();
            const auto now = std::chrono::steady_clock::now();
            if (now - last >= kPublishInterval) {
                last = now;
                auto snapshot = makeSnapshot(*lab);
                std::lock_guard<std::mutex> lock(control->mutex);
                if (control->generation != generation)
                    return;
                publishLocked(std::move(snapshot));
            }
        }
    });
}

void TrainingLabRun::take()
{
    std::shared_ptr<const TrainingSnapshot> snapshot;
    bool active = false;
    {
        std::lock_guard<std::mutex> lock(control_->mutex);
        control_->posted = false;
        if (control_->pending && control_->pendingGeneration == control_->generation)
            snapshot = std::move(control_->pending);
        control_->pending.reset();
        active = control_->jobActive;
    }
    if (!snapshot)
        return;
    snapshot_ = std::move(snapshot);
    jobActive_ = active;
    if (!active)
        setRunning(false);
    emit snapshotReady();
    if (!active)
        emit stopped();
}

void TrainingLabRun::setRunning(bool running)
{
    if (running_ == running)
        return;
    running_ = running;
    emit runningChanged(running);
}

}  // namespace attnlab
