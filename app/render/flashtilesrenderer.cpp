// SPDX-License-Identifier: GPL-3.0-or-later
#include "flashtilesrenderer.h"

#include "colormap.h"
#include "heatmapcolorscale.h"
#include "spacemark.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

constexpr double kMargin = 8.0;
constexpr double kGap = 16.0;
constexpr double kMaxLabelWidth = 90.0;
constexpr int kPlaces = 3;

QString number(double value)
{
    static const HeatmapColorScale scale;
    return scale.formatValue(value, kPlaces);
}

QColor blend(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

bool dark(const HeatmapStyle& style)
{
    return style.background.lightnessF() < 0.5;
}

double labelWidth(const FlashWalk& walk, const QFontMetricsF& fm)
{
    double widest = 0.0;
    for (const QString& label : walk.labels())
        widest = std::max(widest, fm.horizontalAdvance(label));
    return std::min(widest, kMaxLabelWidth) + 6.0;
}

// The state table's columns: query, m, rescale, l, then O's.
struct Columns {
    double query, m, rescale, l, o;
    double fixed() const { return query + m + rescale + l; }
};

Columns columns(const FlashWalk& walk, const QFontMetricsF& fm)
{
    const QString arrow = QStringLiteral(" \u2192 ");
    const QString wide = number(-88.888);
    Columns c;
    c.query = std::min(labelWidth(walk, fm), kMaxLabelWidth) + fm.horizontalAdvance(QStringLiteral("00 "));
    c.m = fm.horizontalAdvance(wide + arrow + wide) + 10;
    c.rescale = std::max(fm.horizontalAdvance(QStringLiteral("rescale")), fm.horizontalAdvance(wide)) + 10;
    c.l = c.m;
    c.o = fm.horizontalAdvance(wide) + 10;
    return c;
}

}  // namespace

QColor FlashTilesRenderer::accent(bool darkBackground)
{
    return darkBackground ? QColor(0xff, 0xb0, 0x40) : QColor(0xd9, 0x5f, 0x02);
}

FlashTilesRenderer::Layout FlashTilesRenderer::mapLayout(const FlashWalk& walk, const QRectF& area,
                                                         const QFont& font)
{
    Layout out;
    const int n = walk.tokens();
    if (n < 1 || !walk.ready())
        return out;
    const QFontMetricsF fm(font);
    const QRectF inner = area.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const double top = fm.height() + 4;
    const double label = labelWidth(walk, fm);
    double side = std::min(inner.height() - top, inner.width() - label);
    out.labels = side / n >= fm.height();
    if (!out.labels)
        side =
            std::min(inner.height() - top, inner.width() - fm.horizontalAdvance(QStringLiteral("000")) - 4);
    side = std::max(side, 20.0);
    out.cell = side / n >= 2.0 ? std::floor(side / n) : side / n;
    const double mapSide = out.cell * n;
    const double left = out.labels ? label : fm.horizontalAdvance(QStringLiteral("000")) + 4;
    out.map = QRectF(inner.left() + left, inner.top() + top, mapSide, mapSide);
    return out;
}

double FlashTilesRenderer::stateHeight(const FlashWalk& walk, const QFont& font)
{
    const QFontMetricsF fm(font);
    return (std::min(walk.blockRows(), 8) + 8) * (fm.height() + 4);
}

void FlashTilesRenderer::paintMap(QPainter& painter, const QRectF& area, const FlashWalk& walk,
                                  const QFont& font, const HeatmapStyle& style)
{
    painter.save();
    painter.setFont(font);
    painter.fillRect(area, style.background);
    if (!walk.ready()) {
        painter.setPen(style.text);
        painter.drawText(area.adjusted(kMargin, kMargin, -kMargin, -kMargin),
                         Qt::AlignCenter | Qt::TextWordWrap, walk.problem());
    } else {
        drawMap(painter, mapLayout(walk, area, font), walk, font, style);
    }
    painter.restore();
}

void FlashTilesRenderer::drawMap(QPainter& painter, const Layout& l, const FlashWalk& walk, const QFont& font,
                                 const HeatmapStyle& style)
{
    const int n = walk.tokens();
    const attn::Matrix& s = walk.scaledScores();
    const double range = walk.scaledRange();
    const int br = walk.blockRows(), bc = walk.blockCols();
    const QColor masked = QColor::fromRgb(colormap::kMasked);
    const QColor maskedLine = QColor::fromRgb(colormap::kMaskedHatch);
    const QColor accentColor = accent(dark(style));

    // The cells: one pixel each, scaled; tiles to come washed out.
    QImage image(n, n, QImage::Format_RGB32);
    for (int i = 0; i < n; ++i) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(i));
        for (int j = 0; j < n; ++j) {
            QColor c = std::isinf(s(i, j)) ? masked : colormap::diverging(s(i, j), range);
            if (walk.tileState(i / br, j / bc) == FlashWalk::TileState::ToCome)
                c = blend(c, style.background, 0.72);
            line[j] = c.rgb();
        }
    }
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(l.map, image);

    const auto cellRect = [&l](int i0, int j0, int i1, int j1) {  // inclusive
        return QRectF(l.map.left() + j0 * l.cell, l.map.top() + i0 * l.cell, (j1 - j0 + 1) * l.cell,
                      (i1 - i0 + 1) * l.cell);
    };
    // Masked cells hatched where they are big enough to see it.
    if (l.cell >= 6.0) {
        painter.setPen(QPen(maskedLine, 1.0));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (std::isinf(s(i, j))) {
                    const QRectF r = cellRect(i, j, i, j);
                    painter.drawLine(r.bottomLeft(), r.topRight());
                }
    }
    // Skipped tiles: crossed, and named where there is room.
    const QFontMetricsF fm(font);
    for (int I = 0; I < walk.queryBlocks(); ++I)
        for (int J = 0; J < walk.keyBlocks(); ++J) {
            if (!walk.tileSkipped(I, J))
                continue;
            const attn::FlashStep& st = walk.step(I * walk.keyBlocks() + J);
            const QRectF r = cellRect(st.queryFirst, st.keyFirst, st.queryLast, st.keyLast);
            painter.setPen(QPen(style.frame, 1.0, Qt::DashLine));
            painter.drawLine(r.topLeft(), r.bottomRight());
            painter.drawLine(r.bottomLeft(), r.topRight());
            const QString word = tr("skipped");
            if (r.width() >= fm.horizontalAdvance(word) + 6 && r.height() >= fm.height() * 1.5) {
                const QRectF box(r.center().x() - fm.horizontalAdvance(word) / 2 - 3,
                                 r.center().y() - fm.height() / 2, fm.horizontalAdvance(word) + 6,
                                 fm.height());
                painter.fillRect(box, masked);
                painter.setPen(QColor(0x40, 0x40, 0x40));
                painter.drawText(box, Qt::AlignCenter, word);
            }
        }
    // The tile grid, where its lines do not run together.
    painter.setPen(QPen(style.frame, 1.0));
    const bool grid = std::min(br, bc) * l.cell >= 4.0;
    if (!grid)
        painter.drawRect(l.map);
    for (int I = 0; grid && I <= walk.queryBlocks(); ++I) {
        const double y = l.map.top() + std::min(n, I * br) * l.cell;
        painter.drawLine(QPointF(l.map.left(), y), QPointF(l.map.right(), y));
    }
    for (int J = 0; grid && J <= walk.keyBlocks(); ++J) {
        const double x = l.map.left() + std::min(n, J * bc) * l.cell;
        painter.drawLine(QPointF(x, l.map.top()), QPointF(x, l.map.bottom()));
    }
    // The current tile: its numbers, and outlined.
    const attn::FlashStep& cur = walk.currentStep();
    const QRectF tile = cellRect(cur.queryFirst, cur.keyFirst, cur.queryLast, cur.keyLast);
    // The tile's numbers, in a smaller font where the cells need it.
    QFont cellFont = font;
    const QString widest = number(-8.888).left(5);  // "-8.89"
    while (QFontMetricsF(cellFont).horizontalAdvance(widest) > l.cell - 3 && cellFont.pointSizeF() > 6.5)
        cellFont.setPointSizeF(cellFont.pointSizeF() - 0.5);
    if (!cur.skipped && QFontMetricsF(cellFont).horizontalAdvance(widest) <= l.cell - 3
        && QFontMetricsF(cellFont).height() <= l.cell) {
        static const HeatmapColorScale scale;
        painter.setFont(cellFont);
        for (int i = cur.queryFirst; i <= cur.queryLast; ++i)
            for (int j = cur.keyFirst; j <= cur.keyLast; ++j) {
                if (std::isinf(s(i, j)))
                    continue;
                painter.setPen(colormap::contrastingText(colormap::diverging(s(i, j), range)));
                painter.drawText(cellRect(i, j, i, j), Qt::AlignCenter, scale.formatValue(s(i, j), 2));
            }
        painter.setFont(font);
    }
    painter.setPen(QPen(accentColor, 3.0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(tile.adjusted(-1, -1, 1, 1));

    // Labels (or the blocks' first indices) along the top and the left.
    painter.setPen(style.text);
    const double top = l.map.top() - fm.height() - 2;
    const auto drawKey = [&](int j, const QString& text, double width) {
        const QRectF r(l.map.left() + j * l.cell, top, width, fm.height());
        drawTokenText(painter, r, Qt::AlignLeft | Qt::AlignVCenter,
                      fm.elidedText(text, Qt::ElideRight, width));
    };
    const auto drawQuery = [&](int i, const QString& text, bool bold) {
        QFont f = font;
        f.setBold(bold);
        painter.setFont(f);
        painter.setPen(bold ? accentColor : style.text);
        const QRectF r(l.map.left() - kMaxLabelWidth - 6, l.map.top() + i * l.cell, kMaxLabelWidth + 2,
                       std::max(l.cell, fm.height()));
        drawTokenText(painter, r, Qt::AlignRight | Qt::AlignVCenter,
                      QFontMetricsF(f).elidedText(text, Qt::ElideRight, kMaxLabelWidth));
        painter.setFont(font);
        painter.setPen(style.text);
    };
    if (l.labels) {
        for (int j = 0; j < n; ++j)
            if (l.cell >= fm.horizontalAdvance(QStringLiteral("ab")))
                drawKey(j, j < walk.labels().size() ? walk.labels()[j] : QString::number(j), l.cell - 2);
        for (int i = 0; i < n; ++i)
            drawQuery(i, i < walk.labels().size() ? walk.labels()[i] : QString::number(i),
                      i >= cur.queryFirst && i <= cur.queryLast);
    } else {
        // The first index of each block, where they do not crowd.
        const double keyStep = bc * l.cell, queryStep = br * l.cell;
        const double need = fm.horizontalAdvance(QString::number(n)) + 4;
        for (int J = 0; J < walk.keyBlocks(); ++J)
            if (keyStep >= need || J * bc == cur.keyFirst)
                drawKey(J * bc, QString::number(J * bc), need);
        for (int I = 0; I < walk.queryBlocks(); ++I)
            if (queryStep >= fm.height() || I * br == cur.queryFirst)
                drawQuery(I * br, QString::number(I * br), I * br == cur.queryFirst);
    }
}

void FlashTilesRenderer::paintState(QPainter& painter, const QRectF& area, const FlashWalk& walk,
                                    const QFont& font, const HeatmapStyle& style)
{
    painter.save();
    painter.setFont(font);
    painter.fillRect(area, style.background);
    if (walk.ready() && area.width() >= 40 && area.height() >= 40)
        drawState(painter, area, walk, font, style);
    painter.restore();
}

void FlashTilesRenderer::drawState(QPainter& painter, const QRectF& area, const FlashWalk& walk,
                                   const QFont& font, const HeatmapStyle& style)
{
    const struct {
        QRectF state;
    } l{area};
    const QFontMetricsF fm(font);
    const Columns cols = columns(walk, fm);
    const attn::FlashStep& cur = walk.currentStep();
    const int dv = int(cur.O.cols());
    const int oCols =
        std::clamp(int((l.state.width() - cols.fixed()) / cols.o), 1, std::min(kMaxOColumns, dv));
    const double lineH = fm.height() + 4;
    const QColor accentColor = accent(dark(style));
    QFont bold = font;
    bold.setBold(true);
    const QString arrow = QStringLiteral(" \u2192 ");
    double y = l.state.top();
    const double x0 = l.state.left();

    painter.setPen(style.text);
    painter.setFont(bold);
    painter.drawText(QRectF(x0, y, l.state.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter,
                     cur.skipped ? tr("The tile's query rows: nothing seen, nothing changed")
                                 : tr("The tile's query rows after this step"));
    y += lineH;
    // Header.
    const double xm = x0 + cols.query, xr = xm + cols.m, xl = xr + cols.rescale, xo = xl + cols.l;
    const auto header = [&](double x, double w, const QString& text) {
        painter.drawText(QRectF(x, y, w - 6, lineH), Qt::AlignRight | Qt::AlignVCenter, text);
    };
    painter.setFont(bold);
    painter.drawText(QRectF(x0, y, cols.query, lineH), Qt::AlignLeft | Qt::AlignVCenter, tr("query"));
    header(xm, cols.m, tr("m"));
    header(xr, cols.rescale, tr("rescale"));
    header(xl, cols.l, tr("l"));
    for (int c = 0; c < oCols; ++c)
        header(xo + c * cols.o, cols.o, tr("O[:, %1]").arg(c));
    y += lineH;
    painter.setPen(QPen(style.frame, 1.0));
    painter.drawLine(QPointF(x0, y - 2), QPointF(xo + oCols * cols.o, y - 2));

    // The rows that fit, leaving room for the notes below.
    const int fits = std::max(1, int((l.state.bottom() - y) / lineH) - 1);
    const int shown = std::min(cur.rows(), fits);
    const auto cell = [&](double x, double w, const QString& text, bool changed) {
        painter.setFont(changed ? bold : font);
        painter.setPen(changed ? accentColor : style.text);
        painter.drawText(QRectF(x, y, w - 6, lineH), Qt::AlignRight | Qt::AlignVCenter, text);
    };
    for (int r = 0; r < shown; ++r) {
        const int i = cur.queryFirst + r;
        const FlashWalk::RowChange& ch = walk.change(r);
        painter.setFont(font);
        painter.setPen(style.text);
        const QString label = i < walk.labels().size() ? walk.labels()[i] : QString();
        painter.drawText(
            QRectF(x0, y, cols.query, lineH), Qt::AlignLeft | Qt::AlignVCenter,
            fm.elidedText(QStringLiteral("%1 %2").arg(i).arg(label), Qt::ElideRight, cols.query - 4));
        cell(xm, cols.m, ch.m ? number(ch.mBefore) + arrow + number(cur.m(r)) : number(cur.m(r)), ch.m);
        cell(xr, cols.rescale, number(cur.rescale(r)), cur.rescale(r) != 1.0);
        cell(xl, cols.l, ch.l ? number(ch.lBefore) + arrow + number(cur.l(r)) : number(cur.l(r)), ch.l);
        for (int c = 0; c < oCols; ++c)
            cell(xo + c * cols.o, cols.o, number(cur.O(r, c)), ch.O);
        y += lineH;
    }
    painter.setFont(font);
    painter.setPen(style.text);
    if (shown < cur.rows()) {
        painter.drawText(QRectF(x0, y, l.state.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter,
                         tr("\u2026 and %n more row(s)", nullptr, cur.rows() - shown));
        y += lineH;
    }
    if (oCols < dv) {
        painter.drawText(QRectF(x0, y, l.state.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter,
                         tr("O: the first %1 of its %2 columns").arg(oCols).arg(dv));
        y += lineH;
    }
    // The recurrence, and what the colours say.
    y += lineH / 2;
    const QStringList notes = {
        tr("m\u2032 = max(m, the tile's scores); rescale = exp(m \u2212 m\u2032)"),
        tr("l\u2032 = rescale \u00b7 l + \u03a3 exp(s \u2212 m\u2032);  O\u2032 = rescale \u00b7 O + \u03a3 "
           "exp(s \u2212 m\u2032) v"),
    };
    for (const QString& note : notes) {
        if (y + lineH > l.state.bottom())
            return;
        painter.drawText(QRectF(x0, y, l.state.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter,
                         fm.elidedText(note, Qt::ElideRight, l.state.width()));
        y += lineH;
    }
    y += lineH / 2;
    if (y + lineH > l.state.bottom())
        return;
    // Legend: done, current, to come, skipped.
    const double sw = fm.height();
    double x = x0;
    const auto swatch = [&](const QString& text, const QColor& fill, const QPen& pen, bool cross) {
        const QRectF box(x, y + 2, sw, sw);
        painter.fillRect(box, fill);
        painter.setPen(pen);
        painter.drawRect(box);
        if (cross) {
            painter.drawLine(box.topLeft(), box.bottomRight());
            painter.drawLine(box.bottomLeft(), box.topRight());
        }
        painter.setPen(style.text);
        const double w = fm.horizontalAdvance(text);
        painter.drawText(QRectF(x + sw + 4, y, w + 2, lineH), Qt::AlignLeft | Qt::AlignVCenter, text);
        x += sw + 4 + w + 14;
    };
    const QColor sample = colormap::diverging(0.6, 1.0);
    swatch(tr("done"), sample, QPen(style.frame, 1.0), false);
    swatch(tr("this step"), sample, QPen(accentColor, 2.0), false);
    swatch(tr("to come"), blend(sample, style.background, 0.72), QPen(style.frame, 1.0), false);
    swatch(tr("skipped"), QColor::fromRgb(colormap::kMasked), QPen(style.frame, 1.0, Qt::DashLine), true);
}

}  // namespace attnlab
