// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelgridlayout.h"

#include <algorithm>

namespace attnlab {

ModelGridLayout ModelGridLayout::compute(const QSize& size, int layers, int heads, int lineHeight,
                                         int labelWidth)
{
    ModelGridLayout l;
    l.size = size;
    l.layers = std::max(0, layers);
    l.heads = std::max(0, heads);
    if (l.layers == 0 || l.heads == 0 || size.width() <= 0 || size.height() <= 0)
        return l;
    const int line = std::max(1, lineHeight);
    const int pad = std::max(2, line / 4);
    QRect area(QPoint(0, 0), size);
    if (size.height() >= 5 * (line + pad)) {
        l.legend = QRect(pad, size.height() - line - pad, size.width() - 2 * pad, line);
        area.setBottom(l.legend.top() - pad - 1);
    }
    // The head labels' line on top, the layer labels' column on the left.
    const int labelHeight = line + pad;
    const int labelColumn = std::max(0, labelWidth) + 2 * pad;
    area.adjust(labelColumn, labelHeight, -pad, 0);
    const int cellWidth = area.width() / l.heads;
    const int cellHeight = area.height() / l.layers;
    const int cell = std::max(0, std::min(cellWidth, cellHeight));
    // A tenth of a tile between tiles, at least 3 px (the outline's 2 px
    // and one of background) and at most half a line.
    l.gap = std::clamp(cell / 10, 3, std::max(3, line / 2));
    l.side = std::max(0, std::min((area.width() - l.gap * (l.heads - 1)) / l.heads,
                                  (area.height() - l.gap * (l.layers - 1)) / l.layers));
    const int gridWidth = l.heads * l.side + (l.heads - 1) * l.gap;
    const int gridHeight = l.layers * l.side + (l.layers - 1) * l.gap;
    const int left = area.left() + std::max(0, (area.width() - gridWidth) / 2);
    const int top = area.top() + std::max(0, (area.height() - gridHeight) / 2);
    l.tiles.reserve(std::size_t(l.layers) * l.heads);
    for (int layer = 0; layer < l.layers; ++layer)
        for (int head = 0; head < l.heads; ++head)
            l.tiles.emplace_back(left + head * (l.side + l.gap), top + layer * (l.side + l.gap), l.side,
                                 l.side);
    for (int layer = 0; layer < l.layers; ++layer)
        l.layerLabels.emplace_back(left - labelColumn, top + layer * (l.side + l.gap), labelColumn - pad,
                                   l.side);
    for (int head = 0; head < l.heads; ++head)
        l.headLabels.emplace_back(left + head * (l.side + l.gap), top - labelHeight, l.side, line);
    return l;
}

bool ModelGridLayout::tileAt(const QPoint& pos, int* layer, int* head) const
{
    if (tiles.empty() || side <= 0)
        return false;
    const QPoint origin = tiles.front().topLeft();
    const int x = pos.x() - origin.x();
    const int y = pos.y() - origin.y();
    if (x < 0 || y < 0)
        return false;
    const int step = side + gap;
    const int h = x / step;
    const int l = y / step;
    if (h >= heads || l >= layers || x % step >= side || y % step >= side)
        return false;
    *layer = l;
    *head = h;
    return true;
}

}  // namespace attnlab
