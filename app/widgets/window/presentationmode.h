// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// View > Presentation mode (F11), for a projector: the window full screen,
// its docks and status bar hidden so that the maps fill it, and its fonts
// larger (kFontScale). F11 again or Esc leaves and puts back what was there:
// window state and geometry, the docks' places and sizes
// (QMainWindow::saveState), the status bar and the font. A view that keeps
// columns it widened for the larger font can leave the window wider.

#include <QByteArray>
#include <QFont>
#include <QObject>

class QAction;
class QMainWindow;

namespace attnlab {

class PresentationMode : public QObject {
    Q_OBJECT
public:
    static constexpr double kFontScale = 1.4;

    // Adds its actions to `window` (so that F11 and Esc work with the menu
    // bar closed); the checkable toggle is action(), for the View menu.
    explicit PresentationMode(QMainWindow* window);

    QAction* action() const { return toggle_; }
    bool isActive() const { return active_; }
    void setActive(bool on);

signals:
    void activeChanged(bool on);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void enter();
    void leave();

    QMainWindow* window_;
    QAction* toggle_;
    QAction* escape_;
    bool active_ = false;

    // What enter() changed, for leave().
    QByteArray state_;
    QByteArray geometry_;
    Qt::WindowStates windowState_;
    bool statusBarShown_ = true;
    bool fontWasSet_ = false;
    QFont font_;
    bool restorePending_ = false;
};

}  // namespace attnlab
