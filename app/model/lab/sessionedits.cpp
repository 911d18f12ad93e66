// SPDX-License-Identifier: GPL-3.0-or-later
// Session's edits of the state: a cell typed in, a whole matrix imported (as
// it is or reshaped), and a whole lab (state, setState). They are defined
// apart from session.cpp, which runs and delivers the computation, because
// they are the other half of the class: the checks of what the user gives
// and the bookkeeping of what is kept, each ending in a redraw or recompute.
// Session stays one class (its state is shared by both halves).
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
    const attn::Status computed = computeFrom(in_.model, &next);
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
    // Everything is replaced: a computation in flight is dropped, not
    // finished (finishing it here would compute a large lesson twice).
    const bool wasComputing = computing_;
    const quint64 wasGeneration = generation_;
    if (computing_) {
        ++generation_;
        computing_ = false;
    }
    // A refused state leaves the request in flight as it was.
    auto restoreComputation = [&] {
        if (wasComputing && !computing_) {
            generation_ = wasGeneration;
            computing_ = true;
        }
    };
    if (state.borrowed.active()) {
        const attn::Status status = setBorrowedState(state);
        if (!status) {
            restoreComputation();
            return status;
        }
        if (wasComputing)
            worker_->cancel();
        emit parametersChanged();
        emit modelRedrawn();
        emit resultChanged();
        emit headSelected(in_.selectedHead);
        emit matrixNotice(borrowedNotice());
        return attn::okStatus();
    }
    if (state.heads.multiHead()) {
        const attn::Status status = setHeadsState(state);
        if (!status) {
            restoreComputation();
            return status;
        }
        in_.borrowed = BorrowedHead();
        in_.awaitingBorrow = false;
        if (wasComputing)
            worker_->cancel();
        emit parametersChanged();
        emit modelRedrawn();
        emit resultChanged();
        emit headSelected(in_.selectedHead);
        emit matrixNotice(QString());
        return attn::okStatus();
    }
    attn::Expected<attn::Model> built = attn::buildModel(state.config);
    if (!built) {
        restoreComputation();
        return built.error();
    }
    attn::Model& m = built.value();
    const std::pair<attn::Matrix*, const attn::Matrix*> pairs[] = {
        {&m.X, &state.X}, {&m.Wq, &state.Wq}, {&m.Wk, &state.Wk}, {&m.Wv, &state.Wv}};
    const MatrixId ids[] = {MatrixId::X, MatrixId::Wq, MatrixId::Wk, MatrixId::Wv};
    const attn::Model drawnModel = m;
    for (int i = 0; i < 4; ++i) {
        attn::Matrix& drawn = *pairs[i].first;
        const attn::Matrix& given = *pairs[i].second;
        if (drawn.rows() != given.rows() || drawn.cols() != given.cols()) {
            restoreComputation();
            return attn::Error{tr("%1 has shape (%2, %3) but the parameters give (%4, %5).")
                                   .arg(matrixName(ids[i]))
                                   .arg(given.rows())
                                   .arg(given.cols())
                                   .arg(drawn.rows())
                                   .arg(drawn.cols())
                                   .toStdString()};
        }
        drawn = given;
    }
    const attn::AttentionOptions oldOptions = in_.options;
    in_.options = state.options;
    LabResult next;
    const attn::Status computed = computeFrom(m, &next);
    if (!computed) {
        in_.options = oldOptions;
        restoreComputation();
        return computed;
    }
    in_.clearHeads();
    if (wasComputing)
        worker_->cancel();
    in_.config = state.config;
    in_.modelConfig = state.config;
    in_.heads = attn::HeadsConfig();
    in_.borrowed = BorrowedHead();
    in_.awaitingBorrow = false;
    in_.userCells = UserCells::differences(m, drawnModel);
    in_.model = std::move(m);
    in_.modelStale = false;
    in_.editedCells = in_.userCells.count();
    publish(std::move(next));
    setProblem(QString());
    emit parametersChanged();
    emit modelRedrawn();
    emit resultChanged();
    emit matrixNotice(QString());  // a notice about the replaced matrices no longer applies
    return attn::okStatus();
}

attn::Status Session::setMatrix(MatrixId which, const attn::Matrix& values)
{
    waitForResult();
    if (!hasResult() || in_.modelStale)
        return attn::Error{tr("There is no model to import into: %1").arg(problem_).toStdString()};
    const QString name = matrixName(which);
    attn::ModelConfig config = in_.config;
    if (which == MatrixId::X) {
        if (values.rows() != tokenCount())
            return attn::Error{tr("%1 has %2 rows but the sentence has %3 tokens: one row per token.")
                                   .arg(name)
                                   .arg(values.rows())
                                   .arg(tokenCount())
                                   .toStdString()};
        config.dModel = int(values.cols());
    } else {
        if (values.rows() != in_.model.X.cols())
            return attn::Error{tr("%1 has %2 rows but d_model is %3: one row per dimension of X.")
                                   .arg(name)
                                   .arg(values.rows())
                                   .arg(in_.model.X.cols())
                                   .toStdString()};
        (which == MatrixId::Wv ? config.dV : config.dK) = int(values.cols());
    }
    if (const attn::Status dims = attn::validateDimensions(config.dModel, config.dK, config.dV); !dims)
        return attn::Error{
            tr("%1 does not fit: %2").arg(name, QString::fromStdString(dims.error().message)).toStdString()};
    if (config.dModel != in_.config.dModel || config.dK != in_.config.dK || config.dV != in_.config.dV) {
        if (multiHead())
            return attn::Error{tr("%1 has shape (%2, %3) but head %4's is (%5, %6): with several heads an "
                                  "import keeps the shape; change d_model, d_k or d_v first.")
                                   .arg(name)
                                   .arg(values.rows())
                                   .arg(values.cols())
                                   .arg(in_.selectedHead + 1)
                                   .arg(matrix(which).rows())
                                   .arg(matrix(which).cols())
                                   .toStdString()};
        if (in_.borrowed.active())
            return attn::Error{tr("%1 has shape (%2, %3) but the GPT-2 head's is (%4, %5): an import into a "
                                  "borrowed head keeps its shape.")
                                   .arg(name)
                                   .arg(values.rows())
                                   .arg(values.cols())
                                   .arg(matrix(which).rows())
                                   .arg(matrix(which).cols())
                                   .toStdString()};
        return importReshaping(which, values, config);
    }
    LabState next = state();
    attn::Matrix* target = which == MatrixId::X    ? &next.X
                           : which == MatrixId::Wq ? &next.Wq
                           : which == MatrixId::Wk ? &next.Wk
                                                   : &next.Wv;
    *target = values;
    return setState(next);
}

attn::Status Session::importReshaping(MatrixId which, const attn::Matrix& values,
                                      const attn::ModelConfig& config)
{
    attn::Expected<attn::Model> built = attn::buildModel(config);
    if (!built)
        return built.error();
    attn::Model from = in_.model;
    UserCells cells = in_.userCells;
    matrixOf(from, which) = values;
    cells.mask[int(which)] = CellMask::Constant(values.rows(), values.cols(), true);
    KeptReport report;
    UserCells kept = keepUserCells(from, cells, &built.value(), &report);
    LabResult next;
    if (const attn::Status computed = computeFrom(built.value(), &next); !computed)
        return computed;
    in_.clearHeads();
    const attn::ModelConfig before = in_.config;
    in_.config = config;
    const QString keptNotice = in_.installModel(std::move(built.value()), config, std::move(kept), report);
    publish(std::move(next));
    setProblem(QString());
    const QString dimension = which == MatrixId::X    ? QStringLiteral("d_model")
                              : which == MatrixId::Wv ? QStringLiteral("d_v")
                                                      : QStringLiteral("d_k");
    const int was = which == MatrixId::X ? before.dModel : which == MatrixId::Wv ? before.dV : before.dK;
    QString notice = tr("The imported %1 has %2 columns: %3 is now %2 (was %4).")
                         .arg(matrixName(which))
                         .arg(values.cols())
                         .arg(dimension)
                         .arg(was);
    if (!keptNotice.isEmpty())
        notice += QLatin1Char(' ') + keptNotice;
    emit parametersChanged();
    emit modelRedrawn();
    emit resultChanged();
    emit matrixNotice(notice);
    return attn::okStatus();
}

}  // namespace attnlab
