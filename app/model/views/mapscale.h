// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How a map turns its numbers into colours: the colour map and, for a
// sequential map, the scale. Shared by the model (which decides the scale of
// a weights map), the renderer and the views.

namespace attnlab {

enum class MapColors {
    Diverging,   // blue - white - red, centred on zero over [-m, m]
    Sequential,  // white to deep blue over [lo, hi], e.g. weights in [0, 1]
};

// How a sequential map turns values into colours (diverging maps are
// always linear): over [lo, hi]; each row over [lo, its own largest
// value]; or by log10 over [logLow, hi], values at or below logLow
// drawn in the low colour. The colour bar shows the scale drawn.
enum class MapScale { Linear, PerRow, Log };

}  // namespace attnlab
