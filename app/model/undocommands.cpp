// SPDX-License-Identifier: GPL-3.0-or-later
#include "undocommands.h"

#include <utility>

namespace attnlab {

namespace {

bool sameMatrix(const attn::Matrix& a, const attn::Matrix& b)
{
    // Bitwise-equal doubles compare equal; no NaN can be in a lab's matrices.
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

}  // namespace

bool sameSnapshot(const LabSnapshot& a, const LabSnapshot& b)
{
    const attn::ModelConfig& x = a.lab.config;
    const attn::ModelConfig& y = b.lab.config;
    const attn::AttentionOptions& o = a.lab.options;
    const attn::AttentionOptions& p = b.lab.options;
    return a.stale == b.stale && a.drawn == b.drawn && x.sentence == y.sentence && x.tokenizer == y.tokenizer
           && x.seed == y.seed && x.dModel == y.dModel && x.dK == y.dK && x.dV == y.dV && x.init == y.init
           && o.scale == p.scale && o.customDivisor == p.customDivisor && o.causal == p.causal
           && sameMatrix(a.lab.X, b.lab.X) && sameMatrix(a.lab.Wq, b.lab.Wq) && sameMatrix(a.lab.Wk, b.lab.Wk)
           && sameMatrix(a.lab.Wv, b.lab.Wv);
}

SnapshotCommand::SnapshotCommand(const QString& text, LabSnapshot before, LabSnapshot after, MergeId mergeId,
                                 int run, std::function<void(const LabSnapshot&)> apply)
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
    apply_(before_);
    done_ = false;
}

void SnapshotCommand::redo()
{
    if (done_)
        return;  // the first push: the session already shows `after`
    apply_(after_);
    done_ = true;
}

bool SnapshotCommand::mergeWith(const QUndoCommand* other)
{
    const auto* next = dynamic_cast<const SnapshotCommand*>(other);
    if (!next || run_ == 0 || next->run_ != run_ || next->mergeId_ != mergeId_)
        return false;
    after_ = next->after_;
    setText(next->text());  // "d_k = 64", not the first value of the drag
    setObsolete(sameSnapshot(before_, after_));
    return true;
}

}  // namespace attnlab
