// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one-line colour legend under a grid of small maps: per entry a label,
// the number at the low end, a colour bar and the number at the high end,
// left to right; entries that do not fit are left out whole. Shared by the
// head grid and the model grid.

#include "heatmapcolorscale.h"
#include "heatmapstyle.h"

#include <QFont>
#include <QRect>
#include <QString>

#include <vector>

class QPainter;

namespace attnlab {

class HeatmapRenderer;
struct WeightsScale;

struct ColorLegendEntry {
    QString label;
    const HeatmapColorScale* scale = nullptr;
};

void paintColorLegend(QPainter& painter, const QRect& area, const QFont& font, const HeatmapStyle& style,
                      const std::vector<ColorLegendEntry>& entries);

// A weights map's colours: sequential over [0, 1] on `scale`, two decimals.
void setWeightsColors(HeatmapRenderer& map, const WeightsScale& scale);

}  // namespace attnlab
