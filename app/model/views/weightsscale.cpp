// SPDX-License-Identifier: GPL-3.0-or-later
#include "weightsscale.h"

#include "presentation.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("attnlab::WeightsScale", text);
}

}  // namespace

WeightsScale chooseWeightsScale(WeightsScaleMode mode, int tokens)
{
    WeightsScale s;
    s.mode = mode;
    const int n = std::max(tokens, 1);
    // 10^floor(log10(0.01 / n)): two decades or more below a uniform row's 1/n.
    const int exponent = static_cast<int>(std::floor(std::log10(0.01 / n)));
    s.logLow = std::pow(10.0, exponent);
    const bool automatic = mode == WeightsScaleMode::Automatic;
    if (automatic)
        mode = tokens > kLinearWeightsTokens ? WeightsScaleMode::Log : WeightsScaleMode::Linear;
    QString what;
    switch (mode) {
    case WeightsScaleMode::Automatic:
    case WeightsScaleMode::Linear:
        s.scale = MapScale::Linear;
        what = tr("linear 0 … 1");
        break;
    case WeightsScaleMode::PerRow:
        s.scale = MapScale::PerRow;
        what = tr("per row, 0 … row max");
        break;
    case WeightsScaleMode::Log:
        s.scale = MapScale::Log;
        what = tr("log %1 … 1").arg(powerOfTenText(exponent));
        break;
    }
    s.caption = automatic ? tr("Colour: %1 (automatic, %2 tokens)")
                                .arg(what, tokens > kLinearWeightsTokens
                                               ? QStringLiteral("> %1").arg(kLinearWeightsTokens)
                                               : QStringLiteral("≤ %1").arg(kLinearWeightsTokens))
                          : tr("Colour: %1").arg(what);
    return s;
}

QList<WeightsScaleMode> weightsScaleModes()
{
    return {WeightsScaleMode::Automatic, WeightsScaleMode::Linear, WeightsScaleMode::PerRow,
            WeightsScaleMode::Log};
}

QString weightsScaleModeName(WeightsScaleMode mode)
{
    switch (mode) {
    case WeightsScaleMode::Automatic: return tr("Automatic");
    case WeightsScaleMode::Linear: return tr("Linear 0 … 1");
    case WeightsScaleMode::PerRow: return tr("Per row (0 … row max)");
    case WeightsScaleMode::Log: return tr("Logarithmic");
    }
    return {};
}

QString weightsScaleModeKey(WeightsScaleMode mode)
{
    switch (mode) {
    case WeightsScaleMode::Automatic: return QStringLiteral("automatic");
    case WeightsScaleMode::Linear: return QStringLiteral("linear");
    case WeightsScaleMode::PerRow: return QStringLiteral("per-row");
    case WeightsScaleMode::Log: return QStringLiteral("log");
    }
    return {};
}

bool weightsScaleModeFromKey(const QString& key, WeightsScaleMode* mode)
{
    for (const WeightsScaleMode m : weightsScaleModes())
        if (weightsScaleModeKey(m) == key) {
            if (mode)
                *mode = m;
            return true;
        }
    return false;
}

}  // namespace attnlab
