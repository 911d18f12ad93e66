// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Model tab's model and what-ifs as part of the lab (issue 40): saved
// in the lab file's "view" object while a model is open, and opened again
// with the lab:
//
//   "model": {"folder": "/abs/path/gpt2" | "demo",
//             "divisors": "none" | 2.5 | [["sqrt-dk", 2.5], ["none", "sqrt-dk"]],
//             "mask": "sliding:8", "qk_norm_removed": true,
//             "temperature": 0.7, "selected": [LAYER, HEAD]}
//
// Only the what-ifs that differ from the model's own are written:
// "divisors" (each head's as --scale spells it, or one value for every
// head) once one head's is not sqrt-dk, "mask" (as --mask spells it) once
// set, "qk_norm_removed" once true, "temperature" once not 1. "selected"
// is the selected head, numbered from 0 as model_ablation numbers them.
//
// Opening a lab with "model" opens that folder (unless it is open already)
// and, once it is, sets the what-ifs, the selection and then the lab's
// model_ablation (AblationUndo), none of them an undo step, in one pass.
// A malformed object is refused in one line and the ablation is read as
// in a lab without it; a folder that is missing or fails to read is told
// in one line and the Model tab stays as it was. A lab without "model"
// only hands its ablation to AblationUndo, as before.

#include "attention.h"
#include "attention_mask.h"
#include "expected.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <optional>
#include <vector>

namespace attnlab {

class AblationUndo;
class ModelSession;

struct SavedModel {
    QString folder;  // absolute, or kDemoModelName
    // Every head's divisor mode, layer-major (layers x heads), and for
    // ScaleMode::Custom its divisor; one entry: every head's; none:
    // sqrt(head_dim) everywhere.
    int layers = 0;  // rows of the table (0 with one entry or none)
    std::vector<attn::ScaleMode> modes;
    std::vector<double> divisors;
    std::optional<attn::AttentionMask> mask;
    bool qkNormRemoved = false;
    double temperature = 1.0;
    int layer = 0;
    int head = 0;
};

class ModelViewState : public QObject {
    Q_OBJECT
public:
    // `ablation` receives the lab's model_ablation (may be null: none).
    ModelViewState(ModelSession* session, AblationUndo* ablation, QObject* parent = nullptr);

    static constexpr char kViewKey[] = "model";
    static QJsonObject toJson(const SavedModel& saved);
    // A malformed object is an error naming the problem.
    static attn::Expected<SavedModel> fromJson(const QJsonValue& value);
    // The open model as saved (its folder "demo" for the demo model).
    static SavedModel fromSession(const ModelSession& session);

    // Adds the open model (or the one the lab waits for) and its ablation
    // (AblationUndo's) to `view`.
    void saveTo(QJsonObject* view) const;
    // Opens the model `view` names and sets its what-ifs and ablation, or
    // hands the ablation alone to AblationUndo without "model".
    void loadFrom(const QJsonObject& view);
    // The folder the lab is waiting for (empty: none).
    QString pendingFolder() const { return pending_ ? pendingPath_ : QString(); }

signals:
    // Emitted just before the session starts reading the lab's model.
    void openingModel(const QString& folder);
    // What could not be restored, in one line.
    void message(const QString& text);
    // The lab's what-ifs, selection and ablation are set (the controls
    // that show them follow the session).
    void restored();

private:
    void opened();
    void failed(const QString& reason);
    void apply(const SavedModel& saved, const QJsonObject& view);

    ModelSession* session_;
    AblationUndo* ablation_;
    std::optional<SavedModel> pending_;
    QString pendingPath_;  // the folder being read for pending_
    QJsonObject pendingView_;
};

}  // namespace attnlab
