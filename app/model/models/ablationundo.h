// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head lab's ablation as part of the lab (issue 39): each change of the
// ablated heads or their mode (ModelSession::setAblation, from the grid's
// Ctrl+click or the Ablation page) is one step on the lab's undo stack,
// undone and redone by setting the heads and mode back; and the ablation is
// saved in the lab file's "view" object, read back when the lab is opened:
//
//   "model_ablation": {"heads": [[LAYER, HEAD], ...], "mode": "zero" | "mean",
//                      "model": "FOLDER NAME"}
//
// layers and heads numbered from 0, as --ablate numbers them; "model" is
// the name of the model's folder ("gpt2", "demo"), absent in files written
// before it was. A lab opened before its model keeps the ablation waiting
// and applies it once a model is open; with another model open (another
// folder name), or heads the model does not have, it is refused with one
// line (message()) and the ablation is left empty. Opening another model
// clears the ablation without an undo step (its heads are another model's).

#include "decoder_model.h"
#include "expected.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <optional>
#include <vector>

class QUndoStack;

namespace attnlab {

class ModelSession;

struct AblationChoice {
    std::vector<attn::HeadIndex> heads;
    attn::HeadAblation mode = attn::HeadAblation::Zero;
    // The name of the model's folder it was saved with; empty: any model
    // (a file without it, or an undo step, which is the open model's).
    QString model;
};

class AblationUndo : public QObject {
    Q_OBJECT
public:
    AblationUndo(ModelSession* session, QUndoStack* stack, QObject* parent = nullptr);

    // The view object's key, and the choice as it is written there.
    static constexpr char kViewKey[] = "model_ablation";
    static QJsonObject toJson(const AblationChoice& choice);
    // A malformed object is an error naming the problem.
    static attn::Expected<AblationChoice> fromJson(const QJsonObject& object);

    // Adds the session's ablation (if any) to `view`.
    void saveTo(QJsonObject* view) const;
    // Sets the ablation `view` holds (none without the key), not an undo
    // step; applied at once with a model open, else when one opens.
    void loadFrom(const QJsonObject& view);
    // Forgets an ablation waiting for a model (a lab that opens its own
    // model hands its ablation over once that one is open).
    void clearPending() { pending_.reset(); }

signals:
    // A saved ablation that could not be applied, in one line.
    void message(const QString& text);

private:
    void record();
    void apply(const AblationChoice& choice);

    ModelSession* session_;
    QUndoStack* stack_;
    AblationChoice last_;  // the session's ablation as last recorded
    std::optional<AblationChoice> pending_;
    bool applying_ = false;
};

}  // namespace attnlab
