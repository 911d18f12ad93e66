// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The visible-space mark's ink in a picture, for the tests that check a
// token label's "␣" is drawn as the bracket (spacemark.h): the bracket is
// most of the glyph's advance wide, 3 px high or more, its foot on the
// word's, where the font's own glyph is a few pixels hanging below it.

#include <QFont>
#include <QFontMetricsF>
#include <QImage>
#include <QRect>
#include <QString>

#include <algorithm>

namespace spacemarkink {

struct Ink {
    int left = -1, right = -1, top = -1, bottom = -1;
    int width() const { return left < 0 ? 0 : right - left + 1; }
    int height() const { return top < 0 ? 0 : bottom - top + 1; }
};

inline Ink inkOf(const QImage& image, const QRect& region)
{
    Ink ink;
    const QRect r = region.intersected(image.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            if (qGray(image.pixel(x, y)) < 160) {
                ink.left = ink.left < 0 ? x : std::min(ink.left, x);
                ink.right = std::max(ink.right, x);
                ink.top = ink.top < 0 ? y : std::min(ink.top, y);
                ink.bottom = std::max(ink.bottom, y);
            }
    return ink;
}

inline Ink inkOf(const QImage& image)
{
    return inkOf(image, image.rect());
}

// A label "␣word" drawn in `region`: the first columns with ink, side by
// side, are the mark's; the rest the word's.
struct LabelInk {
    Ink mark, word;
};

inline LabelInk labelInk(const QImage& image, const QRect& region)
{
    const auto column = [&](int x) {
        return inkOf(image, QRect(x, region.top(), 1, region.height())).height() > 0;
    };
    int x = region.left();
    while (x <= region.right() && !column(x))
        ++x;
    const int markLeft = x;
    while (x <= region.right() && column(x))
        ++x;
    return {inkOf(image, QRect(markLeft, region.top(), x - markLeft, region.height())),
            inkOf(image, QRect(x, region.top(), region.right() + 1 - x, region.height()))};
}

// The label in `region` starts with the bracket: most of the mark's advance
// wide, 3 px high or more, its foot on the word's (the word without a
// descender); the font's glyph reaches about 3 px below the word's foot.
inline bool bracketLabel(const QImage& image, const QRect& region, const QFont& font, QString* why)
{
    const double advance = QFontMetricsF(font).horizontalAdvance(QChar(0x2423));
    const LabelInk ink = labelInk(image, region);
    *why = QStringLiteral("mark %1 x %2 px, foot at %3; word foot at %4; advance %5")
               .arg(ink.mark.width())
               .arg(ink.mark.height())
               .arg(ink.mark.bottom)
               .arg(ink.word.bottom)
               .arg(advance);
    return ink.word.width() > 0 && ink.mark.width() >= 0.7 * advance && ink.mark.height() >= 3
           && ink.mark.bottom <= ink.word.bottom && ink.mark.bottom >= ink.word.bottom - 1;
}

}  // namespace spacemarkink

#define VERIFY_BRACKET(image, region, font)                                               \
    do {                                                                                  \
        QString why;                                                                      \
        QVERIFY2(spacemarkink::bracketLabel(image, region, font, &why), qPrintable(why)); \
    } while (false)
