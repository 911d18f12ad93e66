// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The look of the exported pictures of the head grid and the model views:
// white ground, dark text, a grey frame, the highlight colour of a
// selection, and a font sized to the picture.

#include "heatmapstyle.h"

#include <QColor>
#include <QFont>
#include <QSize>

namespace attnlab::picturestyle {

inline const QColor kText(0x20, 0x20, 0x20);
// ColorBrewer Dark2 orange: apart from blue, white and red.
inline const QColor kHighlight(0xd9, 0x5f, 0x02);

HeatmapStyle style();
// As ViewExporter sizes it: a 42nd of the shorter side (11 to 64 px),
// times `factor`.
QFont font(const QSize& size, qreal factor = 1.0, bool bold = false);

}  // namespace attnlab::picturestyle
