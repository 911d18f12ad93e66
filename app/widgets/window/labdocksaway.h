// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The lab's bottom docks (Focused query, Statistics, Matrices) describe the
// lab's own head. On a page that shows none of it (the Model tab) they only
// take its height: at 1280 x 720 they left the model's grid and the
// generation table a sixth of the window. LabDocksAway hides the docked
// (not floating) ones that are shown when such a page becomes current and
// shows them again when the user leaves it. The View menu still shows a dock
// on the page; it is put away again the next time the page is entered.
// In presentation mode the docks are already hidden and the mode puts them
// back itself; on leaving it, what the current page wants is applied.

#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>

class QDockWidget;
class QTabWidget;
class QWidget;

namespace attnlab {

class PresentationMode;

class LabDocksAway : public QObject {
    Q_OBJECT
public:
    LabDocksAway(QTabWidget* tabs, QWidget* page, PresentationMode* presentation, QList<QDockWidget*> docks,
                 QObject* parent = nullptr);

    // Whether the docks are put away now (the page is current).
    bool isAway() const { return away_; }
    // Runs `f` with the put-away docks shown, so that a saved window state
    // has the lab's layout whichever page is current.
    void withDocksShown(const std::function<void()>& f);

private:
    void follow();
    void putAway();
    void bringBack();

    QTabWidget* tabs_;
    QPointer<QWidget> page_;
    PresentationMode* presentation_;
    QList<QPointer<QDockWidget>> docks_;
    QList<QPointer<QDockWidget>> hidden_;  // by this object, shown on leaving
    QList<QPointer<QDockWidget>> raised_;  // of those, the ones in front of their tabs
    bool away_ = false;
};

}  // namespace attnlab
