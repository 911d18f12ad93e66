// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// When the window's views have painted what the session published: the
// policy of waiting for a paint, kept with the views (Session only offers
// previewPainted and resultPainted). A preview's or a result's note is
// posted after the views' own paint requests, at their low priority, so it
// arrives once they have painted. Made after every view is connected to the
// session, so that its notes follow theirs.
#include <QObject>

namespace attnlab {

class Session;

class PaintAcknowledger : public QObject {
    Q_OBJECT
public:
    explicit PaintAcknowledger(Session* session, QObject* parent = nullptr);

protected:
    void customEvent(QEvent* event) override;

private:
    Session* session_;
};

}  // namespace attnlab
