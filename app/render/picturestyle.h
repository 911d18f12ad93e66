// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The look of the exported pictures (ViewExporter's views and figures, the
// head grid, the model views): white ground, dark text, a grey frame, the
// highlight colour of a selection, and a font sized to the picture.

#include "heatmapstyle.h"

#include <QColor>
#include <QFont>
#include <QSize>
#include <QString>

#include <string>

namespace attnlab::picturestyle {

inline const QColor kText(0x20, 0x20, 0x20);
inline const QColor kMuted(0x55, 0x5b, 0x66);  // subtitles and captions
// ColorBrewer Dark2 orange: apart from blue, white and red.
inline const QColor kHighlight(0xd9, 0x5f, 0x02);

HeatmapStyle style();
// ViewExporter's maps: the frame lighter than style()'s.
HeatmapStyle viewStyle();
// The application's font at `pixels` times `factor` (at least 1 px).
QFont pixelFont(int pixels, qreal factor = 1.0, bool bold = false);
// As ViewExporter sizes it: a 42nd of the shorter side (11 to 64 px),
// times `factor`.
QFont font(const QSize& size, qreal factor = 1.0, bool bold = false);
// The sentence in a picture's title, cut (displaylabel.h) before the title
// is measured and elided: a sentence may hold a mebibyte of text.
QString titleSentence(const std::string& sentence);

}  // namespace attnlab::picturestyle
