// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The training lab's run (issue 18): one attn::TrainingLab stepped on a
// thread of its own (a Latest JobLane, as ModelSession's runner), never on
// the GUI thread. start() trains until the last step or pause(); step()
// adds exactly one step; reset() drops the lab (cancelling a job in flight
// at its next step) and starts a new one at step 0 with the settings last
// given to setSettings(), which take effect only there.
//
// While training, the thread publishes a TrainingSnapshot (an immutable copy
// of the curves and of the probes' attention) every kPublishInterval and when
// it stops. Publishing is coalesced: a newer snapshot replaces one the GUI
// thread has not taken yet, so at most one is ever queued. Each reaches the
// GUI thread as snapshotReady(); a snapshot of a lab since reset is dropped.

#include "matrix.h"
#include "training_lab.h"

#include <QObject>
#include <QString>

#include <chrono>
#include <memory>
#include <vector>

namespace attnlab {

class JobLane;

struct TrainingSnapshot {
    attn::TrainingSettings settings;
    int stepsDone = 0;
    bool finished = false;
    std::vector<attn::TrainingRunCurves> curves;  // one per run: scaled, unscaled, custom
    std::vector<attn::Matrix> probeAttention;     // per run: (probes, nKeys)
    std::vector<int> probeTargets;                // each probe's target key t
};

class TrainingLabRun : public QObject {
    Q_OBJECT
public:
    static constexpr std::chrono::milliseconds kPublishInterval{50};
    static constexpr int kProbes = 4;

    explicit TrainingLabRun(QObject* parent = nullptr);
    ~TrainingLabRun() override;  // cancels the job in flight and joins

    // The settings of the lab shown, and those the next reset() takes.
    const attn::TrainingSettings& settings() const { return settings_; }
    const attn::TrainingSettings& pendingSettings() const { return pending_; }
    // Checked first: invalid settings are refused with the reason (also
    // emitted as failed()) and the pending ones are kept.
    attn::Status setSettings(const attn::TrainingSettings& settings);
    bool settingsPending() const;  // given settings differ from the lab's

    void start();
    void pause();
    void step();
    void reset();

    bool isRunning() const { return running_; }  // started and not paused or finished
    bool isBusy() const { return jobActive_; }   // a job in flight, playing or stepping
    // The newest snapshot delivered (never null: reset() makes the one of step 0).
    std::shared_ptr<const TrainingSnapshot> snapshot() const { return snapshot_; }

signals:
    void snapshotReady();
    void runningChanged(bool running);
    // The job stopped (paused, its steps done or the last step reached) and
    // its last snapshot is delivered.
    void stopped();
    void failed(const QString& message);

private:
    struct Control;
    void postJob();
    void take();  // on the GUI thread: the pending snapshot, if it is current
    static std::shared_ptr<const TrainingSnapshot> makeSnapshot(const attn::TrainingLab& lab);
    void setRunning(bool running);

    attn::TrainingSettings settings_;
    attn::TrainingSettings pending_;
    std::shared_ptr<Control> control_;
    std::shared_ptr<attn::TrainingLab> lab_;  // touched by the job thread only while a job runs
    std::shared_ptr<const TrainingSnapshot> snapshot_;
    bool running_ = false;
    bool jobActive_ = false;
    std::unique_ptr<JobLane> thread_;  // last: joined first
};

}  // namespace attnlab
