// SPDX-License-Identifier: GPL-3.0-or-later
#include "headgridlayout.h"

#include "tiletokenlabels.h"

#include <algorithm>

namespace attnlab {

namespace {

// The side of the square maps with `columns` columns in `area`, captions of
// `captionHeight` above each map, `extraWidth` beside it and `extraHeight`
// more above it (the labels).
int mapSide(const QSize& area, int tiles, int columns, int gap, int captionHeight, int extraWidth = 0,
            int extraHeight = 0)
{
    const int rows = (tiles + columns - 1) / columns;
    const int width = (area.width() - gap * (columns - 1)) / columns - extraWidth;
    const int height = (area.height() - gap * (rows - 1)) / rows - captionHeight - extraHeight;
    return std::min(width, height);
}

}  // namespace

HeadGridLayout HeadGridLayout::compute(const QSize& size, int tiles, int lineHeight,
                                       const HeadGridLabels& labels)
{
    HeadGridLayout l;
    l.size = size;
    if (tiles <= 0 || size.width() <= 0 || size.height() <= 0)
        return l;
    const int line = std::max(1, lineHeight);
    const int pad = std::max(2, line / 4);
    QRect area(QPoint(0, 0), size);
    // The legend keeps a line at the bottom unless that leaves the grid less
    // than four lines.
    if (size.height() >= 5 * (line + pad)) {
        l.legend = QRect(pad, size.height() - line - pad, size.width() - 2 * pad, line);
        area.setBottom(l.legend.top() - pad - 1);
    }
    // Room between the tiles for the selected head's 2 px outline and a gap.
    l.gap = std::max(2, std::min(line / 2, std::min(area.width(), area.height()) / 25));
    // The column count giving the largest maps, first with captions, then
    // without when the captioned maps would be too small to read.
    int captionHeight = line + pad / 2;
    int labelWidth = 0;   // the row labels' strip left of each map
    int labelHeight = 0;  // the column labels' line above it
    int best = 1;
    int side = -1;
    const auto choose = [&] {
        best = 1;
        side = -1;
        for (int c = 1; c <= tiles; ++c) {
            const int s = mapSide(area.size(), tiles, c, l.gap, captionHeight, labelWidth, labelHeight);
            if (s > side) {
                side = s;
                best = c;
            }
        }
    };
    choose();
    if (side < kMinCaptionedMap * line) {
        captionHeight = 0;
        l.gap = 1;
        choose();
    } else if (labels.tokens > 0 && labels.labelWidth > 0) {
        // Labels where, with their room taken, a row still holds a line.
        const int unlabelledBest = best;
        const int unlabelledSide = side;
        const QSize room = tileLabelRoom(labels.labelWidth, line);
        labelWidth = room.width();
        labelHeight = room.height();
        choose();
        if (!tileLabelsFit(side, room, labels.tokens, line)) {
            labelWidth = labelHeight = 0;
            best = unlabelledBest;
            side = unlabelledSide;
        }
    }
    side = std::max(side, 0);
    l.columns = best;
    l.rows = (tiles + best - 1) / best;
    // The grid centred in its area.
    const int tileWidth = side + labelWidth;
    const int tileHeight = side + captionHeight + labelHeight;
    const int gridWidth = l.columns * tileWidth + (l.columns - 1) * l.gap;
    const int gridHeight = l.rows * tileHeight + (l.rows - 1) * l.gap;
    const int left = area.left() + std::max(0, (area.width() - gridWidth) / 2);
    const int top = area.top() + std::max(0, (area.height() - gridHeight) / 2);
    l.tiles.reserve(std::size_t(tiles));
    for (int i = 0; i < tiles; ++i) {
        const int row = i / l.columns;
        const int col = i % l.columns;
        HeadGridTile t;
        const int x = left + col * (tileWidth + l.gap);
        const int y = top + row * (tileHeight + l.gap);
        t.frame = QRect(x, y, tileWidth, tileHeight);
        if (captionHeight > 0)
            t.caption = QRect(x + labelWidth, y, side, captionHeight);
        t.map = QRect(x + labelWidth, y + captionHeight + labelHeight, side, side);
        if (labelWidth > 0) {
            t.rowLabels = QRect(x, t.map.top(), labelWidth - pad, side);
            t.columnLabels = QRect(t.map.left(), y + captionHeight, side, labelHeight);
        }
        l.tiles.push_back(t);
    }
    return l;
}

int HeadGridLayout::tileAt(const QPoint& pos) const
{
    for (std::size_t i = 0; i < tiles.size(); ++i)
        if (tiles[i].frame.contains(pos))
            return int(i);
    return -1;
}

}  // namespace attnlab
