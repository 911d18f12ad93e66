// SPDX-License-Identifier: GPL-3.0-or-later
#include "presentationmode.h"

#include <QAction>
#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>
#include <QStatusBar>
#include <QTimer>

namespace attnlab {

PresentationMode::PresentationMode(QMainWindow* window) : QObject(window), window_(window)
{
    toggle_ = new QAction(tr("Presentati&on mode"), this);
    toggle_->setObjectName(QStringLiteral("presentationModeAction"));
    toggle_->setCheckable(true);
    toggle_->setShortcut(QKeySequence(Qt::Key_F11));
    toggle_->setStatusTip(
        tr("Full screen with larger fonts and the maps filling it, for a "
           "projector; F11 or Esc leaves."));
    connect(toggle_, &QAction::toggled, this, &PresentationMode::setActive);
    // Esc leaves; only while presenting, so that it keeps its usual meaning
    // everywhere else.
    escape_ = new QAction(tr("Leave presentation mode"), this);
    escape_->setObjectName(QStringLiteral("leavePresentationAction"));
    escape_->setShortcut(QKeySequence(Qt::Key_Escape));
    escape_->setEnabled(false);
    connect(escape_, &QAction::triggered, this, [this] { setActive(false); });
    window_->addAction(toggle_);
    window_->addAction(escape_);
    window_->installEventFilter(this);
}

void PresentationMode::setActive(bool on)
{
    if (on == active_)
        return;
    active_ = on;
    if (on)
        enter();
    else
        leave();
    toggle_->setChecked(on);
    escape_->setEnabled(on);
    emit activeChanged(on);
}

void PresentationMode::enter()
{
    state_ = window_->saveState();
    geometry_ = window_->saveGeometry();
    windowState_ = window_->windowState();
    statusBarShown_ = !window_->statusBar()->isHidden();
    fontWasSet_ = window_->testAttribute(Qt::WA_SetFont);
    font_ = window_->font();
    restorePending_ = false;

    for (QDockWidget* dock : window_->findChildren<QDockWidget*>())
        if (dock->parentWidget() == window_ || dock->isFloating())
            dock->hide();
    window_->statusBar()->hide();
    QFont large = font_;
    if (large.pointSizeF() > 0)
        large.setPointSizeF(large.pointSizeF() * kFontScale);
    else
        large.setPixelSize(int(large.pixelSize() * kFontScale + 0.5));
    window_->setFont(large);
    window_->setWindowState(window_->windowState() | Qt::WindowFullScreen);
}

void PresentationMode::leave()
{
    window_->setFont(fontWasSet_ ? font_ : QFont());
    window_->statusBar()->setVisible(statusBarShown_);
    window_->setWindowState(windowState_);
    if (!(windowState_ & (Qt::WindowMaximized | Qt::WindowFullScreen)))
        window_->restoreGeometry(geometry_);
    window_->restoreState(state_);
    // The window manager hands the old size back later; the docks' sizes
    // are laid out again once it has (see eventFilter), else they would be
    // shares of the full screen.
    restorePending_ = true;
    QTimer::singleShot(500, this, [this] { restorePending_ = false; });
    // Once the normal font's smaller minimum sizes are laid out, the saved
    // size fits again.
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (active_)
                return;
            if (!(windowState_ & (Qt::WindowMaximized | Qt::WindowFullScreen)))
                window_->restoreGeometry(geometry_);
            window_->restoreState(state_);
        },
        Qt::QueuedConnection);
}

bool PresentationMode::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == window_ && event->type() == QEvent::Resize && restorePending_ && !active_) {
        restorePending_ = false;
        window_->restoreState(state_);
    }
    return QObject::eventFilter(watched, event);
}

}  // namespace attnlab
