// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmaplabelpainter.h"

#include "displaylabel.h"
#include "spacemark.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab {

namespace {

// The bar itself, framed: a gradient from `low` to `high` through the map's
// stops (a gradient stays one in SVG and PDF). The per-row and log scales
// spread the colours evenly over the bar, as their ticks do.
void paintBar(QPainter& painter, const QRect& bar, QPointF low, QPointF high, const HeatmapStyle& style,
              const HeatmapColorScale& scale)
{
    QLinearGradient gradient(low, high);
    constexpr int kStops = 32;
    for (int i = 0; i <= kStops; ++i) {
        const double t = double(i) / kStops;
        gradient.setColorAt(t, scale.barColor(t));
    }
    painter.fillRect(bar, gradient);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(style.frame, 1));
    painter.drawRect(QRectF(bar).adjusted(-0.5, -0.5, 0.5, 0.5));
}

}  // namespace

// QFontMetrics::elidedText() may elide a text that measures exactly the
// width it is given; elide only what is really too wide.
QString HeatmapLabelPainter::elided(const QFontMetrics& fm, const QString& text, int width)
{
    return fm.horizontalAdvance(text) <= width ? text : fm.elidedText(text, Qt::ElideRight, width);
}

QString HeatmapLabelPainter::elidedLabel(const QFontMetrics& fm, const QString& token, int width)
{
    return elided(fm, displayLabel(token), width);
}

void HeatmapLabelPainter::clearCache()
{
    labelTexts_[0].clear();
    labelTexts_[1].clear();
}

QFont HeatmapLabelPainter::boldFont(QFont font)
{
    font.setBold(true);
    return font;
}

void HeatmapLabelPainter::paintLabels(QPainter& painter, const HeatmapLayout& l, const HeatmapStyle& style,
                                      const QFont& font, const QRect& b, int focusRow,
                                      const QStringList& rowLabels, const QStringList& colLabels)
{
    const QFontMetrics fm(font);
    const QFont bold = boldFont(font);
    const int lineH = fm.height();
    painter.save();
    painter.setPen(style.text);

    if (l.rowLabelStep > 0) {
        for (int r = b.top(); r <= b.bottom(); ++r) {
            // The focus row's label is always drawn, in bold.
            const bool focus = r == focusRow;
            if (!focus && (r - b.top()) % l.rowLabelStep != 0)
                continue;
            if (!focus && focusRow >= 0 && l.rowLabelStep > 1 && std::abs(r - focusRow) < l.rowLabelStep)
                continue;
            const QRect cell = l.cellRect(r - b.top(), 0);
            const int centre = cell.top() + cell.height() / 2;
            const int y = std::clamp(centre - lineH / 2, l.cells.top(), l.cells.bottom() + 1 - lineH);
            const QRect box(l.rowLabels.left(), y, l.rowLabelWidth, lineH);
            painter.setFont(focus ? bold : font);
            drawLabel(painter, box, Qt::AlignRight | Qt::AlignVCenter, rowLabels.value(r), box.width(), focus,
                      style.screen);
        }
    }

    painter.setFont(font);
    if (l.columnLabelStep > 0) {
        for (int c = b.left(); c <= b.right(); c += l.columnLabelStep) {
            const QRect cell = l.cellRect(0, c - b.left());
            if (!l.rotatedColumns) {
                const QRect box(cell.left(), l.columnLabels.top(), cell.width(),
                                l.columnLabels.height() - l.labelGap);
                drawLabel(painter, box, Qt::AlignHCenter | Qt::AlignBottom, colLabels.value(c),
                          l.columnLabelWidth, false, style.screen);
                continue;
            }
            const QString label = elided(fm, colLabels.value(c), l.columnLabelWidth);
            // Read bottom to top, starting just above the cells.
            const double x = std::clamp(cell.left() + cell.width() / 2.0, l.cells.left() + lineH / 2.0,
                                        l.cells.right() + 1 - lineH / 2.0);
            painter.save();
            painter.translate(x, l.columnLabels.bottom() + 1 - l.labelGap);
            painter.rotate(-90);
            drawTokenText(painter, QRectF(0, -lineH / 2.0, l.columnLabelWidth, lineH),
                          Qt::AlignLeft | Qt::AlignVCenter, label);
            painter.restore();
        }
    }
    painter.restore();
}

void HeatmapLabelPainter::drawLabel(QPainter& painter, const QRect& box, Qt::Alignment align,
                                    const QString& label, int width, bool bold, bool screen)
{
    // Exports keep QPainter's own text (it is what SVG and PDF record); a
    // leading space's "␣" is a bracket of lines (spacemark.h), on screen too.
    if (!screen || hasSpaceMark(label)) {
        // On screen unclipped, as the QStaticTexts below.
        drawTokenText(painter, box, int(align) | (screen ? int(Qt::TextDontClip) : 0),
                      elided(QFontMetrics(painter.font()), label, width));
        return;
    }
    QHash<QPair<QString, int>, QStaticText>& cache = labelTexts_[bold ? 1 : 0];
    if (cache.size() > 8192)
        cache.clear();  // thousands of tokens relabelled: start over
    auto it = cache.find({label, width});
    if (it == cache.end()) {
        QStaticText text(elided(QFontMetrics(painter.font()), label, width));
        text.setTextFormat(Qt::PlainText);
        text.setPerformanceHint(QStaticText::AggressiveCaching);
        text.prepare(QTransform(), painter.font());
        it = cache.insert({label, width}, text);
    }
    const QStaticText& text = it.value();
    const QSizeF size = text.size();
    double x = box.left();
    if (align & Qt::AlignRight)
        x = box.right() + 1 - size.width();
    else if (align & Qt::AlignHCenter)
        x = box.left() + (box.width() - size.width()) / 2.0;
    double y = box.top();
    if (align & Qt::AlignBottom)
        y = box.bottom() + 1 - size.height();
    else if (align & Qt::AlignVCenter)
        y = box.top() + (box.height() - size.height()) / 2.0;
    painter.drawStaticText(QPointF(x, y), text);
}

void HeatmapLabelPainter::paintScale(QPainter& painter, const HeatmapLayout& l, const HeatmapStyle& style,
                                     const QFont& font, const HeatmapColorScale& scale)
{
    const QRect bar = l.scaleBar;
    if (bar.height() <= 0)
        return;
    if (l.compact) {
        paintScaleUnder(painter, l, style, font, scale);
        return;
    }
    painter.save();
    // Top = high end.
    paintBar(painter, bar, QPointF(0, bar.bottom() + 1), QPointF(0, bar.top()), style, scale);

    const int lineH = QFontMetrics(font).height();
    painter.setPen(style.text);
    const std::vector<HeatmapColorScale::Tick> ticks = scale.ticks(l.scaleTicks);
    if (l.endsOnOneLine && ticks.size() >= 2) {
        const QRectF box(l.tickTextLeft, bar.center().y() + 0.5 - lineH / 2.0,
                         l.size.width() - l.tickTextLeft, lineH);
        painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, HeatmapColorScale::endsText(ticks));
        painter.restore();
        return;
    }
    for (const HeatmapColorScale::Tick& tick : ticks) {
        const double y = bar.top() + (1.0 - tick.t) * bar.height();
        painter.drawLine(QPointF(bar.right() + 1, y), QPointF(bar.right() + 1 + l.tickLength, y));
        const QRectF box(l.tickTextLeft, y - lineH / 2.0, l.size.width() - l.tickTextLeft, lineH);
        painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, tick.text);
    }
    painter.restore();
}

void HeatmapLabelPainter::paintScaleUnder(QPainter& painter, const HeatmapLayout& l,
                                          const HeatmapStyle& style, const QFont& font,
                                          const HeatmapColorScale& scale)
{
    const QRect bar = l.scaleBar;
    painter.save();
    // Low end at the left.
    paintBar(painter, bar, QPointF(bar.left(), 0), QPointF(bar.right() + 1, 0), style, scale);

    const QFontMetrics fm(font);
    const int lineH = fm.height();
    painter.setPen(style.text);
    const std::vector<HeatmapColorScale::Tick> ticks = scale.ticks(l.scaleTicks);
    const int textTop = l.tickTextLeft;
    if (l.endsOnOneLine && ticks.size() >= 2) {
        painter.drawText(QRectF(0, textTop, l.size.width(), lineH), Qt::AlignHCenter | Qt::AlignVCenter,
                         HeatmapColorScale::endsText(ticks));
        painter.restore();
        return;
    }
    for (const HeatmapColorScale::Tick& tick : ticks) {
        const double x = bar.left() + tick.t * bar.width();
        painter.drawLine(QPointF(x, bar.bottom() + 1), QPointF(x, bar.bottom() + 1 + l.tickLength));
        // Centred on its tick, kept inside the picture.
        const double w = fm.horizontalAdvance(tick.text) + 2.0;
        const double left = std::clamp(x - w / 2.0, 0.0, std::max(0.0, l.size.width() - w));
        painter.drawText(QRectF(left, textTop, w, lineH), Qt::AlignCenter, tick.text);
    }
    painter.restore();
}

void HeatmapLabelPainter::paintCaption(QPainter& painter, const HeatmapLayout& l, const HeatmapStyle& style,
                                       const QFont& font, const QString& text)
{
    if (l.caption.isEmpty())
        return;
    // In the text colour: the cells and the bar leave other pens set.
    painter.setPen(style.text);
    if (l.captionLines > 1) {
        // Wrapped at words; what still does not fit is elided on the last line.
        const QFontMetrics fm(font);
        const int lineH = fm.height();
        QString first = text;
        const qsizetype cut = text.lastIndexOf(QLatin1Char(' '), -1);
        for (qsizetype at = cut; at > 0; at = text.lastIndexOf(QLatin1Char(' '), at - 1)) {
            if (fm.horizontalAdvance(text.left(at)) <= l.caption.width()) {
                first = text.left(at);
                break;
            }
        }
        if (first == text) {
            painter.drawText(l.caption, Qt::AlignHCenter | Qt::AlignTop, elided(fm, text, l.caption.width()));
            return;
        }
        const QString rest = text.mid(first.size()).trimmed();
        painter.drawText(QRect(l.caption.left(), l.caption.top(), l.caption.width(), lineH),
                         Qt::AlignHCenter | Qt::AlignVCenter, first);
        painter.drawText(QRect(l.caption.left(), l.caption.top() + lineH, l.caption.width(), lineH),
                         Qt::AlignHCenter | Qt::AlignVCenter, elided(fm, rest, l.caption.width()));
        return;
    }
    painter.drawText(l.caption, Qt::AlignHCenter | Qt::AlignVCenter,
                     elided(QFontMetrics(font), text, l.caption.width()));
}

}  // namespace attnlab
