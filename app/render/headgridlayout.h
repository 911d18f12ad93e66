// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the head grid's tiles go for one size: h heads and their average as
// square maps of one size in rows and columns (the column count that makes
// the maps largest), each with a one-line caption above it, and the colour
// legend along the bottom. Pure geometry on plain numbers, so that the
// screen and the exported pictures share it and tests need no widget.
// Logical pixels throughout.

#include <QPoint>
#include <QRect>
#include <QSize>

#include <vector>

namespace attnlab {

struct HeadGridTile {
    QRect frame;    // caption, labels and map, what a click on the tile hits
    QRect caption;  // above the map; empty when the tiles are too small for text
    QRect map;      // square
    // The tokens' labels: the queries left of the map, one a row, and the
    // keys above it, one a column; empty where they do not fit (a row
    // lower than a line of text), and the tooltip names the cell.
    QRect rowLabels;
    QRect columnLabels;
};

// The token labels a grid would like: `tokens` rows and columns, the
// widest label `labelWidth` pixels (0: no labels).
struct HeadGridLabels {
    int tokens = 0;
    int labelWidth = 0;
};

struct HeadGridLayout {
    // Maps smaller than this many line heights drop their captions (the
    // tooltip still names the head).
    static constexpr double kMinCaptionedMap = 1.0;

    // `tiles` tiles in `size`; lineHeight is the font's. The legend takes one
    // line at the bottom when there is room for it.
    // With `labels`, the maps give room for the token labels when, so
    // laid out, each row still has a line of text (and the row labels at
    // most a third of the tile); else none.
    static HeadGridLayout compute(const QSize& size, int tiles, int lineHeight,
                                  const HeadGridLabels& labels = {});

    QSize size;
    int columns = 0;
    int rows = 0;
    int gap = 0;  // between tiles
    std::vector<HeadGridTile> tiles;
    QRect legend;  // empty: none

    // The tile whose frame holds `pos`, or -1.
    int tileAt(const QPoint& pos) const;
};

}  // namespace attnlab
