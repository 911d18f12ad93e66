// SPDX-License-Identifier: GPL-3.0-or-later
#include "labinputs.h"

#include "headparams.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace attnlab {

namespace {

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

// Head i's entries of W_q, W_k and W_v that differ between `value` and
// `drawn`, read where they are (visitHeadDifferences): copying the blocks
// out, a seed step at d_model 512 and 8 heads copied 14 of them.
int differingHeadEntries(const attn::MultiHeadParams& value, const attn::MultiHeadParams& drawn, int i)
{
    int n = 0;
    visitHeadDifferences(value, drawn, i, attn::kHeadAllParts, [&n](int, int, int, double) { ++n; });
    return n;
}

}  // namespace

CellMask differingCells(const attn::Matrix& value, const attn::Matrix& drawn)
{
    if (value.rows() != drawn.rows() || value.cols() != drawn.cols())
        return CellMask::Constant(value.rows(), value.cols(), false);
    return value.array() != drawn.array();
}

bool sameCell(const LabCell& a, const LabCell& b)
{
    return a.which == b.which && a.head == b.head && a.row == b.row && a.col == b.col
           && std::memcmp(&a.value, &b.value, sizeof a.value) == 0;
}

QString matrixName(MatrixId which)
{
    switch (which) {
    case MatrixId::X: return QStringLiteral("X");
    case MatrixId::Wq: return QStringLiteral("W_q");
    case MatrixId::Wk: return QStringLiteral("W_k");
    case MatrixId::Wv: return QStringLiteral("W_v");
    }
    return {};
}

const attn::Matrix& matrixOf(const attn::Model& model, MatrixId which)
{
    switch (which) {
    case MatrixId::X: return model.X;
    case MatrixId::Wq: return model.Wq;
    case MatrixId::Wk: return model.Wk;
    case MatrixId::Wv: return model.Wv;
    }
    return model.X;
}

attn::Matrix& matrixOf(attn::Model& model, MatrixId which)
{
    return const_cast<attn::Matrix&>(matrixOf(std::as_const(model), which));
}

LabState LabInputs::state() const
{
    LabState s;
    s.config = config;
    s.options = options;
    s.X = model.X;
    s.Wq = model.Wq;
    s.Wk = model.Wk;
    s.Wv = model.Wv;
    s.heads = heads;
    s.borrowed = borrowed;
    if (multiHeadLab()) {
        s.multiHead = multiHead;
        s.selectedHead = selectedHead;
    }
    return s;
}

std::optional<std::vector<LabCell>> LabInputs::cellsOverDraw() const
{
    if (borrowed.active() || modelStale || !(modelConfig == config))
        return std::nullopt;
    std::vector<LabCell> cells;
    cells.reserve(std::size_t(editedCells));
    appendCells(userCells.mask[0], model.X, MatrixId::X, 0, &cells);
    if (!multiHeadLab()) {
        for (int which = 1; which < 4; ++which)
            appendCells(userCells.mask[which], matrix(MatrixId(which)), MatrixId(which), 0, &cells);
        return cells;
    }
    if (!headsDrawn || !sameBesidesHeads(multiHead, drawnHeads))
        return std::nullopt;
    // The head shown by its cells; the others (edited before it was chosen)
    // by what differs from their draw.
    for (int head = 0; head < multiHead.headCount(); ++head) {
        if (head == selectedHead) {
            for (int which = 1; which < 4; ++which)
                appendCells(userCells.mask[which], matrix(MatrixId(which)), MatrixId(which), head, &cells);
        } else if (otherEdits > 0) {
            visitHeadDifferences(multiHead, drawnHeads, head, attn::kHeadAllParts,
                                 [&](int part, int row, int col, double value) {
                                     cells.push_back(LabCell{MatrixId(part + 1), head, row, col, value});
                                 });
        }
    }
    return cells;
}

QString LabInputs::installModel(attn::Model&& drawn, const attn::ModelConfig& drawnFrom, UserCells cells,
                                const KeptReport& report)
{
    const attn::ModelConfig before = modelConfig;
    model = std::move(drawn);
    modelConfig = drawnFrom;
    modelStale = false;
    userCells = std::move(cells);
    editedCells = userCells.count();
    return describeKept(report, before, drawnFrom);
}

void LabInputs::showHead(int head, bool countOthers)
{
    selectedHead = head;
    attn::HeadWeights w = multiHead.head(head);
    const bool drawn = head < drawnHeads.headCount();
    const attn::HeadWeights d = drawn ? drawnHeads.head(head) : w;
    userCells.mask[1] = differingCells(w.Wq, d.Wq);
    userCells.mask[2] = differingCells(w.Wk, d.Wk);
    userCells.mask[3] = differingCells(w.Wv, d.Wv);
    model.Wq = std::move(w.Wq);
    model.Wk = std::move(w.Wk);
    model.Wv = std::move(w.Wv);
    if (countOthers)
        otherEdits = otherHeadsEdits();
    editedCells = userCells.count() + otherEdits;
}

int LabInputs::otherHeadsEdits() const
{
    int count = 0;
    for (int i = 0; i < multiHead.headCount(); ++i) {
        if (i == selectedHead)
            continue;
        if (i >= drawnHeads.headCount()) {
            const attn::HeadWeights w = multiHead.head(i);
            count += int(w.Wq.size() + w.Wk.size() + w.Wv.size());
            continue;
        }
        count += differingHeadEntries(multiHead, drawnHeads, i);
    }
    return count;
}

void LabInputs::clearHeads()
{
    staleHeads.clear();
    staleParts = 0;
    otherEdits = 0;
    multiHead = attn::MultiHeadParams();
    drawnHeads = attn::MultiHeadParams();
    headsDrawn = false;
    selectedHead = 0;
}

void LabInputs::leaveBorrowed()
{
    // modelConfig is the borrowed head's: what differs from it was just
    // changed by the user, the rest comes back from before the borrowing.
    const attn::ModelConfig& was = modelConfig;
    attn::ModelConfig own = borrowed.ownConfig;
    own.sentence = config.sentence;
    if (config.tokenizer != was.tokenizer)
        own.tokenizer = config.tokenizer;
    if (config.seed != was.seed)
        own.seed = config.seed;
    if (config.init != was.init)
        own.init = config.init;
    if (config.dModel != was.dModel)
        own.dModel = config.dModel;
    if (config.dK != was.dK)
        own.dK = config.dK;
    if (config.dV != was.dV)
        own.dV = config.dV;
    if (heads == attn::HeadsConfig())
        heads = borrowed.ownHeads;
    config = own;
    options = borrowed.ownOptions;
    borrowed = BorrowedHead();
    awaitingBorrow = false;
}

QString LabInputs::borrowedNotice() const
{
    if (!borrowed.active())
        return QString();
    const int layer = borrowed.layer + 1;
    QString text = tr("GPT-2 layer %1, head %2 of %3 — X is layer %1's LayerNorm output with a column of "
                      "ones that carries the bias (the last row of W_q, W_k, W_v).")
                       .arg(layer)
                       .arg(borrowed.head + 1)
                       .arg(borrowed.model);
    if (editedCells > 0)
        text += QLatin1Char(' ')
                + (editedCells == 1 ? tr("1 cell edited by you.")
                                    : tr("%1 cells edited by you.").arg(editedCells));
    if (awaitingBorrow)
        text += QLatin1Char(' ') + tr("Waiting for the model's pass over the new sentence…");
    return text;
}

void LabInputs::countHeadsCell(MatrixId which, int row, int col, double value)
{
    userCells.mask[int(which)](row, col) = true;
    if (which != MatrixId::X) {
        setHeadCell(&multiHead, selectedHead, int(which) - 1, row, col, value);
        if (std::find(staleHeads.begin(), staleHeads.end(), selectedHead) == staleHeads.end())
            staleHeads.push_back(selectedHead);
        staleParts |= 1u << (int(which) - 1);  // W_q, W_k, W_v: attn::kHeadQuery, kHeadKey, kHeadValue
    }
    editedCells = userCells.count() + otherEdits;  // the other heads are as they were
}

void LabInputs::countSingleCell(MatrixId which, int row, int col, double value)
{
    userCells.mask[int(which)](row, col) = true;
    if (borrowed.active())  // back to the model's number: no longer the user's
        userCells.mask[int(which)](row, col) = value != matrixOf(*borrowed.original, which)(row, col);
    editedCells = userCells.count();
}

}  // namespace attnlab
