// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The cells of X, W_q, W_k and W_v that are the user's (typed or imported)
// rather than the seed's draw, and how they are carried into a redraw.
//
// A redraw (another d_k, d_model, d_v, sentence, seed, initialisation or
// tokenizer) draws every matrix afresh from the seed and then lays the
// user's cells back over the draw where they still have a place: W cells at
// the same (dimension, column) index, X cells at the same dimension of the
// same token (a repeated word by its occurrence: the second "to" keeps the
// second "to"'s row). A shape that grows gets its new cells from the draw; a
// shape that shrinks drops the user's cells outside it, and the report says
// how many.

#include "model.h"

#include <QString>

#include <Eigen/Core>

namespace attnlab {

using CellMask = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic>;

struct UserCells {
    CellMask mask[4];  // X, W_q, W_k, W_v, each the shape of its matrix
    int count() const;
    int count(int which) const;
    // All false, in the shapes of `model`'s matrices.
    static UserCells none(const attn::Model& model);
    // True where `model` differs from `drawn` (same shapes).
    static UserCells differences(const attn::Model& model, const attn::Model& drawn);
};

// What a redraw did with the user's cells of each matrix.
struct KeptReport {
    int before[4] = {0, 0, 0, 0};                 // the user's cells before
    int kept[4] = {0, 0, 0, 0};                   // of those, still there
    bool grew[4] = {false, false, false, false};  // new rows or columns from the draw
    bool anyUserCells() const { return before[0] + before[1] + before[2] + before[3] > 0; }
    int dropped() const;
};

// `drawn` (just drawn from the new config) gets the user's cells of `from`.
// Returns the user's cells of the result.
UserCells keepUserCells(const attn::Model& from, const UserCells& cells, attn::Model* drawn,
                        KeptReport* report);

// The sentence for the window, e.g. "d_k 24 → 16: W_q keeps 256 of your 384
// cells; 128 no longer fit and were dropped. Undo (Ctrl+Z) brings them back."
// Empty when there is nothing to say (no user cells, or all kept in place).
QString describeKept(const KeptReport& report, const attn::ModelConfig& before,
                     const attn::ModelConfig& after);

}  // namespace attnlab
