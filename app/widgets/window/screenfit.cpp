// SPDX-License-Identifier: GPL-3.0-or-later
#include "screenfit.h"

#include <QEvent>
#include <QPointer>
#include <QScreen>
#include <QTimer>
#include <QWidget>

#include <algorithm>
#include <utility>

namespace attnlab {

ScreenFit::ScreenFit(QWidget* window) : QObject(window), window_(window)
{
    window_->installEventFilter(this);
}

void ScreenFit::arm(std::function<void()> fitted)
{
    armed_ = true;
    armedSize_ = window_->size();
    fitted_ = std::move(fitted);
}

bool ScreenFit::fit(QWidget* window)
{
    if (!window || !window->isVisible()
        || (window->windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen)))
        return false;
    QScreen* screen = window->screen();
    if (!screen)
        return false;
    const QRect available = screen->availableGeometry();
    const QRect frame = window->frameGeometry();
    if (available.contains(frame))
        return false;
    const QRect inside = window->geometry();
    const QMargins margins(inside.left() - frame.left(), inside.top() - frame.top(),
                           frame.right() - inside.right(), frame.bottom() - inside.bottom());
    const QSize room = available.size().shrunkBy(margins);
    const QSize size = inside.size().boundedTo(room).expandedTo(window->minimumSize());
    if (size != inside.size())
        window->resize(size);
    // move() places the frame's top-left corner.
    const QSize frameSize = size.grownBy(margins);
    const int x = std::clamp(frame.left(), available.left(),
                             std::max(available.left(), available.right() + 1 - frameSize.width()));
    const int y = std::clamp(frame.top(), available.top(),
                             std::max(available.top(), available.bottom() + 1 - frameSize.height()));
    if (QPoint(x, y) != frame.topLeft())
        window->move(x, y);
    return size != inside.size();
}

bool ScreenFit::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == window_ && event->type() == QEvent::Show && armed_) {
        armed_ = false;
        if (window_->size() == armedSize_) {
            // Now, and once the window manager has framed the window (its
            // frame extents come after the window is mapped).
            QPointer<QWidget> window(window_);
            const auto fitNow = [this, window] {
                if (fit(window) && fitted_)
                    fitted_();
            };
            QTimer::singleShot(0, this, fitNow);
            QTimer::singleShot(400, this, fitNow);
        }
    }
    return QObject::eventFilter(watched, event);
}

}  // namespace attnlab
