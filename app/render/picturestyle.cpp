// SPDX-License-Identifier: GPL-3.0-or-later
#include "picturestyle.h"

#include "displaylabel.h"

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

HeatmapStyle viewStyle()
{
    return {Qt::white, kText, QColor(0xa0, 0xa0, 0xa0), false};
}

QFont pixelFont(int pixels, qreal factor, bool bold)
{
    QFont f = QGuiApplication::font();
    f.setPixelSize(std::max(1, int(std::lround(pixels * factor))));
    f.setBold(bold);
    return f;
}

QFont font(const QSize& size, qreal factor, bool bold)
{
    return pixelFont(std::clamp(std::min(size.width(), size.height()) / 42, 11, 64), factor, bold);
}

QString titleSentence(const std::string& sentence)
{
    constexpr int kTitleClusters = 200;
    return displayLabel(QString::fromStdString(sentence), kTitleClusters);
}

}  // namespace attnlab::picturestyle
