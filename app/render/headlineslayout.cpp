// SPDX-License-Identifier: GPL-3.0-or-later
#include "headlineslayout.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

HeadLinesLayout HeadLinesLayout::compute(const QSize& size, int tokens, int lineHeight, int labelWidth,
                                         const std::vector<int>& legendWidths)
{
    HeadLinesLayout l;
    l.size = size;
    l.tokens = std::max(0, tokens);
    if (size.width() <= 0 || size.height() <= 0)
        return l;
    const int line = std::max(1, lineHeight);
    const int pad = std::max(2, line / 4);
    l.caption = QRect(pad, pad, size.width() - 2 * pad, line);
    // The legend's entries left to right, wrapped at the width.
    int x = pad;
    int y = l.caption.bottom() + 1 + pad;
    const int entryGap = line;
    for (const int w : legendWidths) {
        if (x > pad && x + w > size.width() - pad) {
            x = pad;
            y += line + pad / 2;
        }
        l.legend.emplace_back(x, y, w, line);
        x += w + entryGap;
    }
    const int top = (legendWidths.empty() ? y : y + line) + pad;
    const int height = size.height() - top - pad;
    l.lineGap = pad * 2;
    const int column = std::clamp(labelWidth, 0, std::max(0, size.width() / 4 - pad));
    l.queries = QRect(pad, top, column, std::max(0, height));
    l.keys = QRect(size.width() - pad - column, top, column, std::max(0, height));
    if (l.tokens == 0 || height <= 0)
        return l;
    l.rowHeight = double(height) / l.tokens;
    // A label needs a line's height; below that only every labelStep-th row
    // is labelled (the lines keep every row).
    l.labelStep = std::max(1, int(std::ceil(line / l.rowHeight)));
    return l;
}

int HeadLinesLayout::tokenAt(const QPoint& pos, bool* keySide) const
{
    if (tokens == 0 || rowHeight <= 0.0)
        return -1;
    const bool inQueries = pos.x() >= queries.left() && pos.x() <= queryAnchor();
    const bool inKeys = pos.x() >= keyAnchor() && pos.x() <= keys.right();
    if ((!inQueries && !inKeys) || pos.y() < queries.top() || pos.y() > queries.bottom())
        return -1;
    *keySide = inKeys;
    return std::clamp(int((pos.y() - queries.top()) / rowHeight), 0, tokens - 1);
}

int HeadLinesLayout::legendAt(const QPoint& pos) const
{
    for (std::size_t i = 0; i < legend.size(); ++i)
        if (legend[i].contains(pos))
            return int(i);
    return -1;
}

}  // namespace attnlab
