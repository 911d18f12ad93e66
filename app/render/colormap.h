// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Colour maps of the heatmaps: pure functions from a value to a colour.
//
// Diverging: blue - white - red (ColorBrewer RdBu end colours) over [-m, m],
// white exactly at zero, for signed scores. Sequential: white to deep blue
// (ColorBrewer Blues) over [lo, hi], for attention weights in [0, 1].
// Values outside the range clamp to the end colours. Masked entries (-inf)
// are drawn with the neutral greys below, which no value maps to.

#include <QColor>
#include <QRgb>

namespace attnlab::colormap {

// The end colours, for tests and legends.
inline constexpr QRgb kDivergingLow = 0xff2166ac;    // -m: blue
inline constexpr QRgb kDivergingHigh = 0xffb2182b;   // +m: red
inline constexpr QRgb kSequentialLow = 0xffffffff;   // lo: white
inline constexpr QRgb kSequentialHigh = 0xff08306b;  // hi: deep blue
inline constexpr QRgb kMasked = 0xffdadada;          // masked cell fill
inline constexpr QRgb kMaskedHatch = 0xff9a9a9a;     // masked cell hatch lines

// m <= 0 (or NaN) gives white for zero and the end colours by sign. A NaN
// value gives kMasked: callers draw NaN as masked.
QRgb divergingRgb(double value, double m);
// hi <= lo gives the low colour below hi and the high colour from hi on.
QRgb sequentialRgb(double value, double lo, double hi);

// log10(value) placed over [log10(lo), log10(hi)]: values at or below lo
// (zero included) give the low colour. lo <= 0 or hi <= lo as for sequentialRgb.
QRgb sequentialLogRgb(double value, double lo, double hi);

QColor diverging(double value, double m);

// The curves, bars and histograms that set the unscaled scores against the
// scaled ones (the d_k lab, the score histogram, the focused query's bars):
// the diverging map's red and blue ends, lighter on a dark background.
inline constexpr QRgb kRawCurveDark = 0xfff46d43;
inline constexpr QRgb kScaledCurveDark = 0xff74add1;
QColor rawCurve(bool darkBackground);
QColor scaledCurve(bool darkBackground);
QColor sequential(double value, double lo, double hi);

// Black or white, whichever has the higher WCAG contrast ratio against
// background, so that numbers printed in a cell stay readable.
QColor contrastingText(const QColor& background);

}  // namespace attnlab::colormap
