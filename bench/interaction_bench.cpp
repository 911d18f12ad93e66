// SPDX-License-Identifier: GPL-3.0-or-later
// Interaction benchmark: a d_k slider step on the real window until every
// visible heatmap has painted the new result, and the longest stretch the GUI
// thread spent without returning to its event loop meanwhile.
//
// A step counts as shown once the session has delivered a result for the
// requested d_k and every heatmap that is visible on screen has received a
// paint event after that; the step ends when the event loop next runs a zero
// timer, i.e. after those paints have finished.

#include "interaction_bench.h"

#include "benchutil.h"
#include "heatmapview.h"
#include "mainwindow.h"
#include "parameterpanel.h"
#include "session.h"

#include <QAbstractSlider>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QPointer>
#include <QSet>
#include <QSlider>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Largest gap between the ticks of a 1 ms timer: how long the GUI thread was
// away from its event loop.
class Heartbeat : public QObject {
public:
    Heartbeat()
    {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(1);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            const Clock::time_point now = Clock::now();
            maxGapMs_ = std::max(maxGapMs_, std::chrono::duration<double, std::milli>(now - last_).count());
            last_ = now;
        });
    }
    void start()
    {
        last_ = Clock::now();
        maxGapMs_ = 0;
        timer_.start();
    }
    double stop()
    {
        timer_.stop();
        return std::max(maxGapMs_, msSince(last_));
    }

private:
    QTimer timer_;
    Clock::time_point last_;
    double maxGapMs_ = 0;
};

// Watches the heatmaps for paint events after the session's last result.
// The maps that must paint are those visible when the step starts; finding
// them (visibleRegion walks the widget tree) is done once per step, outside
// the measured loop's hot path, so that the watch itself costs next to
// nothing while the step runs.
class PaintWatch : public QObject {
public:
    explicit PaintWatch(attnlab::MainWindow* window) : window_(window)
    {
        maps_ = window->findChildren<attnlab::HeatmapView*>();
        for (attnlab::HeatmapView* map : std::as_const(maps_))
            map->installEventFilter(this);
        QObject::connect(window->session(), &attnlab::Session::resultChanged, this, [this] {
            delivered_ = true;
            deliveredAt_ = Clock::now();
            painted_.clear();
        });
    }

    void arm()
    {
        armedAt_ = Clock::now();
        delivered_ = false;
        painted_.clear();
        visible_.clear();
        for (attnlab::HeatmapView* map : std::as_const(maps_)) {
            if (map->isVisible() && !map->visibleRegion().isEmpty())
                visible_.append(map);
        }
    }

    // The result for the requested d_k is in and every visible map painted it.
    bool done() const
    {
        const attnlab::Session* s = window_->session();
        if (!delivered_ || s->isComputing() || s->resultDK() != s->config().dK)
            return false;
        for (attnlab::HeatmapView* map : visible_) {
            if (!painted_.contains(map))
                return false;
        }
        return true;
    }

    int visibleMaps() const { return int(visible_.size()); }
    // From arm() to the last result's resultChanged (connected after the
    // window's own slots, so after the views took the result in): the rest
    // of a step is painting.
    double deliveredMs() const
    {
        return std::chrono::duration<double, std::milli>(deliveredAt_ - armedAt_).count();
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Paint && delivered_)
            painted_.insert(watched);
        return false;
    }

private:
    attnlab::MainWindow* window_;
    QList<attnlab::HeatmapView*> maps_;
    QList<attnlab::HeatmapView*> visible_;  // at arm()
    bool delivered_ = false;
    Clock::time_point armedAt_, deliveredAt_;
    QSet<QObject*> painted_;
};

// Runs the event loop until `watch` is done (checked every millisecond, so
// after any paint in progress has finished) or `timeoutMs` passes. Returns
// false on timeout.
bool waitShown(const PaintWatch& watch, int timeoutMs)
{
    QEventLoop loop;
    // A 1 ms poll, not a zero timer: a zero timer would keep the GUI thread
    // busy and take a core from the worker threads it is waiting for.
    QTimer poll;
    poll.setTimerType(Qt::PreciseTimer);
    poll.setInterval(1);
    bool shown = false;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (watch.done()) {
            shown = true;
            loop.quit();
        }
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    poll.start();
    loop.exec();
    return shown;
}

void settle(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

}  // namespace

void runInteractionBench(const std::vector<int>& sizes, int runs)
{
    attnlab::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    settle(200);
    attnlab::Session* session = window.session();
    QSlider* slider = window.parameterPanel()->dKSlider();

    for (int n : sizes) {
        attn::ModelConfig config;
        std::string sentence;
        for (int i = 0; i < n; ++i)
            sentence += (i ? " t" : "t") + std::to_string(i);
        config.sentence = sentence;
        config.dModel = 64;
        config.dK = 64;
        config.dV = 64;
        config.init = attn::InitMode::UnitVariance;
        PaintWatch watch(&window);
        watch.arm();
        session->setParameters(config, attn::AttentionOptions());
        if (!waitShown(watch, 60000)) {
            std::printf("{\"case\":\"interaction_dk_step\",\"n\":%d,\"error\":\"setup timed out\"}\n", n);
            continue;
        }
        settle(100);

        // Single steps, alternately up and down (64 <-> the next grid d_k),
        // with the event loop idle in between as between two key presses.
        std::vector<double> ms, deliveredMs;
        double maxBlock = 0;
        int timeouts = 0;
        Heartbeat heartbeat;
        // Fewer steps at 4096 tokens, where one takes a quarter of a second;
        // at 2048 the full count, so that the p95 is one (with 10 steps it
        // was the largest).
        const int sizeRuns = n >= 4096 ? std::max(5, runs / 4) : runs;
        for (int i = 0; i < sizeRuns; ++i) {
            watch.arm();
            heartbeat.start();
            const Clock::time_point t0 = Clock::now();
            slider->triggerAction(i % 2 == 0 ? QAbstractSlider::SliderSingleStepAdd
                                             : QAbstractSlider::SliderSingleStepSub);
            const bool shown = waitShown(watch, 10000);
            const double elapsed = msSince(t0);
            maxBlock = std::max(maxBlock, heartbeat.stop());
            if (shown) {
                ms.push_back(elapsed);
                deliveredMs.push_back(watch.deliveredMs());
            } else
                ++timeouts;
            settle(30);
        }
        const Timing t = summarise(ms);
        printCase("interaction_dk_step", n, session->resultDK(), t,
                  "\"delivered_median_ms\":" + std::to_string(summarise(deliveredMs).medianMs)
                      + ",\"visible_maps\":" + std::to_string(watch.visibleMaps()) + ",\"max_gui_block_ms\":"
                      + std::to_string(maxBlock) + ",\"timeouts\":" + std::to_string(timeouts));

        // A continuous drag: a step every 5 ms for about a second, then wait
        // for the display to catch up. The result shown must be the last
        // request's.
        {
            const int steps = 200;
            int stepsDone = 0;
            bool up = true;
            watch.arm();
            heartbeat.start();
            const Clock::time_point t0 = Clock::now();
            QEventLoop loop;
            QTimer stepper;
            stepper.setTimerType(Qt::PreciseTimer);
            stepper.setInterval(5);
            QObject::connect(&stepper, &QTimer::timeout, &loop, [&] {
                // Up four grid steps, then down four, and so on.
                if (stepsDone % 4 == 0 && stepsDone > 0)
                    up = !up;
                slider->triggerAction(up ? QAbstractSlider::SliderSingleStepAdd
                                         : QAbstractSlider::SliderSingleStepSub);
                if (++stepsDone >= steps) {
                    stepper.stop();
                    loop.quit();
                }
            });
            stepper.start();
            loop.exec();
            const double dragMs = msSince(t0);
            const int lastRequested = session->config().dK;
            const Clock::time_point tEnd = Clock::now();
            const bool caughtUp = waitShown(watch, 30000);
            const double catchUp = msSince(tEnd);
            const double block = heartbeat.stop();
            Timing d;
            d.medianMs = d.p95Ms = catchUp;
            d.runs = 1;
            printCase("interaction_dk_drag", n, lastRequested, d,
                      "\"steps\":" + std::to_string(steps) + ",\"drag_ms\":" + std::to_string(dragMs)
                          + ",\"max_gui_block_ms\":" + std::to_string(block) + ",\"last_shown\":"
                          + (caughtUp && session->resultDK() == lastRequested ? "true" : "false"));
        }
        settle(100);
    }
}

}  // namespace bench
