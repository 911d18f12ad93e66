// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Draws the Tiles view's walk (flashwalk.h) with QPainter: on the left the
// scaled score map with the tile grid, the tiles done in full colour, those
// to come washed out, the current tile outlined with its numbers printed
// when they fit, and the tiles the causal mask skips hatched and crossed;
// on the right, for the current tile's query rows, m (before -> after), the
// rescale factor exp(m_old - m_new), l (before -> after) and the first
// columns of O, what this step changed drawn bold in the accent colour.
// Every number comes from the walk; nothing is computed here.

#include "flashwalk.h"
#include "heatmapstyle.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QRectF>

class QPainter;

namespace attnlab {

class FlashTilesRenderer {
    Q_DECLARE_TR_FUNCTIONS(FlashTilesView)
public:
    // The current tile's outline and the changed values.
    static QColor accent(bool darkBackground);

    struct Layout {
        QRectF map;  // the n x n cells
        double cell = 0.0;
        bool labels = false;  // token labels beside the map
    };
    // Where the map goes in `area` for `walk` drawn in `font`.
    static Layout mapLayout(const FlashWalk& walk, const QRectF& area, const QFont& font);

    // The score map with its tiles in `area`; the walk's problem when it is
    // not ready.
    static void paintMap(QPainter& painter, const QRectF& area, const FlashWalk& walk, const QFont& font,
                         const HeatmapStyle& style);
    // The current tile's query rows, the recurrence and the legend in `area`.
    static void paintState(QPainter& painter, const QRectF& area, const FlashWalk& walk, const QFont& font,
                           const HeatmapStyle& style);
    // The height paintState needs for the walk's blocks.
    static double stateHeight(const FlashWalk& walk, const QFont& font);

    // The columns of O the state table shows at most.
    static constexpr int kMaxOColumns = 4;

private:
    static void drawMap(QPainter& painter, const Layout& layout, const FlashWalk& walk, const QFont& font,
                        const HeatmapStyle& style);
    static void drawState(QPainter& painter, const QRectF& area, const FlashWalk& walk, const QFont& font,
                          const HeatmapStyle& style);
};

}  // namespace attnlab
