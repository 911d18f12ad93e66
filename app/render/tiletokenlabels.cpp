// SPDX-License-Identifier: GPL-3.0-or-later
#include "tiletokenlabels.h"

#include "spacemark.h"
#include <QFont>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace attnlab {

QSize tileLabelRoom(int labelWidth, int lineHeight)
{
    const int line = std::max(1, lineHeight);
    const int pad = std::max(2, line / 4);
    return {std::min(labelWidth, 6 * line) + pad, line + pad / 2};
}

bool tileLabelsFit(int side, const QSize& room, int tokens, int lineHeight)
{
    return tokens > 0 && side >= tokens * lineHeight && room.width() * 3 <= side + room.width();
}

bool tileColumnLabelsFit(const QFontMetrics& fm, const QStringList& tokens, int mapWidth)
{
    const int n = int(tokens.size());
    if (n == 0)
        return false;
    const double cell = double(mapWidth) / n;
    for (const QString& token : tokens)
        if (fm.horizontalAdvance(token) > cell - 2
            && fm.elidedText(token, Qt::ElideRight, int(cell) - 2).size() < 3)
            return false;
    return true;
}

void paintTileTokenLabels(QPainter& painter, const QFont& font, const HeatmapStyle& style, const QRect& map,
                          const QRect& rowLabels, const QRect& columnLabels, const QStringList& tokens)
{
    const int n = int(tokens.size());
    if (rowLabels.isEmpty() || n == 0)
        return;
    const QFontMetrics fm(font);
    painter.setFont(font);
    painter.setPen(style.text);
    const double rowH = double(map.height()) / n;
    for (int i = 0; i < n; ++i) {
        const QRect r(rowLabels.left(), map.top() + int(i * rowH), rowLabels.width(), int(rowH));
        drawTokenText(painter, r, Qt::AlignRight | Qt::AlignVCenter,
                      fm.elidedText(tokens[i], Qt::ElideRight, rowLabels.width()));
    }
    if (columnLabels.isEmpty() || !tileColumnLabelsFit(fm, tokens, map.width()))
        return;
    const double colW = double(map.width()) / n;
    for (int j = 0; j < n; ++j) {
        const QRect r(map.left() + int(j * colW), columnLabels.top(), int(colW), columnLabels.height());
        drawTokenText(painter, r, Qt::AlignHCenter | Qt::AlignVCenter,
                      fm.elidedText(tokens[j], Qt::ElideRight, int(colW) - 2));
    }
}

}  // namespace attnlab
