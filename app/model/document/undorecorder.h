// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Turns every change of the session into an undo step, whichever widget made
// it: after each change it compares the session with the last state it saw
// and pushes a SnapshotCommand from that state to the new one. Undo and redo
// restore snapshots through Session::setState without being recorded again.
//
// A typed cell is recorded as it happens (Session::cellEdited) as a
// CellCommand, and the recorder's copy of the session takes the one cell;
// nothing is copied or compared at the cell's size of the lab.
//
// While the lab is the seed's draw with a few of the user's cells (up to a
// quarter of its entries: Session::cellsOverDraw), a snapshot keeps those
// cells instead of the matrices, so a seed step of an edited lab adds a few
// bytes to the history, not a copy of the lab (11 MB at 512 tokens and 8
// heads of d_model 512); undoing to it draws the seed again.
//
// One step per gesture: changes between beginGesture() and endGesture() (a
// slider held down) merge into one command, and so does a run of sentence
// edits (typing) until breakMerge() (the field lost focus), an undo, a redo
// or any other change.

#include "undocommands.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QUndoStack;

namespace attnlab {

class Session;

class UndoRecorder : public QObject {
    Q_OBJECT
public:
    UndoRecorder(Session* session, QUndoStack* stack, QObject* parent = nullptr);

    QUndoStack* stack() const { return stack_; }
    LabSnapshot current() const;  // the session now

    void beginGesture();
    void endGesture();
    bool inGesture() const { return gesture_; }
    void breakMerge();

    // Runs `change` and names the step it makes `text` instead of the name
    // derived from the change ("Import W_q from w.npy").
    void recordAs(const QString& text, const std::function<void()>& change);

    // Takes the session as it is now as the starting point, recording nothing
    // (after opening a lab, with the stack cleared).
    void resync();

    // Restores a snapshot without recording it (used by the commands).
    void apply(const LabSnapshot& snapshot);

    // What the change from `before` to `after` did, e.g. "Change d_k to 32".
    static QString describe(const LabSnapshot& before, const LabSnapshot& after);

    // Sets the cell of `edit` to `value` without recording it (CellCommand):
    // in its own head, the head shown staying the user's choice.
    void applyCell(const CellEdit& edit, double value);

private:
    void record();
    void cellEdited(const CellEdit& edit);

    Session* session_;
    QUndoStack* stack_;
    // The session as last recorded: shared with the step that made it (a
    // step's snapshots never change), copied before a typed cell changes it
    // (or, when it keeps cells over the draw, made again from the session).
    std::shared_ptr<LabSnapshot> last_;
    QString nextText_;
    bool applying_ = false;
    bool pendingRedraw_ = false;  // a change waits for its redraw to be recorded
    bool gesture_ = false;
    int run_ = 1;
};

}  // namespace attnlab
