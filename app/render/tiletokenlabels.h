// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The token labels of a small square map in a grid of maps (the Heads tab's
// tiles, the model grid's): the queries left of the map, one a row, and the
// keys above it, one a column, where a row keeps a line of text. One rule
// for where they fit and one way to draw them, for both grids, on screen and
// in exported pictures.

#include "heatmapstyle.h"

#include <QRect>
#include <QSize>
#include <QStringList>

class QFont;
class QFontMetrics;
class QPainter;

namespace attnlab {

// The room token labels take beside a map, for labels at most `labelWidth`
// wide in a font of `lineHeight`: the row labels' strip (at most six
// lines wide, with its padding) and the column labels' line.
QSize tileLabelRoom(int labelWidth, int lineHeight);

// Whether maps of `side` pixels, with `room` taken for the labels, keep a
// line of text a row of `tokens` and the row labels at most a third of the
// tile.
bool tileLabelsFit(int side, const QSize& room, int tokens, int lineHeight);

// Whether the keys' labels fit above a map `mapWidth` wide: each whole, or
// two letters and an ellipsis.
bool tileColumnLabelsFit(const QFontMetrics& fm, const QStringList& tokens, int mapWidth);

// Draws the labels of `map` in `rowLabels` and `columnLabels` (nothing where
// a rectangle is empty or the tokens are not the map's).
void paintTileTokenLabels(QPainter& painter, const QFont& font, const HeatmapStyle& style, const QRect& map,
                          const QRect& rowLabels, const QRect& columnLabels, const QStringList& tokens);

}  // namespace attnlab
