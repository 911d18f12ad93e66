// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the head view's parts go for one size: a caption line on top, the
// head legend's swatches below it (wrapped onto as many lines as they
// need), then the tokens in two columns, queries on the left (right
// aligned), keys on the right (left aligned), and the lines between them.
// The columns scale to the height, they do not scroll: n tokens share the
// rows' height, so every token of a 1024-token sentence has a row (a
// fraction of a pixel each) and the labels are drawn only where they fit
// (labelStep). Pure geometry on plain numbers; logical pixels.

#include <QPoint>
#include <QRect>
#include <QSize>

#include <vector>

namespace attnlab {

struct HeadLinesLayout {
    // `tokens` rows in `size`; lineHeight is the font's, labelWidth the
    // widest token label's (at most a quarter of the width is given to
    // each column), legendWidths each legend entry's width.
    static HeadLinesLayout compute(const QSize& size, int tokens, int lineHeight, int labelWidth,
                                   const std::vector<int>& legendWidths);

    QSize size;
    int tokens = 0;
    QRect caption;
    std::vector<QRect> legend;  // one per entry
    QRect queries;              // the left column's labels
    QRect keys;                 // the right column's labels
    double rowHeight = 0.0;     // queries.height() / tokens
    int labelStep = 1;          // a label every labelStep rows (1: every row)
    int lineGap = 0;            // between a label column and its lines' ends

    // The vertical centre of row `token`, and the lines' ends.
    double rowCentre(int token) const { return queries.top() + (token + 0.5) * rowHeight; }
    double queryAnchor() const { return queries.right() + 1 + lineGap; }
    double keyAnchor() const { return keys.left() - lineGap; }
    // The row of the label column at `pos` (-1 outside both columns);
    // *keySide tells which column.
    int tokenAt(const QPoint& pos, bool* keySide) const;
    // The legend entry at `pos`, or -1.
    int legendAt(const QPoint& pos) const;
};

}  // namespace attnlab
