// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Undo steps as snapshots: each command holds the whole lab before and after
// the change (parameters, options, matrices) and restores one or the other
// through Session::setState. Every kind of change (the sentence, a
// parameter, regenerate, an import) is undone the same way, and nothing has
// to know how to invert a change. A typed cell is the one step that knows
// its inverse (CellCommand): the cell's two values, not two copies of a lab
// that at 512 tokens and 8 heads of d_model 512 holds 11 MB.
//
// Commands with the same merge id that belong to the same run (one slider
// drag, one stretch of typing) merge into one step; a merged step that ends
// where it began is dropped.

#include "labfile.h"
#include "session.h"

#include <QUndoCommand>

#include <functional>
#include <memory>
#include <vector>

namespace attnlab {

// The session at one moment. With `stale` set the parameters were refused
// (problem() not empty) and the matrices are those of the last good model.
struct LabSnapshot {
    LabState lab;  // view and warnings unused
    bool stale = false;
    int editedCells = 0;  // cells that differ from the seed's draw
    // The matrices are the seed's draw for lab.config and lab.heads with
    // `cells` (Session::cellsOverDraw) laid over it, and are not kept: a d_k
    // step at thousands of tokens would otherwise copy X twice into the
    // history, and a seed step of an edited lab of 512 tokens and 8 heads
    // of d_model 512 its 11 MB. Undoing to it draws them again (snapshotLab).
    bool drawn = false;
    std::vector<LabCell> cells;  // with `drawn`: the user's, in cellsOverDraw's order
};

// The lab `s` holds: for a snapshot of the draw, lab.config and lab.heads
// drawn from the seed again with its cells laid over the draw (W_q, W_k,
// W_v are head lab.selectedHead's), else s.lab as it is. Refused as the
// draw is.
attn::Expected<LabState> snapshotLab(const LabSnapshot& s);

bool sameSnapshot(const LabSnapshot& a, const LabSnapshot& b);

// Whether the session holds what `s` holds, read in place (nothing copied):
// the parameters, and the matrices unless both are the seed's draw.
bool snapshotMatches(const LabSnapshot& s, const Session& session);

// Whether the session's parameters (config, options, heads, the borrowed
// head, a problem or not) are those of `s`; its matrices are not looked at.
bool sameParameters(const LabSnapshot& s, const Session& session);

// `lab` with the cell of `edit` set to `value` (every head's parameters and
// the selected head's copy in W_q, W_k, W_v).
void setLabCell(LabState* lab, const CellEdit& edit, double value);

class SnapshotCommand : public QUndoCommand {
public:
    enum MergeId { NoMerge = -1, Typing = 1, Gesture = 2 };

    // `apply` restores a snapshot; the change itself has already happened, so
    // the first redo() does nothing. `run` groups commands that may merge (0
    // never merges).
    SnapshotCommand(const QString& text, std::shared_ptr<const LabSnapshot> before,
                    std::shared_ptr<const LabSnapshot> after, MergeId mergeId, int run,
                    std::function<void(const LabSnapshot&)> apply);

    void undo() override;
    void redo() override;
    int id() const override { return mergeId_; }
    bool mergeWith(const QUndoCommand* other) override;

    const LabSnapshot& before() const { return *before_; }
    const LabSnapshot& after() const { return *after_; }

private:
    // Shared, never changed: the recorder holds the newest step's `after`
    // and a merge takes the next step's without a copy.
    std::shared_ptr<const LabSnapshot> before_;
    std::shared_ptr<const LabSnapshot> after_;
    MergeId mergeId_;
    int run_;
    std::function<void(const LabSnapshot&)> apply_;
    bool done_ = true;  // pushed after the change was made
};

// One typed cell: undo sets it back to edit.before, redo to edit.after,
// through `apply` (UndoRecorder::applyCell).
class CellCommand : public QUndoCommand {
public:
    CellCommand(const QString& text, const CellEdit& edit,
                std::function<void(const CellEdit&, double)> apply);
    // The first cell typed over the seed's draw: undo restores `drawn` (a
    // snapshot that keeps no matrices) through `restore`, so that afterwards
    // no cell counts as edited, as after undoing a snapshot step.
    CellCommand(const QString& text, const CellEdit& edit, std::function<void(const CellEdit&, double)> apply,
                LabSnapshot drawn, std::function<void(const LabSnapshot&)> restore);
    void undo() override;
    void redo() override;
    const CellEdit& edit() const { return edit_; }
    bool fromDraw() const { return bool(restore_); }

private:
    CellEdit edit_;
    std::function<void(const CellEdit&, double)> apply_;
    LabSnapshot drawn_;
    std::function<void(const LabSnapshot&)> restore_;  // empty unless from the draw
    bool done_ = true;                                 // pushed after the change was made
};

}  // namespace attnlab
