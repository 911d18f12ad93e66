// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The d_k lab's state: its configuration, the last curves (or why there are
// none), whether they are being computed and how far. The computation is
// attn::runScalingLab in the lab lane of an AttentionWorker (the session's,
// so that the maps' work comes first; see AttentionWorker), one request at a
// time: a newer compute() supersedes an older one, whose outcome is dropped
// (requestDropped()). ScalingLabView draws what this holds.

#include "attentionworker.h"
#include "scaling_lab.h"

#include <QObject>
#include <QString>

#include <memory>

namespace attnlab {

class ScalingLabRun : public QObject {
    Q_OBJECT
public:
    // Runs through `worker`, which must outlive this object.
    explicit ScalingLabRun(AttentionWorker* worker, QObject* parent = nullptr);
    // Runs through a worker of its own, started on the first compute() (a
    // view made alone: the command line's plots, tests).
    explicit ScalingLabRun(QObject* parent = nullptr);
    ~ScalingLabRun() override;  // supersedes its request in flight

    // The configuration of the curves shown or being computed.
    const attn::ScalingLabConfig& config() const { return config_; }
    const attn::ScalingLabCurves& curves() const { return curves_; }
    bool hasCurves() const { return !curves_.dK.empty(); }
    // The grid index whose d_k is nearest to dK on the log axis; -1 without
    // curves or for dK <= 0.
    int nearestIndex(double dK) const;
    // Why the last computation gave no curves; empty after success.
    QString error() const { return error_; }

    // Starts computing `config`, superseding a computation in progress;
    // emits started() now, then progressChanged() and curvesReady() or
    // failed(). The previous curves stay until then.
    void compute(const attn::ScalingLabConfig& config);
    // Computes config() when there are no curves and none is running.
    void prefetch();
    // Finished curves from elsewhere (the command line's run): shown as if
    // computed, superseding a computation in progress; the configuration
    // follows them. Emits curvesReady().
    void setCurves(const attn::ScalingLabCurves& curves);

    bool isComputing() const { return computing_; }
    // Samples done and in all of the computation in progress (0 and the
    // configuration's samples when it starts).
    int progressDone() const { return done_; }
    int progressTotal() const { return total_; }

signals:
    void started();
    void progressChanged(int done, int total);
    void curvesReady();
    void failed(const QString& message);
    // A request to the worker will never give curves: a newer one or
    // setCurves() superseded it. Once per superseded request.
    void requestDropped();

private:
    void connectWorker();
    void supersede();
    void showProgress(quint64 generation, int done, int total);
    void deliver(const std::shared_ptr<AttentionWorker::LabOutcome>& outcome);

    std::unique_ptr<AttentionWorker> ownWorker_;  // without the session's
    AttentionWorker* worker_ = nullptr;
    attn::ScalingLabConfig config_;
    attn::ScalingLabCurves curves_;
    QString error_;
    quint64 generation_ = 0;  // of the newest request; older outcomes are stale
    bool computing_ = false;
    int done_ = 0;
    int total_ = 0;
};

}  // namespace attnlab
