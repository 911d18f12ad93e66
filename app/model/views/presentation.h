// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Text and colour ranges that the views show, read off the session's result.
// No widget code here and no attention arithmetic: the numbers in the text
// are entries of the result's matrices, only formatted.

#include "attention.h"
#include "matrix.h"

#include <QString>
#include <QStringList>

namespace attnlab {

class Session;

// Largest |entry| over the finite entries (masked -inf skipped), or 1 when
// there is none, for a diverging colour range [-m, m].
double symmetricRange(const attn::Matrix& m);
// The same over two matrices, for one colour range shared by both.
double symmetricRange(const attn::Matrix& a, const attn::Matrix& b);

// The same for the raw and the scaled scores of a result, from the largest
// magnitudes the engine recorded (no pass over the n x n maps): exactly
// symmetricRange(scores) and symmetricRange(scaled scores).
double scoreRange(const attn::AttentionResult& r);
double scaledScoreRange(const attn::AttentionResult& r);

// The tokens as the maps and tables label them (displayLabel, bounded): a
// label that occurs more than once carries its 1-based position ("to#4"), so
// that its rows and columns can be told apart; one that occurs once is the
// token's plain text.
QStringList positionedLabels(const QStringList& tokens);

// "1", "2", ..., "count": the labels of a matrix's dimension columns.
QStringList dimensionLabels(int count);

// Decimals for the cells of a map whose entries reach ±range: fewer as the
// numbers grow, so that they still fit in a cell.
int decimalsForRange(double range);

// A number as printed in tooltips and tables: 4 decimals, or scientific
// notation when that would hide it.
QString formatForDisplay(double value);

// "10⁻³": a power of ten with a superscript exponent ("1" for 10⁰), as the
// log colour scales label their decades.
QString powerOfTenText(int exponent);

// What the scores are divided by: "√24", "1", "2.5".
QString divisorText(const Session& session);

// The tooltip of cell (query, key) of any of the three score maps, e.g.
//   query "is" (2), key "short" (3)
//   q(is) · k(short) = 11.1466 ÷ √24 = 2.2753 → softmax 0.4917
QString scoreCellToolTip(const Session& session, int query, int key);

}  // namespace attnlab
