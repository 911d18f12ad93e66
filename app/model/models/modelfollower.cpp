// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelfollower.h"

#include "borrowedhead.h"
#include "modelheadstate.h"
#include "modelsession.h"
#include "session.h"

namespace attnlab {

ModelFollower::ModelFollower(ModelSession* model, Session* lab, QObject* parent)
    : QObject(parent), model_(model), lab_(lab)
{
    lab_->setFollowsModel(true);
    followSentence();
    // Typed: before the lab redraws, so that the model's pass starts first.
    connect(lab_, &Session::sentenceChanged, this, &ModelFollower::followSentence);
    // Any other change of the lab's parameters (a lab opened, undo, a preset).
    connect(lab_, &Session::parametersChanged, this, &ModelFollower::followSentence);
    connect(model_, &ModelSession::resultChanged, this, &ModelFollower::followPass);
}

void ModelFollower::followSentence()
{
    // A sentence the model refuses (empty, too long) keeps the borrowed head
    // on display, waiting, as the lab keeps its last good model; the Model
    // tab says why.
    const QString text = QString::fromStdString(lab_->inputs().config.sentence);
    if (text != model_->sentence())
        model_->setSentence(text);
}

void ModelFollower::followPass()
{
    if (!lab_->inputs().borrowed.active() || model_->isComputing())
        return;
    const BorrowedHead& shown = lab_->inputs().borrowed;
    const bool awaits = lab_->inputs().awaitingBorrow;
    // The user's edits of the head, or a head of another model (undo), stay.
    if (!awaits
        && (lab_->inputs().editedCells > 0 || !model_->hasModel()
            || shown.identity != model_->model()->identity))
        return;
    if (model_->sentence().toStdString() != lab_->inputs().config.sentence)
        return;  // the pass of another sentence than the lab's
    const attn::Expected<LabState> state = modelHeadState(*model_, shown.layer, shown.head, *lab_);
    if (!state) {
        if (awaits)
            lab_->releaseBorrowed();
        return;
    }
    const attn::AttentionOptions& o = lab_->inputs().options;
    if (!awaits && state->options.scale == o.scale && state->options.customDivisor == o.customDivisor
        && state->options.causal == o.causal && state->options.mask == o.mask
        && state->X == lab_->inputs().matrix(MatrixId::X))
        return;  // nothing new for this head (a temperature, another head's divisor)
    lab_->setState(*state);
}

}  // namespace attnlab
