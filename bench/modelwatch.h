// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the model window cases measure with: the window they measure
// (ModelWindow), when the Model tab's grid has painted the pass of the
// sentence field's text (ModelWatch), keys typed as the keyboard would, and
// steps timed to their pass shown with the GUI thread's longest absence
// (measureSteps).

#include "modelcontroller.h"
#include "modelgridview.h"
#include "modelsession.h"
#include "windowwatch.h"

#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>

#include <algorithm>
#include <vector>

namespace bench {

// The main window at 1600 x 1000, shown and settled, with what the model
// cases drive: its model controller and session, the sentence field and
// the Model tab's grid (found by name). ok() is false when the field or the
// grid is missing.
struct ModelWindow {
    attnlab::MainWindow window;
    attnlab::ModelController* models = nullptr;
    attnlab::ModelSession* session = nullptr;
    QLineEdit* field = nullptr;
    attnlab::ModelGridView* grid = nullptr;

    ModelWindow()
    {
        window.resize(1600, 1000);
        window.show();
        settle(200);
        models = window.models();
        session = models->session();
        field = window.findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
        grid = window.findChild<attnlab::ModelGridView*>(QStringLiteral("modelGrid"));
    }
    bool ok() const { return field && grid; }
};

// The Model tab's grid has painted the pass of the field's current text.
class ModelWatch : public QObject {
public:
    ModelWatch(attnlab::ModelSession* session, QWidget* grid, QLineEdit* field)
        : session_(session), field_(field)
    {
        grid->installEventFilter(this);
        QObject::connect(session, &attnlab::ModelSession::resultChanged, this, [this] {
            delivered_ = true;
            painted_ = false;
        });
    }
    void arm()
    {
        delivered_ = false;
        painted_ = false;
    }
    bool done() const
    {
        return delivered_ && painted_ && !session_->isComputing() && session_->sentence() == field_->text()
               && int(session_->resultTokens().size()) == int(session_->tokens().size());
    }

protected:
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Paint && delivered_)
            painted_ = true;
        return false;
    }

private:
    attnlab::ModelSession* session_;
    QLineEdit* field_;
    bool delivered_ = false;
    bool painted_ = false;
};

// A key typed into the field as the keyboard would: press and release.
inline void typeKey(QLineEdit* field, QChar c)
{
    const int key =
        c == QLatin1Char(' ') ? int(Qt::Key_Space) : int(Qt::Key_A) + (c.toLower().unicode() - 'a');
    QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier, QString(c));
    QKeyEvent release(QEvent::KeyRelease, key, Qt::NoModifier, QString(c));
    QApplication::sendEvent(field, &press);
    QApplication::sendEvent(field, &release);
}

// The steps' figures: from each step's mark (what `step` returns) to its
// pass shown, and the GUI thread's longest absence over all of them.
struct Steps {
    std::vector<double> shownMs;
    double maxBlockMs = 0;
    int timeouts = 0;
};

template <typename Step>
Steps measureSteps(ModelWatch& watch, int count, Step step)
{
    Steps out;
    Heartbeat heartbeat;
    for (int i = 0; i < count; ++i) {
        watch.arm();
        heartbeat.start();
        const Clock::time_point mark = step(i);
        if (waitUntil([&] { return watch.done(); }, 30000))
            out.shownMs.push_back(msSince(mark));
        else
            ++out.timeouts;
        out.maxBlockMs = std::max(out.maxBlockMs, heartbeat.stop());
        settle(30);
    }
    return out;
}

}  // namespace bench
