// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmapnavigation.h"

#include "size_limits.h"

#include <Qt>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

int rounded(double v)
{
    return static_cast<int>(std::lround(v));
}

}  // namespace

QRect zoomedBlock(const QRect& b, int rows, int cols, double factor, int row, int col)
{
    if (!(factor > 0.0) || rows <= 0 || cols <= 0)
        return b;
    if (row < 0)
        row = b.top() + b.height() / 2;
    if (col < 0)
        col = b.left() + b.width() / 2;
    const int h = std::clamp(rounded(b.height() / factor), 1, rows);
    const int w = std::clamp(rounded(b.width() / factor), 1, cols);
    // The anchor cell's place within the block, as a fraction of it.
    const double fy = (row - b.top() + 0.5) / b.height();
    const double fx = (col - b.left() + 0.5) / b.width();
    return QRect(rounded(col + 0.5 - fx * w), rounded(row + 0.5 - fy * h), w, h);
}

QRect draggedBlock(const QRect& pressBlock, const QPoint& delta, const QSize& cells)
{
    const int dc = rounded(double(delta.x()) * pressBlock.width() / std::max(1, cells.width()));
    const int dr = rounded(double(delta.y()) * pressBlock.height() / std::max(1, cells.height()));
    return pressBlock.translated(-dc, -dr);
}

QPoint wheelPan(const QRect& block, const QPoint& angle, bool sideways)
{
    sideways = sideways || angle.x() != 0;
    const int notches = sideways && angle.x() != 0 ? angle.x() : angle.y();
    const int step = std::max(1, (sideways ? block.width() : block.height()) / 8);
    int cells = -rounded(notches / 120.0 * step);
    if (cells == 0)
        cells = notches > 0 ? -1 : 1;
    return sideways ? QPoint(cells, 0) : QPoint(0, cells);
}

QPoint keyPan(const QRect& block, int key, bool shift)
{
    const int rowStep = std::max(1, block.height() / 8);
    const int colStep = std::max(1, block.width() / 8);
    switch (key) {
    case Qt::Key_Left: return {-colStep, 0};
    case Qt::Key_Right: return {colStep, 0};
    case Qt::Key_Up: return shift ? QPoint(0, -rowStep) : QPoint();
    case Qt::Key_Down: return shift ? QPoint(0, rowStep) : QPoint();
    case Qt::Key_PageUp: return {0, -block.height()};
    case Qt::Key_PageDown: return {0, block.height()};
    default: return {};
    }
}

QSize heatmapSizeHint(int rows, int cols, int lineHeight, int emWidth, const std::function<int()>& widestCell,
                      const QSize& minimum)
{
    if (rows == 0 || cols == 0)
        return QSize(480, 400);
    const bool small = rows <= attn::kLegibleTokens && cols <= attn::kLegibleTokens;
    const int cellW = std::max(lineHeight, small ? widestCell() : 0) + 8;
    const int cellH = lineHeight + 8;
    const int w = small ? cols * cellW : cols * 2;
    const int h = small ? rows * cellH : rows * 2;
    const int extra = emWidth * 16;
    return QSize(w + extra, h + extra / 2 + 2 * lineHeight).expandedTo(minimum).boundedTo(QSize(900, 800));
}

}  // namespace attnlab
