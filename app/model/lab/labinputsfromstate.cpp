// SPDX-License-Identifier: GPL-3.0-or-later
// New inputs for the lab, checked against its parameters: from a saved lab,
// an undo step or a borrowed model head (LabInputs::fromState), or the
// current ones with a matrix imported (LabInputs::withImport).
#include "labinputs.h"

#include "headparams.h"
#include "size_limits.h"

#include <algorithm>
#include <utility>

namespace attnlab {

namespace {

bool sameShape(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols();
}

// One GPT-2 head shown in the pipeline: its tokens and matrices, with the
// cells that differ from the model's numbers as the user's.
attn::Expected<LabInputs> borrowedInputs(const LabState& state)
{
    const BorrowedHead& b = state.borrowed;
    const attn::Model& original = *b.original;
    const int n = int(original.tokenization.tokens.size());
    const attn::ModelConfig& c = state.config;
    const QString what = LabInputs::tr("GPT-2 layer %1, head %2").arg(b.layer + 1).arg(b.head + 1);
    if (const attn::Status dims = attn::validateDimensions(c.dModel, c.dK, c.dV); !dims)
        return attn::Error{LabInputs::tr("%1 does not fit the pipeline: %2")
                               .arg(what, QString::fromStdString(dims.error().message))
                               .toStdString()};
    if (n < 1 || n > attn::kMaxTokens || int(original.tokenization.ids.size()) != n)
        return attn::Error{LabInputs::tr("%1 has %2 tokens; the pipeline takes 1 to %3.")
                               .arg(what)
                               .arg(n)
                               .arg(attn::kMaxTokens)
                               .toStdString()};
    if (const attn::Status entries = attn::validateEmbeddingEntries(n, c.dModel); !entries)
        return attn::Error{LabInputs::tr("%1 does not fit the pipeline: %2")
                               .arg(what, QString::fromStdString(entries.error().message))
                               .toStdString()};
    const std::pair<const attn::Matrix*, std::pair<int, int>> shapes[] = {{&state.X, {n, c.dModel}},
                                                                          {&state.Wq, {c.dModel, c.dK}},
                                                                          {&state.Wk, {c.dModel, c.dK}},
                                                                          {&state.Wv, {c.dModel, c.dV}}};
    for (int i = 0; i < 4; ++i) {
        const attn::Matrix& m = *shapes[i].first;
        if (m.rows() != shapes[i].second.first || m.cols() != shapes[i].second.second)
            return attn::Error{LabInputs::tr("%1 of %2 has shape (%3, %4) but its parameters give (%5, %6).")
                                   .arg(matrixName(MatrixId(i)), what)
                                   .arg(m.rows())
                                   .arg(m.cols())
                                   .arg(shapes[i].second.first)
                                   .arg(shapes[i].second.second)
                                   .toStdString()};
    }
    LabInputs in;
    in.model.tokenization = original.tokenization;
    in.model.X = state.X;
    in.model.Wq = state.Wq;
    in.model.Wk = state.Wk;
    in.model.Wv = state.Wv;
    in.config = c;
    in.modelConfig = c;
    in.options = state.options;
    in.modelStale = false;
    in.userCells = UserCells::differences(in.model, original);
    in.editedCells = in.userCells.count();
    in.borrowed = b;
    return in;
}

// Every head's parameters, head selectedHead's W_q, W_k, W_v those given.
attn::Expected<LabInputs> headsInputs(const LabState& state)
{
    attn::Expected<attn::Model> built = attn::buildModel(state.config);
    if (!built)
        return built.error();
    attn::Model& m = built.value();
    if (!sameShape(m.X, state.X))
        return attn::Error{LabInputs::tr("X has shape (%1, %2) but the parameters give (%3, %4).")
                               .arg(state.X.rows())
                               .arg(state.X.cols())
                               .arg(m.X.rows())
                               .arg(m.X.cols())
                               .toStdString()};
    attn::MultiHeadParams params = state.multiHead;
    const int h = params.headCount();
    if (h != state.heads.heads || params.layout != state.heads.layout)
        return attn::Error{LabInputs::tr("The lab's heads (%1, %2) do not match its parameters (%3, %4).")
                               .arg(h)
                               .arg(QLatin1String(attn::headLayoutName(params.layout)))
                               .arg(state.heads.heads)
                               .arg(QLatin1String(attn::headLayoutName(state.heads.layout)))
                               .toStdString()};
    const int selected = std::clamp(state.selectedHead, 0, h - 1);
    // W_q, W_k, W_v are the selected head's (an import replaces them there).
    const attn::HeadWeights current = params.head(selected);
    if (!sameShape(state.Wq, current.Wq) || !sameShape(state.Wk, current.Wk)
        || !sameShape(state.Wv, current.Wv))
        return attn::Error{LabInputs::tr("W_q, W_k and W_v must keep head %1's shapes (%2, %3) and (%2, %4).")
                               .arg(selected + 1)
                               .arg(current.Wq.rows())
                               .arg(current.Wq.cols())
                               .arg(current.Wv.cols())
                               .toStdString()};
    setHeadWeights(&params, selected, attn::HeadWeights{state.Wq, state.Wk, state.Wv});
    attn::Expected<attn::MultiHeadParams> drawn = drawMultiHead(state.config, state.heads);
    LabInputs in;
    in.config = state.config;
    in.modelConfig = state.config;
    in.options = state.options;
    in.heads = state.heads;
    const CellMask xCells = differingCells(state.X, m.X);
    m.X = state.X;
    in.model = std::move(m);
    in.modelStale = false;
    in.multiHead = std::move(params);
    in.headsDrawn = bool(drawn);
    in.drawnHeads = drawn ? std::move(drawn.value()) : in.multiHead;
    in.userCells = UserCells::none(in.model);
    in.userCells.mask[0] = xCells;
    in.showHead(selected);
    return in;
}

// The single head: the seed's draw with the given matrices over it.
attn::Expected<LabInputs> singleInputs(const LabState& state)
{
    attn::Expected<attn::Model> built = attn::buildModel(state.config);
    if (!built)
        return built.error();
    attn::Model& m = built.value();
    const attn::Model drawn = m;
    const attn::Matrix* given[] = {&state.X, &state.Wq, &state.Wk, &state.Wv};
    for (int i = 0; i < 4; ++i) {
        attn::Matrix& target = matrixOf(m, MatrixId(i));
        if (!sameShape(target, *given[i]))
            return attn::Error{LabInputs::tr("%1 has shape (%2, %3) but the parameters give (%4, %5).")
                                   .arg(matrixName(MatrixId(i)))
                                   .arg(given[i]->rows())
                                   .arg(given[i]->cols())
                                   .arg(target.rows())
                                   .arg(target.cols())
                                   .toStdString()};
        target = *given[i];
    }
    LabInputs in;
    in.config = state.config;
    in.modelConfig = state.config;
    in.options = state.options;
    in.userCells = UserCells::differences(m, drawn);
    in.editedCells = in.userCells.count();
    in.model = std::move(m);
    in.modelStale = false;
    return in;
}

}  // namespace

attn::Expected<LabInputs> LabInputs::fromState(const LabState& state)
{
    if (state.borrowed.active())
        return borrowedInputs(state);
    if (state.heads.multiHead())
        return headsInputs(state);
    return singleInputs(state);
}

attn::Expected<LabInputs> LabInputs::withImport(MatrixId which, const attn::Matrix& values,
                                                QString* notice) const
{
    const QString name = matrixName(which);
    attn::ModelConfig reshaped = config;
    if (which == MatrixId::X) {
        if (values.rows() != model.X.rows())
            return attn::Error{
                LabInputs::tr("%1 has %2 rows but the sentence has %3 tokens: one row per token.")
                    .arg(name)
                    .arg(values.rows())
                    .arg(model.X.rows())
                    .toStdString()};
        reshaped.dModel = int(values.cols());
    } else {
        if (values.rows() != model.X.cols())
            return attn::Error{LabInputs::tr("%1 has %2 rows but d_model is %3: one row per dimension of X.")
                                   .arg(name)
                                   .arg(values.rows())
                                   .arg(model.X.cols())
                                   .toStdString()};
        (which == MatrixId::Wv ? reshaped.dV : reshaped.dK) = int(values.cols());
    }
    if (const attn::Status dims = attn::validateDimensions(reshaped.dModel, reshaped.dK, reshaped.dV); !dims)
        return attn::Error{LabInputs::tr("%1 does not fit: %2")
                               .arg(name, QString::fromStdString(dims.error().message))
                               .toStdString()};
    if (reshaped.dModel == config.dModel && reshaped.dK == config.dK && reshaped.dV == config.dV) {
        LabState next = state();
        attn::Matrix* target[] = {&next.X, &next.Wq, &next.Wk, &next.Wv};
        *target[int(which)] = values;
        attn::Expected<LabInputs> in = fromState(next);
        if (in)
            *notice = in.value().borrowedNotice();
        return in;
    }
    if (multiHeadLab())
        return attn::Error{
            LabInputs::tr("%1 has shape (%2, %3) but head %4's is (%5, %6): with several heads an "
                          "import keeps the shape; change d_model, d_k or d_v first.")
                .arg(name)
                .arg(values.rows())
                .arg(values.cols())
                .arg(selectedHead + 1)
                .arg(matrix(which).rows())
                .arg(matrix(which).cols())
                .toStdString()};
    if (borrowed.active())
        return attn::Error{
            LabInputs::tr("%1 has shape (%2, %3) but the GPT-2 head's is (%4, %5): an import into a "
                          "borrowed head keeps its shape.")
                .arg(name)
                .arg(values.rows())
                .arg(values.cols())
                .arg(matrix(which).rows())
                .arg(matrix(which).cols())
                .toStdString()};
    // A new d_model, d_k or d_v: the seed's draw of it, with the user's
    // cells and the imported matrix laid over it.
    attn::Expected<attn::Model> built = attn::buildModel(reshaped);
    if (!built)
        return built.error();
    attn::Model from = model;
    UserCells cells = userCells;
    matrixOf(from, which) = values;
    cells.mask[int(which)] = CellMask::Constant(values.rows(), values.cols(), true);
    KeptReport report;
    UserCells kept = keepUserCells(from, cells, &built.value(), &report);
    LabInputs in = *this;
    in.clearHeads();
    in.config = reshaped;
    const QString keptNotice = in.installModel(std::move(built.value()), reshaped, std::move(kept), report);
    const QString dimension = which == MatrixId::X    ? QStringLiteral("d_model")
                              : which == MatrixId::Wv ? QStringLiteral("d_v")
                                                      : QStringLiteral("d_k");
    const int was = which == MatrixId::X ? config.dModel : which == MatrixId::Wv ? config.dV : config.dK;
    *notice = LabInputs::tr("The imported %1 has %2 columns: %3 is now %2 (was %4).")
                  .arg(name)
                  .arg(values.cols())
                  .arg(dimension)
                  .arg(was);
    if (!keptNotice.isEmpty())
        *notice += QLatin1Char(' ') + keptNotice;
    return in;
}

}  // namespace attnlab
