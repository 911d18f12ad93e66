// SPDX-License-Identifier: GPL-3.0-or-later
// Session's borrowed GPT-2 head (borrowedhead.h): taking one in through
// setState, going back to the lab's own parameters, and the notice that
// says what the pipeline shows meanwhile.
#include "session.h"

#include "size_limits.h"

#include <utility>

namespace attnlab {

attn::Status Session::setBorrowedState(const LabState& state)
{
    const BorrowedHead& b = state.borrowed;
    const attn::Model& original = *b.original;
    const int n = int(original.tokenization.tokens.size());
    const attn::ModelConfig& c = state.config;
    const QString what = tr("GPT-2 layer %1, head %2").arg(b.layer + 1).arg(b.head + 1);
    if (const attn::Status dims = attn::validateDimensions(c.dModel, c.dK, c.dV); !dims)
        return attn::Error{tr("%1 does not fit the pipeline: %2")
                               .arg(what, QString::fromStdString(dims.error().message))
                               .toStdString()};
    if (n < 1 || n > attn::kMaxTokens || int(original.tokenization.ids.size()) != n)
        return attn::Error{tr("%1 has %2 tokens; the pipeline takes 1 to %3.")
                               .arg(what)
                               .arg(n)
                               .arg(attn::kMaxTokens)
                               .toStdString()};
    if (const attn::Status entries = attn::validateEmbeddingEntries(n, c.dModel); !entries)
        return attn::Error{tr("%1 does not fit the pipeline: %2")
                               .arg(what, QString::fromStdString(entries.error().message))
                               .toStdString()};
    const std::pair<const attn::Matrix*, std::pair<int, int>> shapes[] = {{&state.X, {n, c.dModel}},
                                                                          {&state.Wq, {c.dModel, c.dK}},
                                                                          {&state.Wk, {c.dModel, c.dK}},
                                                                          {&state.Wv, {c.dModel, c.dV}}};
    const MatrixId ids[] = {MatrixId::X, MatrixId::Wq, MatrixId::Wk, MatrixId::Wv};
    for (int i = 0; i < 4; ++i) {
        const attn::Matrix& m = *shapes[i].first;
        if (m.rows() != shapes[i].second.first || m.cols() != shapes[i].second.second)
            return attn::Error{tr("%1 of %2 has shape (%3, %4) but its parameters give (%5, %6).")
                                   .arg(matrixName(ids[i]), what)
                                   .arg(m.rows())
                                   .arg(m.cols())
                                   .arg(shapes[i].second.first)
                                   .arg(shapes[i].second.second)
                                   .toStdString()};
    }
    attn::Model m;
    m.tokenization = original.tokenization;
    m.X = state.X;
    m.Wq = state.Wq;
    m.Wk = state.Wk;
    m.Wv = state.Wv;
    const attn::AttentionOptions oldOptions = options_;
    options_ = state.options;
    LabResult next;
    if (const attn::Status computed = computeFrom(m, &next); !computed) {
        options_ = oldOptions;
        return computed;
    }
    clearHeads();
    config_ = c;
    modelConfig_ = c;
    heads_ = attn::HeadsConfig();
    selectedHead_ = 0;
    userCells_ = UserCells::differences(m, original);
    model_ = std::move(m);
    modelStale_ = false;
    editedCells_ = userCells_.count();
    borrowed_ = b;
    awaitingBorrow_ = false;
    publish(std::move(next));
    setProblem(QString());
    return attn::okStatus();
}

void Session::leaveBorrowed()
{
    // modelConfig_ is the borrowed head's: what differs from it was just
    // changed by the user, the rest comes back from before the borrowing.
    const attn::ModelConfig& was = modelConfig_;
    attn::ModelConfig own = borrowed_.ownConfig;
    own.sentence = config_.sentence;
    if (config_.tokenizer != was.tokenizer)
        own.tokenizer = config_.tokenizer;
    if (config_.seed != was.seed)
        own.seed = config_.seed;
    if (config_.init != was.init)
        own.init = config_.init;
    if (config_.dModel != was.dModel)
        own.dModel = config_.dModel;
    if (config_.dK != was.dK)
        own.dK = config_.dK;
    if (config_.dV != was.dV)
        own.dV = config_.dV;
    if (heads_ == attn::HeadsConfig())
        heads_ = borrowed_.ownHeads;
    config_ = own;
    options_ = borrowed_.ownOptions;
    borrowed_ = BorrowedHead();
    awaitingBorrow_ = false;
}

void Session::releaseBorrowed()
{
    if (!borrowed_.active())
        return;
    waitForResult();
    redraw(false);
    emit parametersChanged();
}

QString Session::borrowedNotice() const
{
    if (!borrowed_.active())
        return QString();
    const int layer = borrowed_.layer + 1;
    QString text = tr("GPT-2 layer %1, head %2 of %3 — X is layer %1's LayerNorm output with a column of "
                      "ones that carries the bias (the last row of W_q, W_k, W_v).")
                       .arg(layer)
                       .arg(borrowed_.head + 1)
                       .arg(borrowed_.model);
    if (editedCells_ > 0)
        text += QLatin1Char(' ')
                + (editedCells_ == 1 ? tr("1 cell edited by you.")
                                     : tr("%1 cells edited by you.").arg(editedCells_));
    if (awaitingBorrow_)
        text += QLatin1Char(' ') + tr("Waiting for the model's pass over the new sentence…");
    return text;
}

}  // namespace attnlab
