// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalingcomparisonfigure.h"

#include "heatmaprenderer.h"
#include "picturestyle.h"
#include "resultcells.h"
#include "sharetext.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <utility>

namespace attnlab {

using picturestyle::kMuted;
using picturestyle::kText;
using picturestyle::pixelFont;

ScalingComparisonFigure::ScalingComparisonFigure(const attn::AttentionResult& result, QStringList tokens,
                                                 int focusRow, std::string sentence)
    : result_(result), tokens_(std::move(tokens)), focusRow_(focusRow), sentence_(std::move(sentence))
{
}

ScalingComparisonFigure::~ScalingComparisonFigure() = default;

const attn::ScalingComparison& ScalingComparisonFigure::comparison() const
{
    if (!comparison_)
        comparison_ = std::make_shared<const attn::ScalingComparison>(attn::compareScaling(result_));
    return *comparison_;
}

void ScalingComparisonFigure::paint(QPainter& painter, const QSize& size) const
{
    const attn::ScalingComparison& c = comparison();
    if (!maps_[0]) {
        const attn::Matrix* matrices[2] = {&c.weightsUnscaled, &c.weightsScaled};
        const QString titles[2] = {tr("softmax(Q Kᵀ): unscaled"),
                                   tr("softmax(Q Kᵀ ÷ √%1): scaled").arg(c.dK)};
        for (int i = 0; i < 2; ++i) {
            auto& m = maps_[std::size_t(i)];
            m = std::make_unique<HeatmapRenderer>();
            m->setColorMap(MapColors::Sequential);
            m->setRange(0.0, 1.0);
            m->setDecimals(2);
            m->setTitle(titles[i]);
            // Aliasing: the map keeps the comparison alive.
            m->setCells(sharedMatrixCells({comparison_, matrices[i]}), tokens_, tokens_);
            m->setFocusRow(focusRow_);
        }
    }
    const int w = size.width();
    const int h = size.height();
    const int px = std::clamp(std::min(h / 40, w / 70), 10, 64);
    const QFont font = pixelFont(px);
    for (const auto& m : maps_)
        m->setFont(font);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    const int margin = px;
    const QFont titleFont = pixelFont(px, 1.4, true);
    const QFont captionFont = pixelFont(px, 1.1);
    const QFontMetrics titleFm(titleFont);
    const QFontMetrics captionFm(captionFont);
    painter.setPen(kText);
    painter.setFont(titleFont);
    const QString title =
        tr("Scaling by √d_k at d_k = %1 over “%2”").arg(c.dK).arg(picturestyle::titleSentence(sentence_));
    painter.drawText(QRect(margin, margin, w - 2 * margin, titleFm.height()), Qt::AlignCenter,
                     titleFm.elidedText(title, Qt::ElideRight, w - 2 * margin));
    const QString caption =
        tr("mean largest weight %1 unscaled, %2 scaled · mean entropy %3 and %4 nats")
            .arg(shareText(c.meanMaxRaw, 3), shareText(c.meanMaxScaled, 3),
                 QString::number(c.meanEntropyRaw, 'f', 3), QString::number(c.meanEntropyScaled, 'f', 3));
    const int top = margin + titleFm.height() + px / 2;
    const int bottom = h - margin - captionFm.height() - px / 2;
    const int gap = px * 2;
    const int mapW = std::max(60, (w - 2 * margin - gap) / 2);
    const int mapH = std::max(60, bottom - top);
    for (int i = 0; i < 2; ++i) {
        painter.save();
        painter.translate(margin + i * (mapW + gap), top);
        painter.setClipRect(QRect(0, 0, mapW, mapH));
        maps_[std::size_t(i)]->paint(painter, QSize(mapW, mapH), picturestyle::viewStyle());
        painter.restore();
    }
    painter.setFont(captionFont);
    painter.setPen(kMuted);
    painter.drawText(QRect(margin, h - margin - captionFm.height(), w - 2 * margin, captionFm.height()),
                     Qt::AlignCenter, captionFm.elidedText(caption, Qt::ElideRight, w - 2 * margin));
    painter.restore();
}

}  // namespace attnlab
