// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Which colour scale a weights map uses, decided from the number of tokens
// (or the user's choice) and named in words for the map's caption.
//
// A row of n weights sums to 1, so at lesson sizes a linear 0 .. 1 scale
// shows every weight (and the cells print them); at hundreds or thousands of
// tokens a typical weight is near 1/n and a linear scale draws it white. The
// automatic choice is then a logarithmic scale from a power of ten at least
// a hundred times below 1/n up to 1, so that a uniform row sits in the middle
// of the bar and a peaked row's small weights still show.

#include "mapscale.h"
#include "size_limits.h"

#include <QString>
#include <QStringList>

namespace attnlab {

enum class WeightsScaleMode { Automatic, Linear, PerRow, Log };

struct WeightsScale {
    WeightsScaleMode mode = WeightsScaleMode::Automatic;  // as chosen
    MapScale scale = MapScale::Linear;                    // as drawn
    double logLow = 1e-4;                                 // the log scale's bottom, a power of ten
    QString caption;  // "Colour: log 10⁻⁶ … 1 (automatic, > 32 tokens)"
};

// Up to this many tokens (the lesson sizes, whose maps print their numbers
// in the cells) the automatic scale is linear.
inline constexpr int kLinearWeightsTokens = attn::kLegibleTokens;

WeightsScale chooseWeightsScale(WeightsScaleMode mode, int tokens);

// The modes in menu order and their names ("Automatic", "Linear 0 … 1", ...).
QList<WeightsScaleMode> weightsScaleModes();
QString weightsScaleModeName(WeightsScaleMode mode);
// "automatic", "linear", "per-row", "log": for settings and the command line.
QString weightsScaleModeKey(WeightsScaleMode mode);
bool weightsScaleModeFromKey(const QString& key, WeightsScaleMode* mode);

}  // namespace attnlab
