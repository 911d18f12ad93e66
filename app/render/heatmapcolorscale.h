// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A heatmap's colour scale: which colour a value is drawn with (a colour map
// over a range, linearly, per row or logarithmically), the colour bar's
// colours and ticks, and the text of a number in a cell or on the bar.

#include "mapscale.h"

#include <QColor>
#include <QCoreApplication>
#include <QRgb>
#include <QString>

#include <vector>

namespace attnlab {

class HeatmapColorScale {
    Q_DECLARE_TR_FUNCTIONS(HeatmapView)
public:
    struct Tick {
        double t;  // from the bottom of the bar, in [0, 1]
        QString text;
    };

    MapColors map = MapColors::Diverging;
    double lo = -1.0;
    double hi = 1.0;
    MapScale scale = MapScale::Linear;  // as asked; see drawnScale()
    double logLow = 1e-4;
    int decimals = 2;

    MapScale drawnScale() const;  // Linear on a diverging map
    // The range the bar spans: [-m, m] with m = max(|lo|, |hi|) on a
    // diverging map, else [lo, hi].
    double low() const;
    double high() const;
    bool emptyRange() const { return !(high() > low()); }

    // The colour of a finite value under the drawn scale; rowMax is the
    // row's largest value (used per row only).
    QRgb rgb(double value, double rowMax) const;
    // Linear under the map and range, whatever the scale.
    QColor linearColor(double value) const;
    // The bar's colour at t in [0, 1] from the bottom: the per-row and log
    // scales spread their colours evenly, as their ticks do.
    QColor barColor(double t) const;

    // At most `count` ticks (the ends always): five linear ones, 0 / ½ row
    // max / row max per row, decades on a log scale.
    std::vector<Tick> ticks(int count) const;
    static QString endsText(const std::vector<Tick>& ticks);  // "low … high"
    // `decimals` places; NaN, ±∞ by name; never "-0.00".
    QString formatValue(double value) const { return formatValue(value, decimals); }
    QString formatValue(double value, int places) const;
};

}  // namespace attnlab
