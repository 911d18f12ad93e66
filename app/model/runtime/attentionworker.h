// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The session's worker: one thread serving three lanes of a LaneGroup
// (scheduler.h) by priority: requests, the look-ahead, the d_k lab. One
// request at a time, the newest replacing one not yet taken; a newer request (restart)
// or the worker's end (abort) raises a flag the engine reads before each
// panel of query rows, so a superseded computation stops within one panel.
// Every request gives exactly one finished() signal, with its outcome or
// marked cancelled, so that a dropped request can be waited for.
//
// A second, background lane runs the d_k lab (attn::runScalingLab) on the
// same thread when no attention job is waiting. Attention comes first: a
// request arriving while a lab job computes raises the lab's cancel flag
// (the lab checks it per sample), and the lab job is kept and started
// again once the attention work is done, so the lab never delays the maps.
// A newer lab request supersedes an older one; each gives exactly one
// labFinished() signal, likewise.
//
// A third lane looks ahead: a request the session expects next (after a
// seed step, the seed one step further), computed while no request waits
// and kept. A request for the same work (sameWork) takes it, finished or
// still in flight (unless the request sends a head ahead: that head comes
// sooner from a pass of its own), instead of computing it again; any other
// request drops it. A request it does not answer stops it within a panel.

#include "attentionjob.h"
#include "scheduler.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

namespace attnlab {

class ResultPool;
struct ResultSampleCache;

class AttentionWorker : public QObject {
    Q_OBJECT
public:
    using Job = AttentionJob;
    using Outcome = AttentionOutcome;

    // One d_k lab run, and what it gave.
    struct LabJob {
        quint64 generation = 0;
        attn::ScalingLabConfig config;
        int reported = 0;  // samples done last reported, kept across restarts
    };
    struct LabOutcome {
        quint64 generation = 0;
        bool cancelled = false;  // superseded before it was done; nothing else is set
        QString error;           // empty on success
        attn::ScalingLabCurves curves;
    };

    explicit AttentionWorker(std::shared_ptr<ResultPool> pool, QObject* parent = nullptr);
    ~AttentionWorker() override;  // aborts the computations in flight (both lanes) and joins

    // Hands `job` over; it supersedes the one in flight or waiting.
    void request(std::unique_ptr<Job> job);
    // Supersedes the job in flight or waiting, with no new one.
    void cancel();

    // The lab lane: hands `job` over, superseding the lab job in flight or
    // waiting; cancelLab() supersedes it with no new one.
    void requestLab(std::unique_ptr<LabJob> job);
    void cancelLab();

    // Hands over a look-ahead (a redraw: see sameWork), replacing the one
    // waiting, in flight or kept; it gives no signal of its own. Run after
    // every request, before the lab lane: a lab job in flight stops for it
    // as for a request, and starts again once the maps' work pauses.
    void lookAhead(std::unique_ptr<Job> job);
    // Drops the look-ahead waiting, in flight (unless a request took it)
    // or kept.
    void dropLookAhead();
    // Requests answered by a look-ahead so far; whether one is kept, done.
    int lookAheadsTaken() const { return aheadTaken_.load(); }
    bool lookAheadReady();

    // Threads for a large computation: the cores there are, up to 4.
    static int threads();

    // Any thread: the views have taken and painted request `generation`'s
    // preview (or will not), so the rest of its pass may have every core.
    // Until then, or kPreviewPaintWait, the worker waits after previewed().
    void previewShown(quint64 generation);
    static constexpr std::chrono::milliseconds kPreviewPaintWait{60};

signals:
    // From the worker's thread; connect it queued.
    void finished(std::shared_ptr<attnlab::AttentionWorker::Outcome> outcome);
    // From the worker's thread, queued: a multi-head request's selected
    // head, ahead of its finished() (which always follows).
    void previewed(quint64 generation, int head, std::shared_ptr<const attn::AttentionResult> result);
    // From the worker's thread, queued too. Progress of one lab request:
    // rising (a restart after an attention job reports nothing until it
    // passes what was reported) and ending at the total.
    void labProgress(quint64 generation, int done, int total);
    void labFinished(std::shared_ptr<attnlab::AttentionWorker::LabOutcome> outcome);

private:
    enum LaneIndex { kRequests = 0, kLookAhead = 1, kLab = 2 };
    std::shared_ptr<Outcome> compute(Job& job, const std::atomic<bool>& stop, int threads);
    // The lanes' jobs: each answers once (finished, labFinished) unless the
    // worker is going. runLab returns false to run again (stopped for the
    // maps' work).
    void runRequest(Job& job, const std::atomic<bool>& stop);
    void runLookAhead(Job& job, quint64 epoch);
    bool runLab(LabJob& job, quint64 sequence, const std::atomic<bool>& stop);
    // Takes the look-ahead for `job` if it computes the same: answers at
    // once with the kept outcome, or marks the one in flight as job's.
    // Under mutex_.
    bool takeLookAhead(const Job& job);
    void stopLookAhead();  // drops it unless a request took it; under mutex_
    // After a look-ahead's computation: keeps it, or answers the request
    // that took it.
    void finishLookAhead(std::shared_ptr<Outcome> outcome);

    std::shared_ptr<ResultPool> pool_;
    std::atomic<bool> quitting_{false};     // the destructor runs: nothing answers
    std::atomic<quint64> previewShown_{0};  // previewShown's last generation
    std::mutex mutex_;                      // what follows, but the atomics
    // The look-ahead: in flight or kept, a copy of the job it computes (what
    // requests are compared with); its outcome once kept; the request that
    // took it in flight (0: none). Its own stop flag, which a request that
    // took it does not set; a look-ahead posted before the last drop
    // (an older epoch) does nothing.
    std::unique_ptr<Job> aheadWork_;
    bool aheadRunning_ = false;
    std::shared_ptr<Outcome> aheadDone_;
    quint64 aheadTakenBy_ = 0;
    quint64 aheadEpoch_ = 0;
    std::atomic<bool> aheadStop_{false};
    std::atomic<int> aheadTaken_{0};
    quint64 labSequence_ = 0;  // of the newest lab request; an older one answers cancelled
    // When the last attention job ended: a lab job starts only once the maps'
    // work has paused for kLabQuiet, so that while a slider moves (a request
    // every few tens of milliseconds) the lab does not start and stop in
    // every gap, taking a core from the maps.
    static constexpr std::chrono::milliseconds kLabQuiet{300};
    std::unique_ptr<LaneGroup> lanes_;  // last: its thread ends first
};

}  // namespace attnlab
