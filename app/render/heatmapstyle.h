// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The colours a heatmap is drawn with around its cells, from a palette, and
// whether it is drawn for the screen or for an exported picture.

#include <QColor>

class QPalette;

namespace attnlab {

// The colours a map is drawn with around its cells.
struct HeatmapStyle {
    QColor background;  // behind everything (QPalette::Window)
    QColor text;        // labels, ticks, caption, the focus line (QPalette::WindowText)
    QColor frame;       // the cells' and the bar's frame (QPalette::Mid)
    // On screen: numbers and labels drawn from cached glyphs; exports keep
    // QPainter's own text, which SVG and PDF record as text.
    bool screen = false;
    static HeatmapStyle fromPalette(const QPalette& palette, bool screen = false);
};

}  // namespace attnlab
