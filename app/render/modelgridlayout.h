// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the model grid's tiles go for one size: a model's layers as rows
// (labelled "L1".. on the left), its heads as columns (labelled "H1".. on
// top), one square map per (layer, head), all of one side, the grid
// centred, and the colour legend along the bottom. Where a tile's rows keep
// a line of text, each map has its tokens' labels beside it, as the head
// grid's tiles do (tiletokenlabels.h). Pure geometry on plain
// numbers, so that the screen, the exported pictures and the tests share it.
// Logical pixels throughout.

#include <QPoint>
#include <QRect>
#include <QSize>

#include <vector>

namespace attnlab {

struct ModelGridLayout {
    // layers x heads tiles in `size`; lineHeight is the font's, labelWidth
    // the widest row label's ("L12"). The legend takes one line at the
    // bottom when that leaves the grid at least four lines.
    // With `tokens` and `tokenLabelWidth` (the widest token label), each
    // map gets room for its tokens' labels where tileLabelsFit says so.
    // With `kvHeads` from 1 to heads - 1 dividing heads (grouped-query
    // attention), a second line above the head labels holds one label per
    // key/value head spanning the query heads that share it (groupLabels).
    static ModelGridLayout compute(const QSize& size, int layers, int heads, int lineHeight, int labelWidth,
                                   int tokens = 0, int tokenLabelWidth = 0, int kvHeads = 0);

    QSize size;
    int layers = 0;
    int heads = 0;
    int side = 0;                    // of every map
    int gap = 0;                     // between maps: room for the selected tile's 2 px outline
    QSize tileStep;                  // from one map to the next: labels, map and gap
    std::vector<QRect> tiles;        // layer-major: tiles[layer * heads + head]
    std::vector<QRect> layerLabels;  // left of each row
    std::vector<QRect> headLabels;   // above each column
    std::vector<QRect> groupLabels;  // above the head labels, one per key/value head; empty: none
    QRect legend;                    // empty: none
    // Each tile's token labels (layer-major, as tiles): the queries left of
    // the map, the keys above it; empty when they do not fit.
    std::vector<QRect> rowLabels;
    std::vector<QRect> columnLabels;
    bool tokenLabels() const { return !rowLabels.empty(); }

    const QRect& tile(int layer, int head) const { return tiles[std::size_t(layer) * heads + head]; }
    // The tile holding `pos` (false in the gaps and outside the grid).
    bool tileAt(const QPoint& pos, int* layer, int* head) const;
};

}  // namespace attnlab
