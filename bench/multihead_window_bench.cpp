// SPDX-License-Identifier: GPL-3.0-or-later
#include "multihead_window_bench.h"

#include "attentionworker.h"
#include "benchutil.h"
#include "documentcontroller.h"
#include "headspanel.h"
#include "labdocument.h"
#include "matrixtablemodel.h"
#include "multihead.h"
#include "parameterpanel.h"
#include "windowwatch.h"

#include <QSpinBox>
#include <QStyle>
#include <QTabWidget>
#include <QFileInfo>
#include <QTemporaryDir>

#include <string>
#include <tuple>

namespace bench {

namespace {

// The engine's pass over the session's own parameters, with the worker's threads.
Timing enginePass(const attnlab::Session& session)
{
    const attn::Matrix x = session.inputs().matrix(attnlab::MatrixId::X);
    const attnlab::Session* s = &session;
    attn::MultiHeadResult result;
    std::vector<double> ms;
    for (int i = 0; i < 7; ++i) {
        const Clock::time_point t0 = Clock::now();
        attn::computeMultiHeadInto(x, s->inputs().multiHead.split, s->inputs().options, &result,
                                   attnlab::AttentionWorker::threads());
        ms.push_back(msSince(t0));
    }
    return summarise(ms);
}

struct Steps {
    Timing timing;    // until the visible maps show the step (PaintWatch::shown)
    Timing complete;  // until every head, the average and the output are in too
    double maxBlock = 0;
    double callMs = 0;  // median time in the edit's own call (the GUI thread's part before the worker)
    int timeouts = 0;
};

// `step` done `runs` times, each until shown, the event loop idle in
// between: 30 ms, or with `paceMs` until that long after the step began
// (at once if it took longer).
template <typename Step>
Steps measure(PaintWatch& watch, int runs, Step step, int paceMs = 0)
{
    Steps out;
    std::vector<double> ms, completeMs, callMs;
    Heartbeat heartbeat;
    for (int i = 0; i < runs; ++i) {
        watch.arm();
        heartbeat.start();
        const Clock::time_point t0 = Clock::now();
        step(i);
        callMs.push_back(msSince(t0));
        const bool shown = waitUntil([&] { return watch.shown(); }, 30000);
        const double shownMs = msSince(t0);
        const bool complete = shown && waitShown(watch, 30000);
        const double elapsed = msSince(t0);
        out.maxBlock = std::max(out.maxBlock, heartbeat.stop());
        if (complete) {
            ms.push_back(shownMs);
            completeMs.push_back(elapsed);
        } else {
            ++out.timeouts;
        }
        settle(paceMs > 0 ? std::max(1, int(paceMs - msSince(t0))) : 30);
    }
    out.timing = summarise(ms);
    out.complete = summarise(completeMs);
    out.callMs = summarise(callMs).medianMs;
    return out;
}

// The autosave of the lab just edited: autosave() as the timer called it
// until 2026-12-03 (its whole time blocks the GUI thread: the baseline),
// against the timer's autosaveInBackground, whose GUI-thread part is the
// state's copy (median_ms/p95_ms: the longest the GUI thread went
// unanswered until the file was written; target 50 ms).
void measureAutosave(attnlab::MainWindow* window, int n, int d)
{
    attnlab::LabDocument* doc = window->documents()->document();
    if (!doc->isModified()) {
        std::printf("{\"case\":\"mh_window_autosave\",\"n\":%d,\"error\":\"the lab is not modified\"}\n", n);
        return;
    }
    QTemporaryDir folder;
    doc->setAutosaveFolder(folder.path());
    std::vector<double> syncMs, blockMs, writtenMs;
    Heartbeat heartbeat;
    int failures = 0;
    for (int i = 0; i < 5; ++i) {
        Clock::time_point t0 = Clock::now();
        failures += !doc->autosave();
        syncMs.push_back(msSince(t0));
        settle(30);
        heartbeat.start();
        t0 = Clock::now();
        doc->autosaveInBackground();
        const bool done = waitUntil([doc] { return !doc->autosaveInFlight(); }, 30000);
        writtenMs.push_back(msSince(t0));
        blockMs.push_back(heartbeat.stop());
        failures += !done;
        settle(30);
    }
    const Timing sync = summarise(syncMs);
    printCase("mh_window_autosave", n, d, summarise(blockMs),
              "\"heads\":" + std::to_string(window->session()->published()->headCount())
                  + ",\"target_ms\":50,\"baseline_sync_median_ms\":" + std::to_string(sync.medianMs)
                  + ",\"baseline_sync_p95_ms\":" + std::to_string(sync.p95Ms)
                  + ",\"written_median_ms\":" + std::to_string(summarise(writtenMs).medianMs)
                  + ",\"failures\":" + std::to_string(failures)
                  + ",\"bytes\":" + std::to_string(QFileInfo(doc->autosavePath()).size()));
    doc->closeCleanly();
}

}  // namespace

void runMultiHeadWindowBench(const std::vector<int>& sizes, int d, int heads, int runs)
{
    attnlab::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    settle(200);
    attnlab::Session* session = window.session();
    auto* wq = window.findChild<attnlab::MatrixTableModel*>(QStringLiteral("matrixModelWq"));
    QSpinBox* seed = window.findChild<QSpinBox*>(QStringLiteral("seedSpin"));
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("mapsTabs"));
    auto* headsPanel = window.findChild<attnlab::HeadsPanel*>(QStringLiteral("headsPanel"));
    for (int n : sizes) {
        attn::ModelConfig config;
        config.sentence = numberedSentence(n);
        config.dModel = d;
        config.init = attn::InitMode::UnitVariance;
        attn::HeadsConfig h;
        h.heads = heads;
        h.layout = attn::HeadLayout::Split;
        PaintWatch watch(&window);
        watch.arm();
        session->setParameters(config, attn::AttentionOptions(), h);
        if (!waitShown(watch, 120000)) {
            std::printf("{\"case\":\"mh_window_cell_edit\",\"n\":%d,\"error\":\"setup timed out\"}\n", n);
            continue;
        }
        settle(100);
        const Timing engine = enginePass(*session);
        const int sizeRuns = n >= 2048 ? std::max(5, runs / 4) : runs;
        for (const bool gridShown : {false, true}) {
            for (int t = 0; t < tabs->count(); ++t) {
                QWidget* page = tabs->widget(t);
                const bool holdsGrid = page == headsPanel || page->isAncestorOf(headsPanel);
                if (gridShown ? holdsGrid : t == 0) {
                    tabs->setCurrentIndex(t);
                    break;
                }
            }
            settle(300);
            const std::string view = gridShown ? "heads_tab" : "pipeline";
            // A cell typed into the selected head's W_q, alternately two values.
            // (Other values in each view: the same value again changes nothing.)
            const double value = gridShown ? 0.375 : 0.25;
            const Steps edit = measure(watch, sizeRuns, [&](int i) {
                wq->setData(wq->index(i % 7, i % 5), QString::number(i % 2 ? value : -value), Qt::EditRole);
            });
            // The seed stepped up as the spin box's arrow steps it, held
            // down: one step, the next SH_SpinBox_ClickAutoRepeatThreshold
            // later, then one every SH_SpinBox_ClickAutoRepeatRate (or as
            // soon as the last is complete). Baseline: the same steps
            // without the session's look-ahead. With it, the first step of
            // a run is never looked ahead: it is measured alone
            // (first_step_ms), the rest as the case.
            const QStyle* style = seed->style();
            const int pace = style->styleHint(QStyle::SH_SpinBox_ClickAutoRepeatRate, nullptr, seed);
            const int threshold =
                style->styleHint(QStyle::SH_SpinBox_ClickAutoRepeatThreshold, nullptr, seed);
            const auto stepUp = [&](int) { seed->stepBy(1); };
            session->requests().setLookAheadWanted(false);
            const Steps cold = measure(watch, sizeRuns, stepUp, pace);
            session->requests().setLookAheadWanted(true);
            const Steps first = measure(watch, 1, stepUp, threshold);
            const int takenBefore = session->requests().lookAheadsTaken();
            const Steps step = measure(watch, sizeRuns, stepUp, pace);
            const int taken = session->requests().lookAheadsTaken() - takenBefore;
            const std::string stepExtra =
                ",\"pace_ms\":" + std::to_string(pace) + ",\"threshold_ms\":" + std::to_string(threshold)
                + ",\"baseline_median_ms\":" + std::to_string(cold.timing.medianMs)
                + ",\"baseline_p95_ms\":" + std::to_string(cold.timing.p95Ms) + ",\"first_step_ms\":"
                + std::to_string(first.timing.medianMs) + ",\"looked_ahead\":" + std::to_string(taken);
            for (const auto& [name, s, extra] :
                 {std::tuple<const char*, const Steps&, std::string>{"mh_window_cell_edit", edit, ""},
                  {"mh_window_seed_step", step, stepExtra}})
                printCase(name, n, d, s.timing,
                          "\"heads\":" + std::to_string(heads) + ",\"view\":\"" + view
                              + "\",\"engine_ms\":" + std::to_string(engine.medianMs)
                              + ",\"ratio\":" + std::to_string(s.timing.medianMs / engine.medianMs)
                              + ",\"complete_median_ms\":" + std::to_string(s.complete.medianMs)
                              + ",\"complete_p95_ms\":" + std::to_string(s.complete.p95Ms)
                              + ",\"max_gui_block_ms\":" + std::to_string(s.maxBlock) + ",\"call_ms\":"
                              + std::to_string(s.callMs) + ",\"timeouts\":" + std::to_string(s.timeouts)
                              + ",\"visible_maps\":" + std::to_string(watch.visibleMaps()) + extra);
        }
        tabs->setCurrentIndex(0);
        settle(100);
        measureAutosave(&window, n, d);
    }
}

}  // namespace bench
