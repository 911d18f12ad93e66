// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One cell typed or set by the user: the text read as a number, the checks
// a value passes before it enters a matrix, and the edit as the session
// announces it (Session::cellEdited) and the undo stack keeps it.

#include "expected.h"
#include "labinputs.h"
#include "matrix.h"

#include <QString>

namespace attnlab {

// One cell that Session::setMatrixCell changed: of X, or of W_q, W_k or W_v
// of head `head` (0 with one head).
struct CellEdit {
    MatrixId which = MatrixId::X;
    int head = 0;
    int row = 0;
    int col = 0;
    double before = 0.0;
    double after = 0.0;
};

// Text to a finite number within attn::kMaxInputMagnitude (C locale, or the
// user's locale for its digits; a comma is refused as a decimal separator:
// the point is the one used throughout), or a readable error.
attn::Expected<double> parseCellValue(const QString& text);
// The same for cell (row, col) of matrix `which`, its error a whole
// message: "W_q(2, 3): "x" is not a finite number. The old value is kept."
attn::Expected<double> parseCellValue(MatrixId which, int row, int col, const QString& text);

// Why `value` cannot go into cell (row, col) of `m` (matrix `which`): no such
// cell, not finite, or larger than attn::kMaxInputMagnitude; empty when it can.
QString cellRefusal(const attn::Matrix& m, MatrixId which, int row, int col, double value);

}  // namespace attnlab
