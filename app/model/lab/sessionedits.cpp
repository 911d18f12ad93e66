// SPDX-License-Identifier: GPL-3.0-or-later
// Session's edits of its inputs: a cell typed in, a whole matrix imported
// (LabInputs::withImport), and a whole lab (setState: LabInputs::fromState),
// each computed and published at once or handed to a recompute.
#include "session.h"

#include "headparams.h"
#include "labjob.h"

#include <algorithm>
#include <utility>

namespace attnlab {

attn::Status Session::setMatrixCell(MatrixId which, int row, int col, double value)
{
    waitForResult();
    const attn::Matrix& m = in_.matrix(which);
    const QString refusal = current_->computed() ? cellRefusal(m, which, row, col, value)
                                                 : tr("There are no matrices to edit: %1").arg(problem_);
    if (!refusal.isEmpty()) {
        emit editRefused(refusal);
        return attn::Error{refusal.toStdString()};
    }
    attn::Matrix& target = in_.matrix(which);
    const double old = target(row, col);
    if (old == value)
        return attn::okStatus();
    target(row, col) = value;
    if (multiHead()) {
        // The selected head's weight, or X; done in the worker when large.
        in_.countHeadsCell(which, row, col, value);
        emit cellEdited(CellEdit{which, in_.selectedHead, row, col, old, value});
        if (which == MatrixId::X)
            recompute();  // every head's Q, K and V
        else
            recomputeHeads();  // that head alone, the others kept
        return attn::okStatus();
    }
    const std::shared_ptr<AttentionOutcome> outcome = computeNow(*job(in_, LabJobKind::Recompute));
    if (!outcome->error.isEmpty()) {
        target(row, col) = old;
        emit editRefused(outcome->error);
        return attn::Error{outcome->error.toStdString()};
    }
    in_.clearHeads();
    publish(singleHeadResult(*outcome, in_.model, in_.options));
    in_.countSingleCell(which, row, col, value);
    emit cellEdited(CellEdit{which, 0, row, col, old, value});
    emit resultChanged();
    if (in_.borrowed.active())
        emit matrixNotice(in_.borrowedNotice());
    return attn::okStatus();
}

attn::Status Session::setMatrixCellText(MatrixId which, int row, int col, const QString& text)
{
    const attn::Expected<double> value = parseCellValue(which, row, col, text);
    if (!value) {
        emit editRefused(QString::fromStdString(value.error().message));
        return value.error();
    }
    return setMatrixCell(which, row, col, value.value());
}

std::optional<std::vector<LabCell>> Session::cellsOverDraw() const
{
    if (!problem_.isEmpty() || in_.borrowed.active())
        return std::nullopt;
    if (isRedrawing())  // the draw of in_.config is coming, with the cells kept
        return in_.editedCells == 0 ? std::optional<std::vector<LabCell>>(std::vector<LabCell>())
                                    : std::nullopt;
    if (!current_->computed())
        return std::nullopt;
    return in_.cellsOverDraw();
}

attn::Status Session::setState(const LabState& state)
{
    attn::Expected<LabInputs> inputs = LabInputs::fromState(state);
    if (!inputs)
        return inputs.error();
    const QString notice = inputs.value().borrowedNotice();
    return replaceInputs(std::move(inputs.value()), notice);
}

attn::Status Session::setMatrix(MatrixId which, const attn::Matrix& values)
{
    waitForResult();
    if (!current_->computed() || in_.modelStale)
        return attn::Error{tr("There is no model to import into: %1").arg(problem_).toStdString()};
    QString notice;
    attn::Expected<LabInputs> inputs = in_.withImport(which, values, &notice);
    if (!inputs)
        return inputs.error();
    return replaceInputs(std::move(inputs.value()), notice);
}

attn::Status Session::replaceInputs(LabInputs inputs, const QString& notice)
{
    const std::shared_ptr<AttentionOutcome> outcome = computeNow(*job(inputs, LabJobKind::Recompute));
    if (!outcome->error.isEmpty())
        return attn::Error{outcome->error.toStdString()};
    // Everything is replaced: a computation in flight is dropped, not
    // finished (finishing it here would compute a large lesson twice). A
    // refused state leaves it as it was.
    requests_->cancel();
    in_ = std::move(inputs);
    if (outcome->multi) {
        LabResult next = LabResult::multi(tokensOf(in_.model), idsOf(in_.model), std::move(outcome->multi),
                                          in_.selectedHead, in_.options);
        if (outcome->comparison)
            next.setComparison(std::move(outcome->comparison));
        publish(std::move(next));
    } else {
        publish(singleHeadResult(*outcome, in_.model, in_.options));
    }
    setProblem(QString());
    emit parametersChanged();
    emit modelRedrawn();
    emit resultChanged();
    if (multiHead() || in_.borrowed.active())
        emit headSelected(in_.selectedHead);
    // What became of the user's cells; a notice about the replaced matrices no longer applies.
    emit matrixNotice(notice);
    return attn::okStatus();
}

}  // namespace attnlab
