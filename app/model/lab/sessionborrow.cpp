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
    const attn::AttentionOptions oldOptions = in_.options;
    in_.options = state.options;
    LabResult next;
    if (const attn::Status computed = computeFrom(m, &next); !computed) {
        in_.options = oldOptions;
        return computed;
    }
    in_.clearHeads();
    in_.config = c;
    in_.modelConfig = c;
    in_.heads = attn::HeadsConfig();
    in_.selectedHead = 0;
    in_.userCells = UserCells::differences(m, original);
    in_.model = std::move(m);
    in_.modelStale = false;
    in_.editedCells = in_.userCells.count();
    in_.borrowed = b;
    in_.awaitingBorrow = false;
    publish(std::move(next));
    setProblem(QString());
    return attn::okStatus();
}

void Session::releaseBorrowed()
{
    if (!in_.borrowed.active())
        return;
    waitForResult();
    redraw(false);
    emit parametersChanged();
}

}  // namespace attnlab
