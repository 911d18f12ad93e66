// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmapcolorscale.h"

#include "colormap.h"
#include "presentation.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

MapScale HeatmapColorScale::drawnScale() const
{
    return map == MapColors::Diverging ? MapScale::Linear : scale;
}

double HeatmapColorScale::low() const
{
    return map == MapColors::Diverging ? -high() : lo;
}

double HeatmapColorScale::high() const
{
    return map == MapColors::Diverging ? std::max(std::abs(lo), std::abs(hi)) : hi;
}

QRgb HeatmapColorScale::rgb(double value, double rowMax) const
{
    switch (drawnScale()) {
    case MapScale::Linear: break;
    case MapScale::PerRow:
        // A row of zeros (or all masked) is drawn in the low colour.
        return colormap::sequentialRgb(value, lo, rowMax > lo ? rowMax : lo + 1.0);
    case MapScale::Log: return colormap::sequentialLogRgb(value, logLow, hi);
    }
    return map == MapColors::Diverging ? colormap::divergingRgb(value, high())
                                       : colormap::sequentialRgb(value, low(), high());
}

QColor HeatmapColorScale::linearColor(double value) const
{
    return map == MapColors::Diverging ? colormap::diverging(value, high())
                                       : colormap::sequential(value, low(), high());
}

QColor HeatmapColorScale::barColor(double t) const
{
    if (drawnScale() == MapScale::Linear)
        return linearColor(low() + t * (high() - low()));
    return QColor::fromRgb(colormap::sequentialRgb(t, 0.0, 1.0));
}

QString HeatmapColorScale::endsText(const std::vector<Tick>& ticks)
{
    return ticks.empty() ? QString() : ticks.front().text + QStringLiteral(" … ") + ticks.back().text;
}

std::vector<HeatmapColorScale::Tick> HeatmapColorScale::ticks(int count) const
{
    std::vector<Tick> ticks;
    if (count < 1)
        return ticks;
    switch (drawnScale()) {
    case MapScale::Linear: {
        const int n = std::min(count, 5);
        for (int i = 0; i < n; ++i) {
            const double value = n < 2 ? low() : low() + (high() - low()) * i / (n - 1);
            ticks.push_back({n < 2 ? 0.5 : double(i) / (n - 1), formatValue(value)});
        }
        return ticks;
    }
    case MapScale::PerRow:
        // Each row has its own top: the bar names it rather than a number.
        ticks.push_back({0.0, formatValue(lo)});
        if (count >= 3)
            ticks.push_back({0.5, tr("½ row max")});
        ticks.push_back({1.0, tr("row max")});
        return ticks;
    case MapScale::Log: {
        const double lower = std::log10(logLow);
        const double upper = std::log10(hi > logLow ? hi : logLow * 10);
        // Every decade between the ends, thinned to every step-th one when
        // more than `count` (the top one kept, the one below it dropped when
        // it would crowd it).
        const int first = static_cast<int>(std::ceil(lower - 1e-9));
        const int last = static_cast<int>(std::floor(upper + 1e-9));
        const int decades = last - first + 1;
        const int step = decades <= count || count < 2 ? 1 : (decades - 1 + count - 2) / (count - 1);
        const auto at = [&](int d) { return Tick{(d - lower) / (upper - lower), powerOfTenText(d)}; };
        for (int d = first; d < last && count >= 2; d += step) {
            if (d != first && last - d < (step + 1) / 2)
                break;
            ticks.push_back(at(d));
        }
        ticks.push_back(at(last));
        return ticks;
    }
    }
    return ticks;
}

QString HeatmapColorScale::formatValue(double value, int places) const
{
    if (std::isnan(value))
        return tr("NaN");
    if (std::isinf(value))
        return value < 0 ? QStringLiteral("\u2212\u221e") : QStringLiteral("\u221e");
    QString text = QString::number(value, 'f', places);
    // "-0.00" reads as a sign error; print it as "0.00".
    const auto zeroDigit = [](QChar ch) { return ch == QLatin1Char('0') || ch == QLatin1Char('.'); };
    if (text.startsWith(QLatin1Char('-')) && std::all_of(text.begin() + 1, text.end(), zeroDigit))
        text.remove(0, 1);
    return text;
}

}  // namespace attnlab
