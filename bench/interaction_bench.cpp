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
#include "windowwatch.h"
#include "heatmapview.h"
#include "mainwindow.h"
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

void runInteractionBench(const std::vector<int>& sizes, int runs)
{
    attnlab::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    settle(200);
    attnlab::Session* session = window.session();
    auto* slider = window.findChild<QSlider*>(QStringLiteral("dKSlider"));

    for (int n : sizes) {
        attn::ModelConfig config;
        config.sentence = numberedSentence(n);
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
        printCase("interaction_dk_step", n, session->published()->dK(), t,
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
            const int lastRequested = session->inputs().config.dK;
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
                          + (caughtUp && session->published()->dK() == lastRequested ? "true" : "false"));
        }
        settle(100);
    }
}

}  // namespace bench
