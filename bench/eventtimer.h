// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What blocks the GUI thread: an application that times every event it
// delivers and prints, on stderr, those that took longer than a threshold
// (the receiver's class and name, the event's type, the milliseconds, and
// how deep the delivery was nested). Set by `--slow-events=MS`; a queued
// slot shows as a MetaCall to the object that owns it.

#include <QApplication>
#include <QEvent>
#include <QMetaObject>

#include <chrono>
#include <cstdio>

namespace bench {

class EventTimingApplication : public QApplication {
public:
    EventTimingApplication(int& argc, char** argv, double thresholdMs)
        : QApplication(argc, argv), thresholdMs_(thresholdMs)
    {
    }

    bool notify(QObject* receiver, QEvent* event) override
    {
        if (thresholdMs_ <= 0)
            return QApplication::notify(receiver, event);
        // Read before the delivery: a DeferredDelete deletes the receiver.
        const int type = int(event->type());
        const char* className = receiver->metaObject()->className();
        const QString name = receiver->objectName();
        const auto t0 = std::chrono::steady_clock::now();
        ++depth_;
        const bool done = QApplication::notify(receiver, event);
        --depth_;
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (ms >= thresholdMs_)
            std::fprintf(stderr, "slow-event %.1f ms depth %d type %d %s \"%s\"\n", ms, depth_, type,
                         className, qPrintable(name));
        return done;
    }

private:
    double thresholdMs_;
    int depth_ = 0;
};

}  // namespace bench
