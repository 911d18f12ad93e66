// SPDX-License-Identifier: GPL-3.0-or-later
#include "picturestyle.h"

#include <QGuiApplication>

#include <algorithm>
#include <cmath>

namespace attnlab::picturestyle {

HeatmapStyle style()
{
    HeatmapStyle s;
    s.background = Qt::white;
    s.text = kText;
    s.frame = QColor(0x80, 0x80, 0x80);
    return s;
}

QFont font(const QSize& size, qreal factor, bool bold)
{
    const int pixels = std::clamp(std::min(size.width(), size.height()) / 42, 11, 64);
    QFont f = QGuiApplication::font();
    f.setPixelSize(std::max(1, int(std::lround(pixels * factor))));
    f.setBold(bold);
    return f;
}

}  // namespace attnlab::picturestyle
