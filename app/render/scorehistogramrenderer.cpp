// SPDX-License-Identifier: GPL-3.0-or-later
#include "scorehistogramrenderer.h"

#include "colormap.h"

#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

QString number(double v, int digits = 3)
{
    return QLocale().toString(v, 'g', digits);
}

// A tick step of 1, 2 or 5 times a power of ten giving about `count` ticks over `span`.
double tickStep(double span, int count)
{
    const double raw = span / std::max(1, count);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0})
        if (raw <= m * power)
            return m * power;
    return 10.0 * power;
}

}  // namespace

QString ScoreHistogramRenderer::titleText() const
{
    const attn::ScoreHistogram& h = histogram_;
    if (h.pairs == 0)
        return tr("Scores q·k");
    const QString pairs = h.sampled()
                              ? tr("%1 of %2 pairs (one query in %3)")
                                    .arg(QLocale().toString(h.pairs), QLocale().toString(h.totalPairs))
                                    .arg(h.rowStride)
                              : tr("%n pair(s)", nullptr, int(std::min<long long>(h.pairs, 1 << 30)));
    return tr("Scores q·k at d_k = %1: %2").arg(h.dK).arg(pairs);
}

QString ScoreHistogramRenderer::legendText(bool scaled) const
{
    const attn::ScoreHistogram& h = histogram_;
    if (scaled)
        return tr("scaled q·k/√%1: sd %2").arg(h.dK).arg(number(h.sdScaled));
    return tr("raw q·k: sd %1").arg(number(h.sdRaw));
}

void ScoreHistogramRenderer::paint(QPainter& painter, const QSize& size, const Style& style) const
{
    const attn::ScoreHistogram& h = histogram_;
    // The d_k lab's colours for the unscaled and the scaled scores.
    const bool dark = style.background.lightness() < 128;
    const QColor rawColor = colormap::rawCurve(dark);
    const QColor scaledColor = colormap::scaledCurve(dark);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(QRect(QPoint(0, 0), size), style.background);
    const QColor text = style.text;
    const QFont font = style.font;
    const QFontMetrics fm(font);
    const int line = fm.height();
    const int pad = std::max(4, line / 2);

    QFont bold = font;
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(text);
    const QRect titleRect(pad, pad, size.width() - 2 * pad, line);
    painter.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetrics(bold).elidedText(titleText(), Qt::ElideRight, titleRect.width()));
    painter.setFont(font);

    // The legend under the title, one swatch and text per histogram.
    int y = titleRect.bottom() + pad / 2;
    for (const bool scaled : {false, true}) {
        const QColor colour = scaled ? scaledColor : rawColor;
        const QRect swatch(pad, y + line / 4, line, line / 2);
        QColor fill = colour;
        fill.setAlphaF(scaled ? 0.75 : 0.35);
        painter.fillRect(swatch, fill);
        painter.setPen(colour);
        painter.drawRect(swatch);
        painter.setPen(text);
        painter.drawText(
            QRect(swatch.right() + pad, y, size.width() - swatch.right() - 2 * pad, line),
            Qt::AlignLeft | Qt::AlignVCenter,
            fm.elidedText(legendText(scaled), Qt::ElideRight, size.width() - swatch.right() - 2 * pad));
        y += line;
    }

    const int bins = h.bins();
    long long peak = 0;
    for (int b = 0; b < bins; ++b)
        peak = std::max({peak, h.raw[std::size_t(b)], h.scaled[std::size_t(b)]});
    const double top = peak > 0 && h.pairs > 0 ? std::min(1.0, 1.1 * double(peak) / double(h.pairs)) : 1.0;
    const double yStep = tickStep(top, 4);
    const QString widestY = QLocale().toString(100.0 * top, 'f', yStep * 100 < 1 ? 1 : 0) + QLatin1Char('%');
    const int left = pad + fm.horizontalAdvance(widestY) + pad;
    const int right = size.width() - pad - fm.horizontalAdvance(QStringLiteral("-000")) / 2;
    const int topY = y + pad;
    const int bottom = size.height() - pad - 2 * line - pad;
    if (right - left < 20 || bottom - topY < 20 || bins == 0) {
        painter.restore();
        return;
    }
    const auto xOf = [&](double v) { return left + (v + h.limit) / (2 * h.limit) * (right - left); };
    const auto yOf = [&](double share) { return bottom - share / top * (bottom - topY); };

    // Grid and y ticks (share of the pairs).
    QColor grid = text;
    grid.setAlphaF(0.15);
    for (double t = 0; t <= top * (1 + 1e-9); t += yStep) {
        const qreal yy = yOf(t);
        painter.setPen(grid);
        painter.drawLine(QPointF(left, yy), QPointF(right, yy));
        painter.setPen(text);
        painter.drawText(QRectF(pad, yy - line / 2.0, left - 2 * pad, line),
                         Qt::AlignRight | Qt::AlignVCenter,
                         QLocale().toString(100.0 * t, 'f', yStep * 100 < 1 ? 1 : 0) + QLatin1Char('%'));
    }

    // Bars: the raw counts light and wide, the scaled ones darker on top.
    for (const bool scaled : {false, true}) {
        const std::vector<long long>& counts = scaled ? h.scaled : h.raw;
        const QColor colour = scaled ? scaledColor : rawColor;
        QColor fill = colour;
        fill.setAlphaF(scaled ? 0.75 : 0.35);
        for (int b = 0; b < bins; ++b) {
            const long long c = counts[std::size_t(b)];
            if (c == 0)
                continue;
            const double share = double(c) / double(h.pairs);
            const QRectF bar(QPointF(xOf(h.binLower(b)), yOf(share)),
                             QPointF(xOf(h.binLower(b) + h.binWidth()), bottom));
            painter.fillRect(bar, fill);
            painter.setPen(QPen(colour, 1));
            painter.drawRect(bar);
        }
    }

    // The x axis: ticks at a round step, 0 marked.
    painter.setPen(text);
    painter.drawLine(QPointF(left, bottom), QPointF(right, bottom));
    const double xStep = tickStep(
        2 * h.limit, std::max(2, (right - left) / (fm.horizontalAdvance(QStringLiteral("-0000")) + pad)));
    for (double t = -std::floor(h.limit / xStep) * xStep; t <= h.limit * (1 + 1e-9); t += xStep) {
        const qreal xx = xOf(std::abs(t) < xStep * 1e-9 ? 0.0 : t);
        painter.drawLine(QPointF(xx, bottom), QPointF(xx, bottom + pad / 2.0));
        painter.drawText(QRectF(xx - 40, bottom + pad / 2.0, 80, line), Qt::AlignHCenter | Qt::AlignTop,
                         number(std::abs(t) < xStep * 1e-9 ? 0.0 : t, 4));
    }
    painter.drawText(QRect(left, bottom + pad / 2 + line, right - left, line),
                     Qt::AlignHCenter | Qt::AlignTop, tr("score"));
    painter.restore();
}

}  // namespace attnlab
