// SPDX-License-Identifier: GPL-3.0-or-later
#include "colormap.h"

#include <cmath>
#include <cstddef>

namespace attnlab::colormap {
namespace {

struct Stop {
    double t;  // position in [0, 1]
    QRgb rgb;
};

// RdBu from ColorBrewer with a pure white centre.
constexpr Stop kDivergingStops[] = {
    {0.00, kDivergingLow}, {0.25, 0xff92c5de}, {0.50, 0xffffffff}, {0.75, 0xfff4a582}, {1.00, kDivergingHigh},
};

// Blues from ColorBrewer.
constexpr Stop kSequentialStops[] = {
    {0.00, kSequentialLow}, {0.25, 0xffc6dbef},      {0.50, 0xff6baed6},
    {0.75, 0xff2171b5},     {1.00, kSequentialHigh},
};

int mix(int a, int b, double f)
{
    return static_cast<int>(std::lround(a + (b - a) * f));
}

// Piecewise-linear interpolation in RGB; t is clamped to [0, 1].
template <std::size_t N>
QRgb interpolateExact(const Stop (&stops)[N], double t)
{
    if (!(t > 0.0))
        return stops[0].rgb;
    if (t >= 1.0)
        return stops[N - 1].rgb;
    std::size_t i = 1;
    while (stops[i].t < t)
        ++i;
    const Stop& a = stops[i - 1];
    const Stop& b = stops[i];
    const double f = (t - a.t) / (b.t - a.t);
    return qRgb(mix(qRed(a.rgb), qRed(b.rgb), f), mix(qGreen(a.rgb), qGreen(b.rgb), f),
                mix(qBlue(a.rgb), qBlue(b.rgb), f));
}

// The same sampled at 4097 evenly spaced t (a map colours up to a million
// cells per repaint; three roundings per cell cost more than the rest of the
// map). The stops and every dyadic t down to 1/4096 come out exactly; other
// t are off by at most half a step, under one level of a channel.
constexpr int kTableSteps = 4096;

template <std::size_t N>
struct Table {
    QRgb rgb[kTableSteps + 1];
    explicit Table(const Stop (&stops)[N])
    {
        for (int k = 0; k <= kTableSteps; ++k)
            rgb[k] = interpolateExact(stops, double(k) / kTableSteps);
    }
};

template <std::size_t N>
QRgb interpolate(const Table<N>& table, double t)
{
    if (!(t > 0.0))
        return table.rgb[0];
    if (t >= 1.0)
        return table.rgb[kTableSteps];
    return table.rgb[static_cast<int>(t * kTableSteps + 0.5)];
}

const Table<5>& divergingTable()
{
    static const Table<5> table(kDivergingStops);
    return table;
}

const Table<5>& sequentialTable()
{
    static const Table<5> table(kSequentialStops);
    return table;
}

// WCAG relative luminance of an sRGB channel in [0, 255].
double linearChannel(int c)
{
    const double s = c / 255.0;
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
}

}  // namespace

QRgb divergingRgb(double value, double m)
{
    if (std::isnan(value))
        return kMasked;
    if (!(m > 0.0) || std::isinf(m))
        return value == 0.0 ? kDivergingStops[2].rgb : (value < 0.0 ? kDivergingLow : kDivergingHigh);
    return interpolate(divergingTable(), 0.5 + 0.5 * value / m);
}

QRgb sequentialRgb(double value, double lo, double hi)
{
    if (std::isnan(value))
        return kMasked;
    if (!(hi > lo) || std::isinf(hi - lo))
        return value >= hi ? kSequentialHigh : kSequentialLow;
    return interpolate(sequentialTable(), (value - lo) / (hi - lo));
}

QRgb sequentialLogRgb(double value, double lo, double hi)
{
    if (std::isnan(value))
        return kMasked;
    if (!(lo > 0.0) || !(hi > lo) || std::isinf(hi))
        return sequentialRgb(value, lo, hi);
    if (!(value > lo))
        return kSequentialLow;
    return interpolate(sequentialTable(), std::log10(value / lo) / std::log10(hi / lo));
}

QColor diverging(double value, double m)
{
    return QColor::fromRgb(divergingRgb(value, m));
}

QColor sequential(double value, double lo, double hi)
{
    return QColor::fromRgb(sequentialRgb(value, lo, hi));
}

QColor rawCurve(bool darkBackground)
{
    return QColor::fromRgb(darkBackground ? kRawCurveDark : kDivergingHigh);
}

QColor scaledCurve(bool darkBackground)
{
    return QColor::fromRgb(darkBackground ? kScaledCurveDark : kDivergingLow);
}

QColor contrastingText(const QColor& background)
{
    const QColor c = background.toRgb();
    const double luminance = 0.2126 * linearChannel(c.red()) + 0.7152 * linearChannel(c.green())
                             + 0.0722 * linearChannel(c.blue());
    // Contrast ratios (L1 + 0.05) / (L2 + 0.05) against black and white.
    const double againstBlack = (luminance + 0.05) / 0.05;
    const double againstWhite = 1.05 / (luminance + 0.05);
    return againstBlack >= againstWhite ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace attnlab::colormap
