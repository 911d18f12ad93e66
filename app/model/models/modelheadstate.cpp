// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelheadstate.h"

#include "gpt2folder.h"
#include "modelsession.h"
#include "session.h"
#include "size_limits.h"

#include <QCoreApplication>
#include <QDir>

#include <cmath>
#include <memory>

namespace attnlab {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("attnlab::ModelHeadState", text);
}

// Rows 0..E-1: columns first..first+width-1 of the Conv1D weight (in, out);
// row E: the same columns of its bias.
attn::Matrix sliceWithBias(const attn::FloatTensor& weight, const attn::FloatTensor& bias, int first,
                           int width)
{
    const int in = weight.rows;
    attn::Matrix w(in + 1, width);
    w.topRows(in) = weight.map().middleCols(first, width).cast<double>();
    w.row(in) = bias.map().middleCols(first, width).cast<double>();
    return w;
}

}  // namespace

attn::Expected<LabState> modelHeadState(const ModelSession& gpt2, int layer, int head, const Session& lab)
{
    const std::shared_ptr<const attn::DecoderResult> result = gpt2.result();
    if (!gpt2.hasModel() || !result)
        return attn::Error{
            tr("No model pass to show: open a model (File > Open model…) first.").toStdString()};
    if (gpt2.isComputing())
        return attn::Error{
            tr("The model is still computing the sentence; show the head once it is done.").toStdString()};
    const attn::Gpt2Weights* weights = gpt2Weights(*gpt2.model());
    if (!weights)
        return attn::Error{tr("Showing a head of a %1 model in the pipeline is not supported yet.")
                               .arg(gpt2.model()->familyName)
                               .toStdString()};
    const attn::Gpt2Weights& w = *weights;
    const attn::Gpt2Config& c = w.config;
    if (layer < 0 || layer >= c.nLayer || head < 0 || head >= c.nHead || layer >= int(result->layers.size()))
        return attn::Error{tr("The model has no layer %1, head %2: it has %3 layers of %4 heads.")
                               .arg(layer + 1)
                               .arg(head + 1)
                               .arg(c.nLayer)
                               .arg(c.nHead)
                               .toStdString()};
    const int hd = c.headDim();
    const int e = c.nEmbd;
    if (e + 1 > attn::kMaxDModel || hd > attn::kMaxDHead)
        return attn::Error{tr("%8 layer %1, head %2 cannot be shown in the pipeline: its X would be "
                              "%3 wide (n_embd %4 and the bias column) and the pipeline takes d_model "
                              "up to %5 (d_k up to %6; head_dim is %7).")
                               .arg(layer + 1)
                               .arg(head + 1)
                               .arg(e + 1)
                               .arg(e)
                               .arg(attn::kMaxDModel)
                               .arg(attn::kMaxDHead)
                               .arg(hd)
                               .arg(gpt2.model()->familyName)
                               .toStdString()};
    const attn::Matrix& ln1 = result->layers[std::size_t(layer)].attentionInput;
    const std::vector<ModelToken>& tokens = gpt2.resultTokens();
    const int n = int(ln1.rows());
    if (int(tokens.size()) != n)
        return attn::Error{tr("The model's pass and its tokens disagree.").toStdString()};

    auto original = std::make_shared<attn::Model>();
    for (const ModelToken& t : tokens) {
        original->tokenization.tokens.push_back(t.display.toStdString());
        original->tokenization.ids.push_back(t.id);
    }
    original->X.resize(n, e + 1);
    original->X.leftCols(e) = ln1;
    original->X.col(e).setOnes();
    const attn::Gpt2Block& block = w.blocks[std::size_t(layer)];
    original->Wq = sliceWithBias(block.attnWeight, block.attnBias, head * hd, hd);
    original->Wk = sliceWithBias(block.attnWeight, block.attnBias, e + head * hd, hd);
    original->Wv = sliceWithBias(block.attnWeight, block.attnBias, 2 * e + head * hd, hd);

    LabState state = borrowedHeadState(std::move(original), QDir(gpt2.modelFolder()).dirName(), layer, head,
                                       result->divisors.at(layer, head), gpt2.sentence().toStdString(), lab);
    state.borrowed.identity = gpt2.model()->identity;
    return state;
}

LabState borrowedHeadState(std::shared_ptr<const attn::Model> original, const QString& model, int layer,
                           int head, double divisor, const std::string& sentence, const Session& lab)
{
    LabState s;
    const BorrowedHead& was = lab.inputs().borrowed;
    s.borrowed.model = model;
    s.borrowed.layer = layer;
    s.borrowed.head = head;
    s.borrowed.ownConfig = was.active() ? was.ownConfig : lab.inputs().config;
    s.borrowed.ownOptions = was.active() ? was.ownOptions : lab.inputs().options;
    s.borrowed.ownHeads = was.active() ? was.ownHeads : lab.inputs().heads;
    s.config = s.borrowed.ownConfig;
    s.config.sentence = sentence;
    s.config.dModel = int(original->X.cols());
    s.config.dK = int(original->Wq.cols());
    s.config.dV = int(original->Wv.cols());
    s.options.causal = true;
    if (divisor == std::sqrt(double(s.config.dK))) {
        s.options.scale = attn::ScaleMode::SqrtDk;
    } else if (divisor == 1.0) {
        s.options.scale = attn::ScaleMode::None;
    } else {
        s.options.scale = attn::ScaleMode::Custom;
        s.options.customDivisor = divisor;
    }
    s.X = original->X;
    s.Wq = original->Wq;
    s.Wk = original->Wk;
    s.Wv = original->Wv;
    s.borrowed.original = std::move(original);
    return s;
}

}  // namespace attnlab
