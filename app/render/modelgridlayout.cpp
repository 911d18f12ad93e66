// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelgridlayout.h"

#include "tiletokenlabels.h"

#include <algorithm>

namespace attnlab {

ModelGridLayout ModelGridLayout::compute(const QSize& size, int layers, int heads, int lineHeight,
                                         int labelWidth, int tokens, int tokenLabelWidth, int kvHeads)
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
    // The head labels' line on top (two with the key/value heads' groups),
    // the layer labels' column on the left.
    const bool grouped = kvHeads >= 1 && kvHeads < l.heads && l.heads % kvHeads == 0;
    const int labelHeight = (grouped ? 2 : 1) * (line + pad);
    const int labelColumn = std::max(0, labelWidth) + 2 * pad;
    area.adjust(labelColumn, labelHeight, -pad, 0);
    const int cellWidth = area.width() / l.heads;
    const int cellHeight = area.height() / l.layers;
    const int cell = std::max(0, std::min(cellWidth, cellHeight));
    // A tenth of a tile between tiles, at least 3 px (the outline's 2 px
    // and one of background) and at most half a line.
    l.gap = std::clamp(cell / 10, 3, std::max(3, line / 2));
    const auto sideFor = [&](const QSize& room) {
        return std::max(0, std::min((area.width() - l.gap * (l.heads - 1)) / l.heads - room.width(),
                                    (area.height() - l.gap * (l.layers - 1)) / l.layers - room.height()));
    };
    l.side = sideFor(QSize(0, 0));
    // Each map's token labels, where its rows keep a line with their room taken.
    QSize room(0, 0);
    if (tokens > 0 && tokenLabelWidth > 0) {
        const QSize labelled = tileLabelRoom(tokenLabelWidth, line);
        const int side = sideFor(labelled);
        if (tileLabelsFit(side, labelled, tokens, line)) {
            room = labelled;
            l.side = side;
        }
    }
    l.tileStep = QSize(room.width() + l.side + l.gap, room.height() + l.side + l.gap);
    const int gridWidth = l.heads * l.tileStep.width() - l.gap;
    const int gridHeight = l.layers * l.tileStep.height() - l.gap;
    const int left = area.left() + std::max(0, (area.width() - gridWidth) / 2) + room.width();
    const int top = area.top() + std::max(0, (area.height() - gridHeight) / 2) + room.height();
    l.tiles.reserve(std::size_t(l.layers) * l.heads);
    for (int layer = 0; layer < l.layers; ++layer)
        for (int head = 0; head < l.heads; ++head) {
            const QRect t(left + head * l.tileStep.width(), top + layer * l.tileStep.height(), l.side,
                          l.side);
            l.tiles.push_back(t);
            if (!room.isEmpty()) {
                l.rowLabels.emplace_back(t.left() - room.width(), t.top(), room.width() - pad, l.side);
                l.columnLabels.emplace_back(t.left(), t.top() - room.height(), l.side, room.height());
            }
        }
    for (int layer = 0; layer < l.layers; ++layer)
        l.layerLabels.emplace_back(left - room.width() - labelColumn, top + layer * l.tileStep.height(),
                                   labelColumn - pad, l.side);
    for (int head = 0; head < l.heads; ++head)
        l.headLabels.emplace_back(left + head * l.tileStep.width(), top - room.height() - line - pad, l.side,
                                  line);
    if (grouped) {
        const int group = l.heads / kvHeads;
        for (int kv = 0; kv < kvHeads; ++kv) {
            const int first = left + kv * group * l.tileStep.width() - room.width();
            const int last = left + ((kv + 1) * group - 1) * l.tileStep.width() + l.side;
            l.groupLabels.emplace_back(first, top - room.height() - labelHeight, last - first, line);
        }
    }
    return l;
}

bool ModelGridLayout::tileAt(const QPoint& pos, int* layer, int* head) const
{
    if (tiles.empty() || side <= 0)
        return false;
    // Each step holds a tile's labels (when it has them), its map and a gap.
    const QSize labels = tileStep - QSize(side + gap, side + gap);
    const QPoint origin = tiles.front().topLeft() - QPoint(labels.width(), labels.height());
    const int x = pos.x() - origin.x();
    const int y = pos.y() - origin.y();
    if (x < 0 || y < 0)
        return false;
    const int h = x / tileStep.width();
    const int l = y / tileStep.height();
    const int inX = x % tileStep.width() - labels.width();
    const int inY = y % tileStep.height() - labels.height();
    if (h >= heads || l >= layers || inX < 0 || inY < 0 || inX >= side || inY >= side)
        return false;
    *layer = l;
    *head = h;
    return true;
}

}  // namespace attnlab
