// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The focused query as a figure for slides, drawn from the snapshot's
// numbers (not a grab of the panel): a title naming the query, then its
// scaled scores q_i · k_j / divisor over the keys (bars about zero) above
// its softmax weights a_ij (bars from 0 to 1), each bar labelled with its
// key and, where it fits, its value; white ground, black text, like the
// other exported figures. At thousands of keys a bar stands for a run of
// keys (focusBars), its largest value kept.

#include "attentionsnapshot.h"

#include <QSize>

class QPainter;

namespace attnlab {

// Draws query `query` (clamped to the tokens) filling (0, 0, size).
void paintFocusedQueryFigure(QPainter& painter, const QSize& size, const AttentionSnapshot& snapshot,
                             int query);

}  // namespace attnlab
