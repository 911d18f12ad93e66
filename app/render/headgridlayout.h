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
    QRect frame;    // caption and map, what a click on the tile hits
    QRect caption;  // above the map; empty when the tiles are too small for text
    QRect map;      // square
};

struct HeadGridLayout {
    // Maps smaller than this many line heights drop their captions (the
    // tooltip still names the head).
    static constexpr double kMinCaptionedMap = 1.0;

    // `tiles` tiles in `size`; lineHeight is the font's. The legend takes one
    // line at the bottom when there is room for it.
    static HeadGridLayout compute(const QSize& size, int tiles, int lineHeight);

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
