// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A heatmap's zoom and pan (HeatmapView's input) and its size hint, as
// arithmetic on blocks of cells and on measured text: the view maps its
// events to these and sets the block they give (HeatmapRenderer's
// setShownBlock clamps it to the map). Blocks are in cells: x the first
// column, y the first row.

#include <QPoint>
#include <QRect>
#include <QSize>

#include <functional>

namespace attnlab {

// `block` of a map of `rows` x `cols` cells zoomed by `factor` (> 1 zooms
// in): both sides by the same factor, at least one cell, and cell (row,
// col) (-1: the block's centre) keeping its place within the block. The
// block as it is for a factor that is not positive or an empty map.
QRect zoomedBlock(const QRect& block, int rows, int cols, double factor, int row = -1, int col = -1);

// The block a drag by `delta` pixels from the press on `pressBlock` shows,
// with the shown cells laid out over `cells` pixels: the block follows the
// pointer, a cell per cell width moved.
QRect draggedBlock(const QRect& pressBlock, const QPoint& delta, const QSize& cells);

// The pan (x: columns, y: rows) of a wheel turned by `angle` (eighths of a
// degree, as QWheelEvent gives) over `block`: a notch moves an eighth of
// the block, at least one cell; `sideways` (Shift, or a sideways wheel)
// moves along the columns.
QPoint wheelPan(const QRect& block, const QPoint& angle, bool sideways);

// The pan of key `key` (a Qt::Key) over a zoomed-in `block`: Left and Right
// an eighth of its columns, Shift+Up and Shift+Down an eighth of its rows,
// Page Up and Page Down its height; (0, 0) for any other key (plain Up and
// Down move the focused query instead).
QPoint keyPan(const QRect& block, int key, bool shift);

// What a map of `rows` x `cols` cells asks for: room for the printed values
// (the widest `widestCell()` pixels, asked only then, at least a line) when
// it is small, else a few pixels per cell; the labels and the scale take
// about a quarter more. At least `minimum`, at most 900 x 800.
QSize heatmapSizeHint(int rows, int cols, int lineHeight, int emWidth, const std::function<int()>& widestCell,
                      const QSize& minimum);

}  // namespace attnlab
