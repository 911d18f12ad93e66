// SPDX-License-Identifier: GPL-3.0-or-later
#include "undocommands.h"

#include "headparams.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace attnlab {

namespace {

bool sameHeads(const attn::MultiHeadParams& a, const attn::MultiHeadParams& b)
{
    if (a.layout != b.layout)
        return false;
    if (a.layout == attn::HeadLayout::Split)
        return a.split.heads == b.split.heads && attn::sameBits(a.split.inProjWeight, b.split.inProjWeight)
               && attn::sameBits(a.split.inProjBias, b.split.inProjBias)
               && attn::sameBits(a.split.outProjWeight, b.split.outProjWeight)
               && attn::sameBits(a.split.outProjBias, b.split.outProjBias);
    if (a.independent.heads.size() != b.independent.heads.size()
        || !attn::sameBits(a.independent.Wo, b.independent.Wo))
        return false;
    for (std::size_t i = 0; i < a.independent.heads.size(); ++i) {
        const attn::HeadWeights& x = a.independent.heads[i];
        const attn::HeadWeights& y = b.independent.heads[i];
        if (!attn::sameBits(x.Wq, y.Wq) || !attn::sameBits(x.Wk, y.Wk) || !attn::sameBits(x.Wv, y.Wv))
            return false;
    }
    return true;
}

bool sameCells(const std::vector<LabCell>& a, const std::vector<LabCell>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), sameCell);
}

}  // namespace

attn::Expected<LabState> snapshotLab(const LabSnapshot& s)
{
    if (!s.drawn)
        return s.lab;
    LabState lab = s.lab;
    attn::Expected<attn::Model> m = attn::buildModel(lab.config);
    if (!m)
        return m.error();
    lab.X = std::move(m->X);
    if (lab.heads.multiHead()) {
        attn::Expected<attn::MultiHeadParams> heads = drawMultiHead(lab.config, lab.heads);
        if (!heads)
            return heads.error();
        lab.multiHead = std::move(heads.value());
        lab.selectedHead = std::clamp(lab.selectedHead, 0, lab.multiHead.headCount() - 1);
        attn::HeadWeights w = lab.multiHead.head(lab.selectedHead);
        lab.Wq = std::move(w.Wq);
        lab.Wk = std::move(w.Wk);
        lab.Wv = std::move(w.Wv);
    } else {
        lab.Wq = std::move(m->Wq);
        lab.Wk = std::move(m->Wk);
        lab.Wv = std::move(m->Wv);
    }
    for (const LabCell& c : s.cells) {
        const attn::Matrix& target = c.which == MatrixId::X    ? lab.X
                                     : c.which == MatrixId::Wq ? lab.Wq
                                     : c.which == MatrixId::Wk ? lab.Wk
                                                               : lab.Wv;
        // Every head's W_q (W_k, W_v) has the shape of the selected head's.
        if (c.row < 0 || c.col < 0 || c.row >= target.rows() || c.col >= target.cols() || c.head < 0
            || (lab.heads.multiHead() && c.head >= lab.multiHead.headCount()))
            return attn::Error{"An undo step's cell lies outside its lab's matrices."};
        setLabCell(&lab, CellEdit{c.which, c.head, c.row, c.col, 0.0, c.value}, c.value);
    }
    return lab;
}

bool sameSnapshot(const LabSnapshot& a, const LabSnapshot& b)
{
    if (a.stale != b.stale || a.drawn != b.drawn || !(a.lab.config == b.lab.config)
        || !(a.lab.options == b.lab.options) || a.lab.heads != b.lab.heads
        || !a.lab.borrowed.sameHead(b.lab.borrowed))
        return false;
    if (a.drawn)
        return sameCells(a.cells, b.cells);
    return attn::sameBits(a.lab.X, b.lab.X)
           && (a.lab.heads.multiHead()
                   ? sameHeads(a.lab.multiHead, b.lab.multiHead)
                   : attn::sameBits(a.lab.Wq, b.lab.Wq) && attn::sameBits(a.lab.Wk, b.lab.Wk)
                         && attn::sameBits(a.lab.Wv, b.lab.Wv));
}

bool sameParameters(const LabSnapshot& s, const Session& session)
{
    const LabState& lab = s.lab;
    return s.stale == !session.problem().isEmpty() && lab.config == session.inputs().config
           && lab.options == session.inputs().options && lab.heads == session.inputs().heads
           && lab.borrowed.sameHead(session.inputs().borrowed);
}

bool snapshotMatches(const LabSnapshot& s, const Session& session)
{
    if (!sameParameters(s, session))
        return false;
    const LabState& lab = s.lab;
    if (s.drawn) {
        if (session.inputs().editedCells != int(s.cells.size()))
            return false;
        const std::optional<std::vector<LabCell>> cells = session.cellsOverDraw();
        return cells && sameCells(*cells, s.cells);
    }
    const attn::Model& m = session.inputs().model;
    if (!attn::sameBits(lab.X, m.X))
        return false;
    if (lab.heads.multiHead())
        return sameHeads(lab.multiHead, session.inputs().multiHead);
    return attn::sameBits(lab.Wq, m.Wq) && attn::sameBits(lab.Wk, m.Wk) && attn::sameBits(lab.Wv, m.Wv);
}

void setLabCell(LabState* lab, const CellEdit& edit, double value)
{
    attn::Matrix* target = nullptr;
    switch (edit.which) {
    case MatrixId::X: target = &lab->X; break;
    case MatrixId::Wq: target = &lab->Wq; break;
    case MatrixId::Wk: target = &lab->Wk; break;
    case MatrixId::Wv: target = &lab->Wv; break;
    }
    if (edit.which != MatrixId::X && lab->heads.multiHead()) {
        setHeadCell(&lab->multiHead, edit.head, int(edit.which) - 1, edit.row, edit.col, value);
        if (edit.head != lab->selectedHead)
            return;  // W_q, W_k, W_v are another head's
    }
    (*target)(edit.row, edit.col) = value;
}

SnapshotCommand::SnapshotCommand(const QString& text, std::shared_ptr<const LabSnapshot> before,
                                 std::shared_ptr<const LabSnapshot> after, MergeId mergeId, int run,
                                 std::function<void(const LabSnapshot&)> apply)
    : QUndoCommand(text),
      before_(std::move(before)),
      after_(std::move(after)),
      mergeId_(mergeId),
      run_(run),
      apply_(std::move(apply))
{
}

void SnapshotCommand::undo()
{
    apply_(*before_);
    done_ = false;
}

void SnapshotCommand::redo()
{
    if (done_)
        return;  // the first push: the session already shows `after`
    apply_(*after_);
    done_ = true;
}

bool SnapshotCommand::mergeWith(const QUndoCommand* other)
{
    const auto* next = dynamic_cast<const SnapshotCommand*>(other);
    if (!next || run_ == 0 || next->run_ != run_ || next->mergeId_ != mergeId_)
        return false;
    after_ = next->after_;
    setText(next->text());  // "d_k = 64", not the first value of the drag
    setObsolete(sameSnapshot(*before_, *after_));
    return true;
}

CellCommand::CellCommand(const QString& text, const CellEdit& edit,
                         std::function<void(const CellEdit&, double)> apply)
    : QUndoCommand(text), edit_(edit), apply_(std::move(apply))
{
}

CellCommand::CellCommand(const QString& text, const CellEdit& edit,
                         std::function<void(const CellEdit&, double)> apply, LabSnapshot drawn,
                         std::function<void(const LabSnapshot&)> restore)
    : QUndoCommand(text),
      edit_(edit),
      apply_(std::move(apply)),
      drawn_(std::move(drawn)),
      restore_(std::move(restore))
{
}

void CellCommand::undo()
{
    if (restore_)
        restore_(drawn_);
    else
        apply_(edit_, edit_.before);
    done_ = false;
}

void CellCommand::redo()
{
    if (done_)
        return;  // the first push: the session already holds edit.after
    apply_(edit_, edit_.after);
    done_ = true;
}

}  // namespace attnlab
