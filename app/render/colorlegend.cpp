// SPDX-License-Identifier: GPL-3.0-or-later
#include "colorlegend.h"

#include "heatmaprenderer.h"
#include "weightsscale.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace attnlab {

void paintColorLegend(QPainter& painter, const QRect& area, const QFont& font, const HeatmapStyle& style,
                      const std::vector<ColorLegendEntry>& entries)
{
    const QFontMetrics fm(font);
    const int barWidth = std::clamp(area.width() / 8, 24, 120);
    const int gap = fm.horizontalAdvance(QLatin1Char('M'));
    int x = area.left();
    painter.save();
    painter.setFont(font);
    painter.setPen(style.text);
    for (const ColorLegendEntry& e : entries) {
        const QString low = e.scale->ticks(2).front().text;
        const QString high = e.scale->ticks(2).back().text;
        const int labelWidth = fm.horizontalAdvance(e.label + QLatin1Char(' '));
        const int lowWidth = fm.horizontalAdvance(low + QLatin1Char(' '));
        const int needed = labelWidth + lowWidth + barWidth + fm.horizontalAdvance(QLatin1Char(' ') + high);
        if (x + needed > area.right() + 1)
            break;
        painter.drawText(QRect(x, area.top(), labelWidth, area.height()), Qt::AlignLeft | Qt::AlignVCenter,
                         e.label);
        x += labelWidth;
        painter.drawText(QRect(x, area.top(), lowWidth, area.height()), Qt::AlignLeft | Qt::AlignVCenter,
                         low);
        x += lowWidth;
        const QRect bar(x, area.top() + area.height() / 4, barWidth, std::max(2, area.height() / 2));
        for (int px = 0; px < bar.width(); ++px)
            painter.fillRect(QRect(bar.left() + px, bar.top(), 1, bar.height()),
                             e.scale->barColor((px + 0.5) / bar.width()));
        painter.setPen(QPen(style.frame, 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(QRectF(bar).adjusted(-0.5, -0.5, 0.5, 0.5));
        painter.setPen(style.text);
        x += barWidth;
        const QString tail = QLatin1Char(' ') + high;
        painter.drawText(QRect(x, area.top(), fm.horizontalAdvance(tail), area.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, tail);
        x += fm.horizontalAdvance(tail) + 2 * gap;
    }
    painter.restore();
}

void setWeightsColors(HeatmapRenderer& map, const WeightsScale& scale)
{
    map.setColorMap(MapColors::Sequential);
    map.setRange(0.0, 1.0);
    map.setColorScale(scale.scale, scale.logLow);
    map.setScaleCaption(scale.caption);
    map.setDecimals(2);
}

}  // namespace attnlab
