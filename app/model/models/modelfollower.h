// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The opened model follows the lab. The lab's Session owns the sentence
// (typed, opened with a lab, set by a preset, the command line or undo);
// the model reads that sentence and no other. While the lab shows one of
// the model's heads (borrowed, modelHeadState), every new pass of the model
// shows the same layer and head of it, unless the user has edited the
// head's cells or it is a head of another model (an undo step); a lab
// awaiting the pass over a new sentence (Session::awaitsBorrow) takes it,
// or lets the head go when the model cannot give it.

#include <QObject>

namespace attnlab {

class ModelSession;
class Session;

class ModelFollower : public QObject {
    Q_OBJECT
public:
    // Sets `lab`'s follow mode (Session::setFollowsModel) and gives `model`
    // the lab's sentence now and whenever it changes.
    ModelFollower(ModelSession* model, Session* lab, QObject* parent = nullptr);

private:
    void followSentence();
    void followPass();  // a new pass: the borrowed head follows it

    ModelSession* model_;
    Session* lab_;
};

}  // namespace attnlab
