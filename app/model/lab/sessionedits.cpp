// SPDX-License-Identifier: GPL-3.0-or-later
// Session's edits of its inputs: a cell typed in, a whole matrix imported
// (LabInputs::withImport), and a whole lab (setState: LabInputs::fromState),
// each computed and published at once or handed to a recompute.
#include "session.h"

#include "headparams.h"
#include "size_limits.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace attnlab {

attn::Expected<double> Session::parseValue(const QString& text)
{
    const QString trimmed = text.trimmed();
    // Not the user's locale either: numbers are written with a point
    // everywhere here (the tables, CSV, the command line).
    if (trimmed.contains(QLatin1Char(',')))
        return attn::Error{tr("\"%1\" is not a number: the decimal separator is a point (%2).")
                               .arg(text, QString(trimmed).replace(QLatin1Char(','), QLatin1Char('.')))
                               .toStdString()};
    bool ok = false;
    double value = QLocale::c().toDouble(trimmed, &ok);
    if (!ok)
        value = QLocale().toDouble(trimmed, &ok);
    if (!ok || !std::isfinite(value))
        return attn::Error{tr("\"%1\" is not a finite number.").arg(text).toStdString()};
    if (std::abs(value) > attn::kMaxInputMagnitude)
        return attn::Error{tr("%1 is too large: entries are limited to ±%2.")
                               .arg(trimmed)
                               .arg(attn::kMaxInputMagnitude, 0, 'g', 3)
                               .toStdString()};
    return value;
}

attn::Status Session::setMatrixCell(MatrixId which, int row, int col, double value)
{
    waitForResult();
    const attn::Matrix& m = matrix(which);
    QString refusal;
    if (!hasResult())
        refusal = tr("There are no matrices to edit: %1").arg(problem_);
    else if (row < 0 || row >= m.rows() || col < 0 || col >= m.cols())
        refusal = tr("%1 has no cell (%2, %3).").arg(matrixName(which)).arg(row + 1).arg(col + 1);
    else if (!std::isfinite(value))
        refusal = tr("%1 is not a finite number; %2(%3, %4) keeps its value.")
                      .arg(value)
                      .arg(matrixName(which))
                      .arg(row + 1)
                      .arg(col + 1);
    else if (std::abs(value) > attn::kMaxInputMagnitude)
        refusal = tr("%1 is too large: entries of %2 are limited to ±%3.")
                      .arg(value, 0, 'g', 6)
                      .arg(matrixName(which))
                      .arg(attn::kMaxInputMagnitude, 0, 'g', 3);
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
        in_.userCells.mask[int(which)](row, col) = true;
        if (which == MatrixId::X) {
            in_.editedCells = in_.userCells.count() + in_.otherEdits;
            emit cellEdited(CellEdit{which, in_.selectedHead, row, col, old, value});
            recompute();  // every head's Q, K and V
            return attn::okStatus();
        }
        setHeadCell(&in_.multiHead, in_.selectedHead, int(which) - 1, row, col, value);
        in_.editedCells = in_.userCells.count() + in_.otherEdits;  // the other heads are as they were
        if (std::find(in_.staleHeads.begin(), in_.staleHeads.end(), in_.selectedHead) == in_.staleHeads.end())
            in_.staleHeads.push_back(in_.selectedHead);
        in_.staleParts |= 1u << (int(which) - 1);  // W_q, W_k, W_v: attn::kHeadQuery, kHeadKey, kHeadValue
        emit cellEdited(CellEdit{which, in_.selectedHead, row, col, old, value});
        recomputeHeads();  // that head alone, the others kept
        return attn::okStatus();
    }
    LabResult next;
    const attn::Status computed = computeFrom(in_.model, in_.options, &next);
    if (!computed) {
        target(row, col) = old;
        emit editRefused(problemOf(computed));
        return computed;
    }
    in_.clearHeads();
    publish(std::move(next));
    in_.userCells.mask[int(which)](row, col) = true;
    if (in_.borrowed.active())  // back to the model's number: no longer the user's
        in_.userCells.mask[int(which)](row, col) = value != matrixOf(*in_.borrowed.original, which)(row, col);
    in_.editedCells = in_.userCells.count();
    emit cellEdited(CellEdit{which, 0, row, col, old, value});
    emit resultChanged();
    if (in_.borrowed.active())
        emit matrixNotice(borrowedNotice());
    return attn::okStatus();
}

attn::Status Session::setMatrixCellText(MatrixId which, int row, int col, const QString& text)
{
    const attn::Expected<double> value = parseValue(text);
    if (!value) {
        const QString message = tr("%1(%2, %3): %4 The old value is kept.")
                                    .arg(matrixName(which))
                                    .arg(row + 1)
                                    .arg(col + 1)
                                    .arg(QString::fromStdString(value.error().message));
        emit editRefused(message);
        return attn::Error{message.toStdString()};
    }
    return setMatrixCell(which, row, col, value.value());
}

LabState Session::state() const
{
    return in_.state();
}

std::optional<std::vector<LabCell>> Session::cellsOverDraw() const
{
    if (!problem_.isEmpty() || in_.borrowed.active())
        return std::nullopt;
    if (isRedrawing())  // the draw of config() is coming, with the cells kept
        return in_.editedCells == 0 ? std::optional<std::vector<LabCell>>(std::vector<LabCell>())
                                    : std::nullopt;
    if (!hasResult())
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
    if (!hasResult() || in_.modelStale)
        return attn::Error{tr("There is no model to import into: %1").arg(problem_).toStdString()};
    QString notice;
    attn::Expected<LabInputs> inputs = in_.withImport(which, values, &notice);
    if (!inputs)
        return inputs.error();
    return replaceInputs(std::move(inputs.value()), notice);
}

attn::Status Session::replaceInputs(LabInputs inputs, const QString& notice)
{
    LabResult next;
    if (const attn::Status computed = computeInputs(inputs, &next); !computed)
        return computed;
    // Everything is replaced: a computation in flight is dropped, not
    // finished (finishing it here would compute a large lesson twice). A
    // refused state leaves it as it was.
    if (computing_) {
        ++generation_;
        computing_ = false;
        worker_->cancel();
    }
    in_ = std::move(inputs);
    publish(std::move(next));
    setProblem(QString());
    emit parametersChanged();
    emit modelRedrawn();
    emit resultChanged();
    if (multiHead() || isBorrowed())
        emit headSelected(in_.selectedHead);
    // What became of the user's cells; a notice about the replaced matrices no longer applies.
    emit matrixNotice(notice);
    return attn::okStatus();
}

}  // namespace attnlab
