// SPDX-License-Identifier: GPL-3.0-or-later
#include "pipelinefigure.h"

#include "heatmaprenderer.h"
#include "picturestyle.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <utility>

namespace attnlab {

namespace {

using picturestyle::kMuted;
using picturestyle::kText;
using picturestyle::pixelFont;

// An arrow from `from` to `to` with a filled head.
void drawArrow(QPainter& painter, QPointF from, QPointF to, qreal width)
{
    const qreal head = width * 4.0;
    painter.save();
    painter.setPen(QPen(kText, width, Qt::SolidLine, Qt::FlatCap));
    painter.drawLine(from, QPointF(to.x() - head, to.y()));
    QPainterPath tip;
    tip.moveTo(to);
    tip.lineTo(to.x() - head, to.y() - head * 0.55);
    tip.lineTo(to.x() - head, to.y() + head * 0.55);
    tip.closeSubpath();
    painter.fillPath(tip, kText);
    painter.restore();
}

}  // namespace

PipelineFigure::PipelineFigure(const std::array<HeatmapRenderer*, 3>& maps, const AttentionSnapshot& snapshot,
                               QString divisor)
    : maps_(maps), snapshot_(snapshot), divisor_(std::move(divisor))
{
}

void PipelineFigure::paint(QPainter& painter, const QSize& size) const
{
    const int w = size.width();
    const int h = size.height();
    const int px = std::clamp(std::min(h / 40, w / 80), 10, 64);
    for (HeatmapRenderer* m : maps_)
        m->setFont(pixelFont(px));
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);

    const attn::ModelConfig& c = snapshot_.config;
    const attn::AttentionResult& r = snapshot_.head();
    const int margin = px * 3 / 2;
    const QFont titleFont = pixelFont(px, 1.6, true);
    const QFont subtitleFont = pixelFont(px, 1.05);
    const QFont captionFont = pixelFont(px, 1.3);
    const QFont operatorFont = pixelFont(px, 1.35);
    const QFontMetrics titleFm(titleFont);
    const QFontMetrics subtitleFm(subtitleFont);
    const QFontMetrics captionFm(captionFont);
    const QFontMetrics operatorFm(operatorFont);

    int y = margin;
    painter.setPen(kText);
    painter.setFont(titleFont);
    const QString title = tr("Self-attention over “%1”").arg(picturestyle::titleSentence(c.sentence));
    painter.drawText(QRect(margin, y, w - 2 * margin, titleFm.height()), Qt::AlignCenter,
                     titleFm.elidedText(title, Qt::ElideRight, w - 2 * margin));
    y += titleFm.height() + px / 3;
    painter.setFont(subtitleFont);
    painter.setPen(kMuted);
    const QString subtitle = tr("%1 tokens · d_model %2 · d_k %3 · d_v %4 · seed %5 · %6 initialisation")
                                 .arg(r.tokens())
                                 .arg(snapshot_.X.cols())
                                 .arg(r.Q.cols())
                                 .arg(r.V.cols())
                                 .arg(c.seed)
                                 .arg(QLatin1String(attn::initModeName(c.init)));
    painter.drawText(QRect(margin, y, w - 2 * margin, subtitleFm.height()), Qt::AlignCenter,
                     subtitleFm.elidedText(subtitle, Qt::ElideRight, w - 2 * margin));
    y += subtitleFm.height() + px;

    const QString caption =
        tr("A = softmax(Q Kᵀ ÷ %1)%2     rows: queries · columns: keys · each row of A sums to 1")
            .arg(divisor_)
            .arg(r.causal ? tr(", keys after the query masked")
                 : r.mask.kind != attn::AttentionMask::Kind::None
                     ? tr(", mask %1").arg(QString::fromStdString(r.mask.name()))
                     : QString());
    const int captionH = captionFm.height();
    const int bottom = h - margin - captionH - px;

    const QString scaleText = tr("÷ %1").arg(divisor_);
    const QString softmaxText = tr("softmax");
    const int opW =
        std::max({operatorFm.horizontalAdvance(scaleText), operatorFm.horizontalAdvance(softmaxText),
                  operatorFm.horizontalAdvance(tr("mask j > i"))})
        + 2 * px;
    const int mapW = std::max(60, (w - 2 * margin - 2 * opW) / 3);
    const int mapH = std::max(60, bottom - y);
    // The three maps laid out alike, compactly (the colour bars under the
    // cells) when only that prints all their numbers; each keeps its row
    // labels, so that a map read alone is named.
    const auto setCompact = [&](bool on) {
        for (HeatmapRenderer* m : maps_)
            m->setCompactLayout(on ? CompactLayout::WithRowLabels : CompactLayout::Off);
    };
    const auto allNumbers = [&] {
        return std::all_of(maps_.begin(), maps_.end(),
                           [&](HeatmapRenderer* m) { return m->layout(QSize(mapW, mapH)).cellText; });
    };
    setCompact(false);
    if (!allNumbers()) {
        setCompact(true);
        if (!allNumbers())
            setCompact(false);
    }
    for (int i = 0; i < 3; ++i) {
        HeatmapRenderer* m = maps_[std::size_t(i)];
        const int x = margin + i * (mapW + opW);
        painter.save();
        painter.translate(x, y);
        painter.setClipRect(QRect(0, 0, mapW, mapH));
        m->paint(painter, QSize(mapW, mapH), picturestyle::viewStyle());
        painter.restore();
        if (i == 2)
            break;
        // The operation between two maps, level with the cells' centre.
        const QRect cells = m->layout(QSize(mapW, mapH)).cells;
        const qreal arrowY = y + cells.center().y();
        const qreal left = x + mapW + px * 0.4;
        const qreal right = x + mapW + opW - px * 0.4;
        drawArrow(painter, QPointF(left, arrowY), QPointF(right, arrowY), std::max(1.5, px / 7.0));
        painter.setPen(kText);
        painter.setFont(operatorFont);
        const QString above = i == 0 ? scaleText : softmaxText;
        painter.drawText(QRectF(left - px, arrowY - operatorFm.height() * 1.25, right - left + 2 * px,
                                operatorFm.height()),
                         Qt::AlignHCenter | Qt::AlignBottom, above);
        if (i == 0 && r.mask.kind != attn::AttentionMask::Kind::None)
            painter.drawText(
                QRectF(left - px, arrowY + operatorFm.height() * 0.3, right - left + 2 * px,
                       operatorFm.height()),
                Qt::AlignHCenter | Qt::AlignTop,
                r.causal ? tr("mask j > i") : tr("mask %1").arg(QString::fromStdString(r.mask.name())));
    }

    painter.setFont(captionFont);
    painter.setPen(kText);
    painter.drawText(QRect(margin, h - margin - captionH, w - 2 * margin, captionH), Qt::AlignCenter,
                     captionFm.elidedText(caption, Qt::ElideRight, w - 2 * margin));
    painter.restore();
    setCompact(false);  // a single map exported next is laid out as usual
}

}  // namespace attnlab
