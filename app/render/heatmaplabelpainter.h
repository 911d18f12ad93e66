// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The text around a heatmap's cells, drawn with QPainter where HeatmapLayout
// puts it: the row labels (the focus row's always, in bold), the column
// labels (upright or read bottom to top), the colour scale with its ticks,
// and the caption (wrapped at words onto the lines the layout gives). On
// screen the labels are QStaticTexts laid out once per elide width; exports
// keep QPainter's own text, which SVG and PDF record as text.

#include "heatmapcolorscale.h"
#include "heatmaplayout.h"
#include "heatmapstyle.h"

#include <QFont>
#include <QHash>
#include <QPair>
#include <QRect>
#include <QStaticText>
#include <QString>
#include <QStringList>

class QFontMetrics;
class QPainter;

namespace attnlab {

class HeatmapLabelPainter {
public:
    // The labels of the shown block `block` (map rows and columns); a
    // missing label is empty.
    void paintLabels(QPainter& painter, const HeatmapLayout& l, const HeatmapStyle& style, const QFont& font,
                     const QRect& block, int focusRow, const QStringList& rowLabels,
                     const QStringList& colLabels);
    // Forgets the labels laid out (when the font changes).
    void clearCache();
    static void paintScale(QPainter& painter, const HeatmapLayout& l, const HeatmapStyle& style,
                           const QFont& font, const HeatmapColorScale& scale);
    static void paintCaption(QPainter& painter, const HeatmapLayout& l, const HeatmapStyle& style,
                             const QFont& font, const QString& text);

    // `text` with an ellipsis when it is wider than `width`, and only then.
    static QString elided(const QFontMetrics& fm, const QString& text, int width);
    // A token's label (displayLabel first, so that nothing long is measured)
    // elided to `width`: the token strip's chips, the focus panel's words.
    static QString elidedLabel(const QFontMetrics& fm, const QString& token, int width);
    static QFont boldFont(QFont font);

private:
    // The compact layout's bar under the cells, its numbers below it.
    static void paintScaleUnder(QPainter& painter, const HeatmapLayout& l, const HeatmapStyle& style,
                                const QFont& font, const HeatmapColorScale& scale);
    void drawLabel(QPainter& painter, const QRect& box, Qt::Alignment align, const QString& label, int width,
                   bool bold, bool screen);

    // Labels on screen by text and elide width; [1] in bold.
    QHash<QPair<QString, int>, QStaticText> labelTexts_[2];
};

}  // namespace attnlab
