// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the window cases measure with: the GUI thread's longest absence from
// its event loop (Heartbeat), and when every visible map (a heatmap or the
// head grid) has painted the session's newest result (PaintWatch).

#include "headgridview.h"
#include "heatmapview.h"
#include "mainwindow.h"
#include "session.h"

#include <QEventLoop>
#include <QList>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>

namespace bench {

using Clock = std::chrono::steady_clock;

// "t0 t1 … t<n-1>": n distinct tokens.
inline std::string numberedSentence(int n)
{
    std::string sentence;
    for (int i = 0; i < n; ++i)
        sentence += (i ? " t" : "t") + std::to_string(i);
    return sentence;
}

inline double msSince(Clock::time_point t0)
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
        for (attnlab::HeatmapView* map : window->findChildren<attnlab::HeatmapView*>())
            maps_.append(map);
        for (attnlab::HeadGridView* grid : window->findChildren<attnlab::HeadGridView*>())
            maps_.append(grid);
        for (QWidget* map : std::as_const(maps_))
            map->installEventFilter(this);
        QObject::connect(window->session(), &attnlab::Session::resultChanged, this, [this] {
            delivered_ = true;
            deliveredAt_ = Clock::now();
            painted_.clear();
        });
        // The selected head ahead of the rest (Session::preview): its maps
        // show it; the head grid waits for the whole result.
        QObject::connect(window->session(), &attnlab::Session::previewChanged, this, [this] {
            if (!window_->session()->requests().preview())
                return;
            delivered_ = true;
            previewedAt_ = Clock::now();
            painted_.clear();
        });
    }

    void arm()
    {
        armedAt_ = Clock::now();
        delivered_ = false;
        painted_.clear();
        visible_.clear();
        for (QWidget* map : std::as_const(maps_)) {
            if (map->isVisible() && !map->visibleRegion().isEmpty())
                visible_.append(map);
        }
    }

    // The result for the requested d_k is in and every visible map painted it.
    bool done() const
    {
        const attnlab::Session* s = window_->session();
        if (!delivered_ || s->isComputing() || s->published()->dK() != s->inputs().config.dK)
            return false;
        for (QWidget* map : visible_) {
            if (!painted_.contains(map))
                return false;
        }
        return true;
    }

    // What the visible maps show is the newest request's: done(), or its
    // preview is out, no visible map waits for the other heads (the grid
    // does; the Heads tab's concatenation never paints the preview, so
    // there shown() waits for done()) and every visible map painted it.
    bool shown() const
    {
        if (done())
            return true;
        const attnlab::Session* s = window_->session();
        if (!delivered_ || !s->isComputing() || !s->requests().preview()
            || s->requests().preview()->Q.cols() != s->inputs().config.dK)
            return false;
        for (QWidget* map : visible_) {
            if (qobject_cast<attnlab::HeadGridView*>(map) || !painted_.contains(map))
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
    QList<QWidget*> maps_;     // the heatmaps and the head grid
    QList<QWidget*> visible_;  // at arm()
    bool delivered_ = false;
    Clock::time_point armedAt_, deliveredAt_, previewedAt_;
    QSet<QObject*> painted_;
};

// Runs the event loop until `done()` holds (checked every millisecond, so
// after any paint in progress has finished) or `timeoutMs` passes. Returns
// false on timeout.
inline bool waitUntil(const std::function<bool()>& done, int timeoutMs)
{
    QEventLoop loop;
    // A 1 ms poll, not a zero timer: a zero timer would keep the GUI thread
    // busy and take a core from the worker threads it is waiting for.
    QTimer poll;
    poll.setTimerType(Qt::PreciseTimer);
    poll.setInterval(1);
    bool ok = false;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (done()) {
            ok = true;
            loop.quit();
        }
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    poll.start();
    loop.exec();
    return ok;
}

// Until `watch` is done.
inline bool waitShown(const PaintWatch& watch, int timeoutMs)
{
    return waitUntil([&] { return watch.done(); }, timeoutMs);
}

inline void settle(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

}  // namespace bench
