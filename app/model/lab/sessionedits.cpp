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

namespace {

const attn::Matrix& modelMatrix(const attn::Model& m, MatrixId which)
{
    switch (which) {
    case MatrixId::X: return m.X;
    case MatrixId::Wq: return m.Wq;
    case MatrixId::Wk: return m.Wk;
    case MatrixId::Wv: return m.Wv;
    }
    return m.X;
}

// The cells of `mask` with their values in `m`, row by row, appended to `cells`.
void appendCells(const CellMask& mask, const attn::Matrix& m, MatrixId which, int head,
                 std::vector<LabCell>* cells)
{
    if (!mask.any())
        return;
    for (Eigen::Index r = 0; r < mask.rows(); ++r)
        for (Eigen::Index c = 0; c < mask.cols(); ++c)
            if (mask(r, c))
                cells->push_back(LabCell{which, head, int(r), int(c), m(r, c)});
}

// Whatever of `a` is not a head's W_q, W_k or W_v (the split layout's biases
// and out_proj, the independent heads' W_o) is `b`'s, bit for bit, and the
// heads are as many, of the same layout and shapes.
bool sameBesidesHeads(const attn::MultiHeadParams& a, const attn::MultiHeadParams& b)
{
    if (a.layout != b.layout || a.headCount() != b.headCount())
        return false;
    if (a.layout == attn::HeadLayout::Split)
        return a.split.inProjWeight.rows() == b.split.inProjWeight.rows()
               && a.split.inProjWeight.cols() == b.split.inProjWeight.cols()
               && attn::sameBits(a.split.inProjBias, b.split.inProjBias)
               && attn::sameBits(a.split.outProjWeight, b.split.outProjWeight)
               && attn::sameBits(a.split.outProjBias, b.split.outProjBias);
    for (int i = 0; i < a.headCount(); ++i) {
        const attn::HeadWeights& x = a.independent.heads[std::size_t(i)];
        const attn::HeadWeights& y = b.independent.heads[std::size_t(i)];
        if (x.Wq.rows() != y.Wq.rows() || x.Wq.cols() != y.Wq.cols() || x.Wv.cols() != y.Wv.cols())
            return false;
    }
    return attn::sameBits(a.independent.Wo, b.independent.Wo);
}

}  // namespace

bool sameCell(const LabCell& a, const LabCell& b)
{
    return a.which == b.which && a.head == b.head && a.row == b.row && a.col == b.col
           && std::memcmp(&a.value, &b.value, sizeof a.value) == 0;
}

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
    attn::Matrix& target = mutableMatrix(which);
    const double old = target(row, col);
    if (old == value)
        return attn::okStatus();
    target(row, col) = value;
    if (multiHead()) {
        // The selected head's weight, or X; done in the worker when large.
        userCells_.mask[int(which)](row, col) = true;
        if (which == MatrixId::X) {
            editedCells_ = userCells_.count() + otherEdits_;
            emit cellEdited(CellEdit{which, selectedHead_, row, col, old, value});
            recompute();  // every head's Q, K and V
            return attn::okStatus();
        }
        setHeadCell(&multiHead_, selectedHead_, int(which) - 1, row, col, value);
        editedCells_ = userCells_.count() + otherEdits_;  // the other heads are as they were
        if (std::find(staleHeads_.begin(), staleHeads_.end(), selectedHead_) == staleHeads_.end())
            staleHeads_.push_back(selectedHead_);
        staleParts_ |= 1u << (int(which) - 1);  // W_q, W_k, W_v: attn::kHeadQuery, kHeadKey, kHeadValue
        emit cellEdited(CellEdit{which, selectedHead_, row, col, old, value});
        recomputeHeads();  // that head alone, the others kept
        return attn::okStatus();
    }
    LabResult next;
    const attn::Status computed = computeFrom(model_, &next);
    if (!computed) {
        target(row, col) = old;
        emit editRefused(problemOf(computed));
        return computed;
    }
    clearHeads();
    publish(std::move(next));
    userCells_.mask[int(which)](row, col) = true;
    if (borrowed_.active())  // back to the model's number: no longer the user's
        userCells_.mask[int(which)](row, col) = value != modelMatrix(*borrowed_.original, which)(row, col);
    editedCells_ = userCells_.count();
    emit cellEdited(CellEdit{which, 0, row, col, old, value});
    emit resultChanged();
    if (borrowed_.active())
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
    LabState s;
    s.config = config_;
    s.options = options_;
    s.X = model_.X;
    s.Wq = model_.Wq;
    s.Wk = model_.Wk;
    s.Wv = model_.Wv;
    s.heads = heads_;
    s.borrowed = borrowed_;
    if (multiHead()) {
        s.multiHead = multiHead_;
        s.selectedHead = selectedHead_;
    }
    return s;
}

std::optional<std::vector<LabCell>> Session::cellsOverDraw() const
{
    if (!problem_.isEmpty() || borrowed_.active())
        return std::nullopt;
    if (isRedrawing())  // the draw of config() is coming, with the cells kept
        return editedCells_ == 0 ? std::optional<std::vector<LabCell>>(std::vector<LabCell>()) : std::nullopt;
    if (!hasResult() || modelStale_ || !(modelConfig_ == config_))
        return std::nullopt;
    std::vector<LabCell> cells;
    cells.reserve(std::size_t(editedCells_));
    appendCells(userCells_.mask[0], model_.X, MatrixId::X, 0, &cells);
    if (!multiHead()) {
        for (int which = 1; which < 4; ++which)
            appendCells(userCells_.mask[which], matrix(MatrixId(which)), MatrixId(which), 0, &cells);
        return cells;
    }
    if (!headsDrawn_ || !sameBesidesHeads(multiHead_, drawnHeads_))
        return std::nullopt;
    // The head shown by its cells; the others (edited before it was chosen)
    // by what differs from their draw.
    for (int head = 0; head < multiHead_.headCount(); ++head) {
        if (head == selectedHead_) {
            for (int which = 1; which < 4; ++which)
                appendCells(userCells_.mask[which], matrix(MatrixId(which)), MatrixId(which), head, &cells);
        } else if (otherEdits_ > 0) {
            visitHeadDifferences(multiHead_, drawnHeads_, head, attn::kHeadAllParts,
                                 [&](int part, int row, int col, double value) {
                                     cells.push_back(LabCell{MatrixId(part + 1), head, row, col, value});
                                 });
        }
    }
    return cells;
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
        emit headSelected(selectedHead_);
        emit matrixNotice(borrowedNotice());
        return attn::okStatus();
    }
    if (state.heads.multiHead()) {
        const attn::Status status = setHeadsState(state);
        if (!status) {
            restoreComputation();
            return status;
        }
        borrowed_ = BorrowedHead();
        awaitingBorrow_ = false;
        if (wasComputing)
            worker_->cancel();
        emit parametersChanged();
        emit modelRedrawn();
        emit resultChanged();
        emit headSelected(selectedHead_);
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
    const attn::AttentionOptions oldOptions = options_;
    options_ = state.options;
    LabResult next;
    const attn::Status computed = computeFrom(m, &next);
    if (!computed) {
        options_ = oldOptions;
        restoreComputation();
        return computed;
    }
    clearHeads();
    if (wasComputing)
        worker_->cancel();
    config_ = state.config;
    modelConfig_ = state.config;
    heads_ = attn::HeadsConfig();
    borrowed_ = BorrowedHead();
    awaitingBorrow_ = false;
    userCells_ = UserCells::differences(m, drawnModel);
    model_ = std::move(m);
    modelStale_ = false;
    editedCells_ = userCells_.count();
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
    if (!hasResult() || modelStale_)
        return attn::Error{tr("There is no model to import into: %1").arg(problem_).toStdString()};
    const QString name = matrixName(which);
    attn::ModelConfig config = config_;
    if (which == MatrixId::X) {
        if (values.rows() != tokenCount())
            return attn::Error{tr("%1 has %2 rows but the sentence has %3 tokens: one row per token.")
                                   .arg(name)
                                   .arg(values.rows())
                                   .arg(tokenCount())
                                   .toStdString()};
        config.dModel = int(values.cols());
    } else {
        if (values.rows() != model_.X.cols())
            return attn::Error{tr("%1 has %2 rows but d_model is %3: one row per dimension of X.")
                                   .arg(name)
                                   .arg(values.rows())
                                   .arg(model_.X.cols())
                                   .toStdString()};
        (which == MatrixId::Wv ? config.dV : config.dK) = int(values.cols());
    }
    if (const attn::Status dims = attn::validateDimensions(config.dModel, config.dK, config.dV); !dims)
        return attn::Error{
            tr("%1 does not fit: %2").arg(name, QString::fromStdString(dims.error().message)).toStdString()};
    if (config.dModel != config_.dModel || config.dK != config_.dK || config.dV != config_.dV) {
        if (multiHead())
            return attn::Error{tr("%1 has shape (%2, %3) but head %4's is (%5, %6): with several heads an "
                                  "import keeps the shape; change d_model, d_k or d_v first.")
                                   .arg(name)
                                   .arg(values.rows())
                                   .arg(values.cols())
                                   .arg(selectedHead_ + 1)
                                   .arg(matrix(which).rows())
                                   .arg(matrix(which).cols())
                                   .toStdString()};
        if (borrowed_.active())
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
    attn::Model from = model_;
    UserCells cells = userCells_;
    mutableMatrixOf(from, which) = values;
    cells.mask[int(which)] = CellMask::Constant(values.rows(), values.cols(), true);
    KeptReport report;
    UserCells kept = keepUserCells(from, cells, &built.value(), &report);
    LabResult next;
    if (const attn::Status computed = computeFrom(built.value(), &next); !computed)
        return computed;
    clearHeads();
    const attn::ModelConfig before = config_;
    config_ = config;
    const QString keptNotice = installModel(std::move(built.value()), config, std::move(kept), report);
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
