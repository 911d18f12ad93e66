// SPDX-License-Identifier: GPL-3.0-or-later
#include "paintacknowledger.h"

#include "session.h"

#include <QCoreApplication>
#include <QEvent>

namespace attnlab {

namespace {

struct PaintedEvent : QEvent {
    static constexpr QEvent::Type kPreview = QEvent::Type(QEvent::User + 1);
    static constexpr QEvent::Type kResult = QEvent::Type(QEvent::User + 2);
    PaintedEvent(QEvent::Type type, quint64 g) : QEvent(type), generation(g) {}
    quint64 generation;
};

}  // namespace

PaintAcknowledger::PaintAcknowledger(Session* session, QObject* parent) : QObject(parent), session_(session)
{
    session_->requests().setAwaitsPaint(true);
    connect(session_, &Session::previewChanged, this, [this] {
        if (session_->requests().preview())
            QCoreApplication::postEvent(
                this, new PaintedEvent(PaintedEvent::kPreview, session_->requests().generation()),
                Qt::LowEventPriority);
    });
    connect(session_, &Session::resultChanged, this, [this] {
        QCoreApplication::postEvent(
            this, new PaintedEvent(PaintedEvent::kResult, session_->requests().generation()),
            Qt::LowEventPriority);
    });
}

void PaintAcknowledger::customEvent(QEvent* event)
{
    if (event->type() == PaintedEvent::kPreview)
        session_->requests().previewPainted(static_cast<PaintedEvent*>(event)->generation);
    else if (event->type() == PaintedEvent::kResult)
        session_->requests().resultPainted(static_cast<PaintedEvent*>(event)->generation);
    QObject::customEvent(event);
}

}  // namespace attnlab
