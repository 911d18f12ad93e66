// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the lab computes from, as one value: the parameters as requested,
// the matrices of the last good model (X, and W_q, W_k, W_v of the single
// head or of the head shown), every head's parameters and the seed's draw
// of them, the cells that are the user's, and where the numbers come from:
// the seed's draw (with the user's cells over it), or a model's head
// (borrowed). Session holds one and publishes a LabResult computed from it;
// a saved lab, an undo step and the autosave are its state() (LabState).
//
// The operations here change the value alone: they compute nothing, emit
// nothing and never touch a result.

#include "attention.h"
#include "borrowedhead.h"
#include "labfile.h"
#include "model.h"
#include "multihead.h"
#include "usercells.h"

#include <QCoreApplication>
#include <QString>

#include <optional>
#include <vector>

namespace attnlab {

enum class MatrixId { X, Wq, Wk, Wv };

// One cell of a lab and its value: of X, or of head `head`'s W_q, W_k or
// W_v (0 with one head).
struct LabCell {
    MatrixId which = MatrixId::X;
    int head = 0;
    int row = 0;
    int col = 0;
    double value = 0.0;
};
// The same cell with the same value, bit for bit (-0 is not 0).
bool sameCell(const LabCell& a, const LabCell& b);

// True where `value` differs from `drawn` (all false when the shapes differ).
CellMask differingCells(const attn::Matrix& value, const attn::Matrix& drawn);

QString matrixName(MatrixId which);  // "X", "W_q", ...

const attn::Matrix& matrixOf(const attn::Model& model, MatrixId which);
attn::Matrix& matrixOf(attn::Model& model, MatrixId which);

struct LabInputs {
    Q_DECLARE_TR_FUNCTIONS(LabInputs)

public:
    // The request: what the user asked for (it may have no result).
    attn::ModelConfig config;
    attn::AttentionOptions options;
    attn::HeadsConfig heads;

    // The last good model: its matrices, the parameters it was drawn with,
    // and whether it was drawn from the current config.
    attn::Model model;
    attn::ModelConfig modelConfig;
    bool modelStale = true;

    // Multi-head: every head's parameters (the head shown mirrored into
    // model's W_q, W_k, W_v), the seed's draw of them (headsDrawn: a real
    // draw, not the parameters standing in for a draw that was refused), the
    // head shown, and the heads edited since the last pass (which of their
    // W_q, W_k, W_v: attn::HeadParts).
    attn::MultiHeadParams multiHead;
    attn::MultiHeadParams drawnHeads;
    bool headsDrawn = false;
    int selectedHead = 0;
    std::vector<int> staleHeads;
    unsigned staleParts = 0;

    // The user's cells of model (typed or imported), their count, and the
    // other heads' (otherHeadsEdits() when the head shown was chosen).
    UserCells userCells;
    int editedCells = 0;
    int otherEdits = 0;

    // A model's head shown with the lab's engine (borrowedhead.h), and a new
    // sentence waiting for the model's pass over it.
    BorrowedHead borrowed;
    bool awaitingBorrow = false;

    bool multiHeadLab() const { return heads.multiHead(); }
    const attn::Matrix& matrix(MatrixId which) const { return matrixOf(model, which); }
    attn::Matrix& matrix(MatrixId which) { return matrixOf(model, which); }

    // Parameters and the current matrices (the view left empty). Only
    // meaningful while the session has no problem(): with one, config is the
    // refused request and the matrices belong to the last good model.
    LabState state() const;
    // The inputs of a saved lab, an undo step or a borrowed model head
    // (labinputsfromstate.cpp): the matrices must have the shapes the
    // parameters give (a borrowed head's X a row per model token); cells
    // that differ from the seed's draw (or the model's numbers) are the
    // user's. An error names the matrix and both shapes.
    static attn::Expected<LabInputs> fromState(const LabState& state);
    // These inputs with one whole matrix replaced (an import). X must have a
    // row per token, a weight matrix d_model rows; a new width sets d_model
    // (X), d_k (W_q, W_k) or d_v (W_v), drawn afresh from the seed with the
    // user's cells kept (the single head alone, and not a borrowed head).
    // `notice` says what the window should show about it.
    attn::Expected<LabInputs> withImport(MatrixId which, const attn::Matrix& values, QString* notice) const;
    // The user's cells over the seed's draw of config and heads (see
    // Session::cellsOverDraw), or nullopt when the matrices are not that.
    std::optional<std::vector<LabCell>> cellsOverDraw() const;

    // `drawn` becomes the model, with `cells` its user cells; returns what
    // became of the user's cells (describeKept).
    QString installModel(attn::Model&& drawn, const attn::ModelConfig& drawnFrom, UserCells cells,
                         const KeptReport& report);
    // Head `head`'s weights into model's W_q, W_k, W_v and its user cells;
    // countOthers false: the other heads are as they were when the head shown
    // was last chosen, so otherEdits stands.
    void showHead(int head, bool countOthers = true);
    int otherHeadsEdits() const;
    void clearHeads();  // back to the single head's bookkeeping

    // A cell the user typed, already in matrix(which), counted as the
    // user's. With several heads a weight is the selected head's and marks
    // that head stale (its W_q, W_k or W_v part); in the single head a cell
    // set back to a borrowed head's own number is the model's again.
    void countHeadsCell(MatrixId which, int row, int col, double value);
    void countSingleCell(MatrixId which, int row, int col, double value);

    // Leaving a borrowed head: config, options and heads back to the lab's
    // own, with what the user changed meanwhile.
    void leaveBorrowed();
    // What the borrowed head is, for the window's notice; empty when none is.
    QString borrowedNotice() const;
};

}  // namespace attnlab
