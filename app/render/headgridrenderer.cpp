// SPDX-License-Identifier: GPL-3.0-or-later
#include "headgridrenderer.h"

#include "colorlegend.h"
#include "heatmaplabelpainter.h"
#include "presentation.h"
#include "sharetext.h"
#include "tiletokenlabels.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace attnlab {

namespace {

ResultMap resultMap(HeadMapKind kind)
{
    switch (kind) {
    case HeadMapKind::Scores: return ResultMap::Scores;
    case HeadMapKind::Scaled: return ResultMap::Scaled;
    case HeadMapKind::Weights: break;
    }
    return ResultMap::Weights;
}

}  // namespace

HeadGridRenderer::HeadGridRenderer() = default;
HeadGridRenderer::~HeadGridRenderer() = default;

void HeadGridRenderer::setFont(const QFont& font)
{
    font_ = font;
    for (const auto& map : maps_)
        map->setFont(font);
    layoutValid_ = false;
}

void HeadGridRenderer::setResult(std::shared_ptr<const attn::MultiHeadResult> result,
                                 const QStringList& tokenLabels, const std::vector<int>* changedHeads)
{
    std::vector<bool> keep;
    if (changedHeads && result && result_ && result->headCount() == headCount()
        && result->layout == result_->layout && tokenLabels == tokens_
        && (headCount() == 0 || result->heads.front().tokens() == tokens())) {
        keep.assign(std::size_t(headCount()), true);
        for (int head : *changedHeads)
            if (head >= 0 && head < headCount())
                keep[std::size_t(head)] = false;
    }
    result_ = std::move(result);
    tokens_ = tokenLabels;
    caches_.resize(std::size_t(headCount()));
    for (int i = 0; i < headCount(); ++i)
        if (keep.empty() || !keep[std::size_t(i)])
            caches_[std::size_t(i)] = std::make_shared<ResultSampleCache>();
    if (selected_ >= headCount())
        selected_ = -1;
    if (cursor_ >= tileCount())
        cursor_ = -1;
    rebuildMaps(keep);
}

void HeadGridRenderer::setKind(HeadMapKind kind)
{
    if (kind == kind_)
        return;
    kind_ = kind;
    rebuildMaps();
}

void HeadGridRenderer::setWeightsScaleMode(WeightsScaleMode mode)
{
    if (mode == weightsMode_)
        return;
    weightsMode_ = mode;
    rebuildMaps();
}

void HeadGridRenderer::setSelectedHead(int head)
{
    selected_ = head >= 0 && head < headCount() ? head : -1;
}

void HeadGridRenderer::setCursorTile(int tile)
{
    cursor_ = tile >= 0 && tile < tileCount() ? tile : -1;
}

int HeadGridRenderer::headCount() const
{
    return result_ ? result_->headCount() : 0;
}

int HeadGridRenderer::tileCount() const
{
    return headCount() > 0 ? headCount() + 1 : 0;
}

int HeadGridRenderer::tokens() const
{
    return headCount() > 0 ? result_->heads.front().tokens() : 0;
}

std::shared_ptr<const CellSource> HeadGridRenderer::headCells(int head) const
{
    // Aliasing: the head's result lives as long as the multi-head result.
    std::shared_ptr<const attn::AttentionResult> h(result_, &result_->heads[std::size_t(head)]);
    return resultCells(std::move(h), resultMap(kind_), caches_[std::size_t(head)]);
}

void HeadGridRenderer::rebuildMaps(const std::vector<bool>& keep)
{
    layoutValid_ = false;
    std::vector<std::unique_ptr<HeatmapRenderer>> kept = std::move(maps_);
    maps_.clear();
    if (!result_ || headCount() == 0)
        return;
    // The heads share one colour range, so that the tiles compare: the
    // largest of the heads' own ranges (as the pipeline's maps take theirs).
    // (The weights' scale is the same for every result of these tokens.)
    double range = 0.0;
    if (kind_ != HeadMapKind::Weights)
        for (const attn::AttentionResult& head : result_->heads)
            range = std::max(range, kind_ == HeadMapKind::Scaled ? scaledScoreRange(head) : scoreRange(head));
    const bool reuse = !keep.empty() && kept.size() == std::size_t(tileCount()) && range == headRange_;
    headRange_ = range;
    const WeightsScale weights = chooseWeightsScale(weightsMode_, tokens());
    for (int i = 0; i < headCount(); ++i) {
        if (reuse && keep[std::size_t(i)] && kept[std::size_t(i)]->setSameCells(headCells(i))) {
            maps_.push_back(std::move(kept[std::size_t(i)]));
            continue;
        }
        auto map = std::make_unique<HeatmapRenderer>();
        map->setFont(font_);
        map->setCells(headCells(i), tokens_, tokens_);
        if (kind_ == HeadMapKind::Weights) {
            setWeightsColors(*map, weights);
        } else {
            map->setColorMap(MapColors::Diverging);
            map->setRange(-range, range);
            map->setDecimals(decimalsForRange(range));
        }
        map->setTitle(tileName(i));
        maps_.push_back(std::move(map));
    }
    auto average = std::make_unique<HeatmapRenderer>();
    average->setFont(font_);
    average->setCells(
        sharedMatrixCells(std::shared_ptr<const attn::Matrix>(result_, &result_->weightsAverage)), tokens_,
        tokens_);
    setWeightsColors(*average, weights);
    average->setTitle(tileName(averageTile()));
    maps_.push_back(std::move(average));
}

const HeadGridLayout& HeadGridRenderer::layout(const QSize& size) const
{
    if (layoutValid_ && layoutCache_.size == size)
        return layoutCache_;
    // The token labels, where they fit (tokens_ as the tooltips name them).
    HeadGridLabels labels;
    if (tileCount() > 0 && tokens_.size() == tokens()) {
        const QFontMetrics fm(font_);
        labels.tokens = tokens();
        for (const QString& token : tokens_)
            labels.labelWidth = std::max(labels.labelWidth, fm.horizontalAdvance(token));
    }
    layoutCache_ = HeadGridLayout::compute(size, tileCount(), QFontMetrics(font_).height(), labels);
    layoutValid_ = true;
    return layoutCache_;
}

bool HeadGridRenderer::cellAt(const QSize& size, const QPoint& pos, int* tile, int* row, int* col) const
{
    const HeadGridLayout& l = layout(size);
    const int n = tokens();
    for (std::size_t i = 0; i < l.tiles.size(); ++i) {
        const QRect& map = l.tiles[i].map;
        if (!map.contains(pos) || n == 0)
            continue;
        *tile = int(i);
        *row = std::clamp(int((long long)(pos.y() - map.top()) * n / map.height()), 0, n - 1);
        *col = std::clamp(int((long long)(pos.x() - map.left()) * n / map.width()), 0, n - 1);
        return true;
    }
    return false;
}

QString HeadGridRenderer::tileName(int tile) const
{
    if (tile == averageTile())
        return tr("average of %n heads", nullptr, headCount());
    return tr("head %1").arg(tile + 1);
}

QString HeadGridRenderer::tileCaption(int tile, int width) const
{
    // Chosen in the regular font for every tile, so that the selected one
    // keeps the words its neighbours show (drawn bold where that fits).
    const QFontMetrics fm(font_);
    QStringList candidates;
    if (tile == averageTile()) {
        candidates << tileName(tile) << tr("average") << tr("avg") << QStringLiteral("μ");
    } else {
        const QString head = tileName(tile);
        if (std::size_t(tile) < result_->stats.size())
            candidates
                << tr("%1 · max %2").arg(head, shareText(result_->stats[std::size_t(tile)].meanMaxWeight, 2));
        candidates << head << QString::number(tile + 1);
    }
    for (const QString& text : candidates)
        if (fm.horizontalAdvance(text) <= width)
            return text;
    return HeatmapLabelPainter::elided(fm, candidates.back(), width);
}

double HeadGridRenderer::value(int tile, int row, int col) const
{
    return maps_[std::size_t(tile)]->cells().value(row, col);
}

QColor HeadGridRenderer::cellColor(int tile, int row, int col) const
{
    return maps_[std::size_t(tile)]->cellColor(row, col);
}

QString HeadGridRenderer::kindName(HeadMapKind kind)
{
    switch (kind) {
    case HeadMapKind::Scores: return tr("raw scores Q Kᵀ");
    case HeadMapKind::Scaled: return tr("scaled scores");
    case HeadMapKind::Weights: break;
    }
    return tr("attention weights");
}

QString HeadGridRenderer::legendText() const
{
    if (maps_.empty())
        return {};
    const HeatmapRenderer& head = *maps_.front();
    const HeatmapRenderer& average = *maps_.back();
    const auto ends = [](const HeatmapRenderer& map) {
        return HeatmapColorScale::endsText(map.colorScaleSpec().ticks(2));
    };
    if (kind_ == HeadMapKind::Weights)
        return tr("%1: %2").arg(kindName(kind_), ends(head));
    return tr("heads: %1 %2 · average: weights %3").arg(kindName(kind_), ends(head), ends(average));
}

void HeadGridRenderer::paintLegend(QPainter& painter, const QRect& area, const HeatmapStyle& style) const
{
    std::vector<ColorLegendEntry> entries;
    if (kind_ == HeadMapKind::Weights) {
        entries.push_back({kindName(kind_), &maps_.front()->colorScaleSpec()});
    } else {
        entries.push_back({tr("heads: %1").arg(kindName(kind_)), &maps_.front()->colorScaleSpec()});
        entries.push_back({tr("average: weights"), &maps_.back()->colorScaleSpec()});
    }
    paintColorLegend(painter, area, font_, style, entries);
}

bool HeadGridRenderer::columnLabelsFit(const HeadGridTile& tile) const
{
    return !tile.columnLabels.isEmpty() && tokens() > 0
           && tileColumnLabelsFit(QFontMetrics(font_), tokens_, tile.map.width());
}

void HeadGridRenderer::paint(QPainter& painter, const QSize& size, const HeatmapStyle& style,
                             const QColor& highlight) const
{
    painter.save();
    painter.setFont(font_);
    painter.fillRect(QRect(QPoint(0, 0), size), style.background);
    painter.setPen(style.text);
    if (tileCount() == 0) {
        painter.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, tr("No heads"));
        painter.restore();
        return;
    }
    const HeadGridLayout& l = layout(size);
    const QFont bold = HeatmapLabelPainter::boldFont(font_);
    for (int i = 0; i < int(l.tiles.size()); ++i) {
        const HeadGridTile& t = l.tiles[std::size_t(i)];
        if (t.map.isEmpty())
            continue;
        maps_[std::size_t(i)]->paintCellImage(painter, t.map);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(style.frame, 1));
        painter.drawRect(QRectF(t.map).adjusted(-0.5, -0.5, 0.5, 0.5));
        if (!t.caption.isEmpty()) {
            const QString caption = tileCaption(i, t.caption.width());
            const bool boldFits =
                i == selected_ && QFontMetrics(bold).horizontalAdvance(caption) <= t.caption.width();
            painter.setFont(boldFits ? bold : font_);
            painter.setPen(i == selected_ ? highlight : style.text);
            painter.drawText(t.caption, Qt::AlignHCenter | Qt::AlignVCenter, caption);
            painter.setFont(font_);
        }
    }
    if (tokens_.size() == tokens())
        for (const HeadGridTile& t : l.tiles)
            paintTileTokenLabels(painter, font_, style, t.map, t.rowLabels, t.columnLabels, tokens_);
    // The outlines last, so that no neighbouring tile covers them.
    if (selected_ >= 0 && !l.tiles[std::size_t(selected_)].map.isEmpty()) {
        // 2 px just outside the map.
        painter.setPen(QPen(highlight, 2, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
        painter.drawRect(QRectF(l.tiles[std::size_t(selected_)].map).adjusted(-1, -1, 1, 1));
    }
    if (cursor_ >= 0 && !l.tiles[std::size_t(cursor_)].frame.isEmpty()) {
        painter.setPen(QPen(style.text, 1, Qt::DashLine));
        painter.drawRect(QRectF(l.tiles[std::size_t(cursor_)].frame).adjusted(-2.5, -2.5, 2.5, 2.5));
    }
    if (!l.legend.isEmpty())
        paintLegend(painter, l.legend, style);
    painter.restore();
}

}  // namespace attnlab
