// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmapstyle.h"

#include <QPalette>

namespace attnlab {

HeatmapStyle HeatmapStyle::fromPalette(const QPalette& palette, bool screen)
{
    return {palette.color(QPalette::Window), palette.color(QPalette::WindowText),
            palette.color(QPalette::Mid), screen};
}

}  // namespace attnlab
