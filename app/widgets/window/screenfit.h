// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's frame (title bar and borders included) on the screen: the
// size the window starts with is its inside, and on a 720-line projector or
// a 1024x700 screen the title bar pushed the status bar below the screen's
// edge. Once shown, and again when the window manager has given its frame,
// the window is made smaller (down to its minimum) and moved so that the
// frame fits the screen's available geometry.

#include <QObject>
#include <QSize>

#include <functional>

class QWidget;

namespace attnlab {

class ScreenFit : public QObject {
    Q_OBJECT
public:
    explicit ScreenFit(QWidget* window);

    // The next show fits the frame to the screen, unless the window was
    // resized meanwhile (by a caller that chose its size); `fitted` is
    // called after a fit that made the window smaller.
    void arm(std::function<void()> fitted = {});
    // Now: smaller and moved until the frame is inside the available
    // geometry (as far as the window's minimum allows); nothing for a
    // maximised or full-screen window. True when it made the window smaller.
    static bool fit(QWidget* window);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* window_;
    bool armed_ = false;
    QSize armedSize_;
    std::function<void()> fitted_;
};

}  // namespace attnlab
