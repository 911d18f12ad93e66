// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelgridrenderer.h"

#include "colorlegend.h"
#include "gpt2.h"
#include "heatmaplabelpainter.h"
#include "spacemark.h"
#include "tiletokenlabels.h"
#include "twohalves.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnlab {

ModelGridRenderer::ModelGridRenderer() = default;
ModelGridRenderer::~ModelGridRenderer() = default;

void ModelGridRenderer::setFont(const QFont& font)
{
    font_ = font;
    for (const auto& m : maps_)
        m->setFont(font);
    layoutValid_ = false;
}

void ModelGridRenderer::setResult(std::shared_ptr<const attn::DecoderResult> result,
                                  const QStringList& tokenLabels)
{
    result_ = std::move(result);
    tokens_ = tokenLabels;
    if (selectedLayer_ >= layerCount() || selectedHead_ >= headCount())
        setSelectedTile(-1, -1);
    if (hoveredLayer_ >= layerCount() || hoveredHead_ >= headCount())
        setHoveredTile(-1, -1);
    if (ranking_.rows() != layerCount() || ranking_.cols() != headCount())
        clearRanking();
    rebuildMaps();
}

void ModelGridRenderer::setWeightsScaleMode(WeightsScaleMode mode)
{
    if (mode == weightsMode_)
        return;
    weightsMode_ = mode;
    rebuildMaps();
}

void ModelGridRenderer::setSelectedTile(int layer, int head)
{
    const bool inside = layer >= 0 && layer < layerCount() && head >= 0 && head < headCount();
    selectedLayer_ = inside ? layer : -1;
    selectedHead_ = inside ? head : -1;
}

void ModelGridRenderer::setHoveredTile(int layer, int head)
{
    const bool inside = layer >= 0 && layer < layerCount() && head >= 0 && head < headCount();
    hoveredLayer_ = inside ? layer : -1;
    hoveredHead_ = inside ? head : -1;
}

void ModelGridRenderer::setRanking(const attn::Matrix& values, const QString& caption, int marked,
                                   bool colored)
{
    if (values.rows() == 0 || values.rows() != layerCount() || values.cols() != headCount()) {
        clearRanking();
        return;
    }
    ranking_ = values;
    rankingCaption_ = caption;
    marked_ = std::max(0, marked);
    rankingColored_ = colored;
}

void ModelGridRenderer::clearRanking()
{
    ranking_ = attn::Matrix();
    rankingCaption_.clear();
    marked_ = 0;
    rankingColored_ = false;
}

std::vector<int> ModelGridRenderer::markedTiles() const
{
    std::vector<int> order;
    if (!hasRanking())
        return order;
    const int heads = int(ranking_.cols());
    for (int i = 0; i < int(ranking_.size()); ++i)
        if (!std::isnan(ranking_(i / heads, i % heads)))
            order.push_back(i);
    const auto at = [&](int i) { return ranking_(i / heads, i % heads); };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return at(a) > at(b); });
    order.resize(std::min(order.size(), std::size_t(marked_)));
    return order;
}

int ModelGridRenderer::layerCount() const
{
    // setResult asks before it rebuilds the maps: the old maps with no result.
    return maps_.empty() || !result_ ? 0 : int(result_->layers.size());
}

int ModelGridRenderer::headCount() const
{
    return maps_.empty() || !result_ || result_->layers.empty() ? 0
                                                                : int(result_->layers.front().heads.size());
}

int ModelGridRenderer::tokens() const
{
    return result_ ? result_->tokens() : 0;
}

void ModelGridRenderer::rebuildMaps()
{
    layoutValid_ = false;
    maps_.clear();
    if (!result_ || result_->layers.empty() || result_->layers.front().heads.empty())
        return;
    const std::size_t heads = result_->layers.front().heads.size();
    for (const attn::DecoderLayer& layer : result_->layers)
        if (layer.heads.size() != heads)
            return;  // without kept maps: nothing to draw
    const WeightsScale weights = chooseWeightsScale(weightsMode_, result_->tokens());
    for (const attn::DecoderLayer& layer : result_->layers)
        for (const attn::AttentionResult& head : layer.heads) {
            auto m = std::make_unique<HeatmapRenderer>();
            m->setFont(font_);
            // Aliasing: the head lives as long as the model's result.
            m->setCells(resultCells(std::shared_ptr<const attn::AttentionResult>(result_, &head),
                                    ResultMap::Weights, std::make_shared<ResultSampleCache>()),
                        tokens_, tokens_);
            setWeightsColors(*m, weights);
            maps_.push_back(std::move(m));
        }
}

const ModelGridLayout& ModelGridRenderer::layout(const QSize& size) const
{
    if (layoutValid_ && layoutCache_.size == size)
        return layoutCache_;
    const QFontMetrics fm(font_);
    // The token labels, where they fit (tokens_ as the tooltips name them).
    int tokenLabelWidth = 0;
    if (tokens_.size() == tokens())
        for (const QString& token : tokens_)
            tokenLabelWidth = std::max(tokenLabelWidth, fm.horizontalAdvance(token));
    layoutCache_ = ModelGridLayout::compute(size, layerCount(), headCount(), fm.height(),
                                            fm.horizontalAdvance(QStringLiteral("L%1").arg(layerCount())),
                                            tokens(), tokenLabelWidth, kvHeads_);
    layoutValid_ = true;
    return layoutCache_;
}

void ModelGridRenderer::setKeyValueHeads(int kvHeads)
{
    if (kvHeads == kvHeads_)
        return;
    kvHeads_ = kvHeads;
    layoutValid_ = false;
}

bool ModelGridRenderer::tileAt(const QSize& size, const QPoint& pos, int* layer, int* head) const
{
    return layout(size).tileAt(pos, layer, head);
}

QRect ModelGridRenderer::tileRect(const QSize& size, int layer, int head) const
{
    if (layer < 0 || layer >= layerCount() || head < 0 || head >= headCount())
        return {};
    return layout(size).tile(layer, head);
}

bool ModelGridRenderer::cellAt(const QSize& size, const QPoint& pos, int* layer, int* head, int* row,
                               int* col) const
{
    int l = 0;
    int h = 0;
    const int n = tokens();
    if (n == 0 || !tileAt(size, pos, &l, &h))
        return false;
    const QRect t = layout(size).tile(l, h);
    *layer = l;
    *head = h;
    *row = std::clamp(int((long long)(pos.y() - t.top()) * n / t.height()), 0, n - 1);
    *col = std::clamp(int((long long)(pos.x() - t.left()) * n / t.width()), 0, n - 1);
    return true;
}

QString ModelGridRenderer::tileName(int layer, int head)
{
    return tr("layer %1 · head %2").arg(layer + 1).arg(head + 1);
}

QString ModelGridRenderer::cellText(int layer, int head, int row, int col) const
{
    const attn::AttentionResult& r = result_->layers[std::size_t(layer)].heads[std::size_t(head)];
    const QString weight =
        r.isMasked(row, col) ? tr("masked") : map(layer, head).formatValue(value(layer, head, row, col));
    return tr("%1: “%2” → “%3” %4")
        .arg(tileName(layer, head), tokens_.value(row, QString::number(row + 1)),
             tokens_.value(col, QString::number(col + 1)), weight);
}

double ModelGridRenderer::value(int layer, int head, int row, int col) const
{
    return map(layer, head).cells().value(row, col);
}

QColor ModelGridRenderer::cellColor(int layer, int head, int row, int col) const
{
    return map(layer, head).cellColor(row, col);
}

QString ModelGridRenderer::legendText() const
{
    if (maps_.empty())
        return {};
    QString text = tr("attention weights: %1")
                       .arg(HeatmapColorScale::endsText(maps_.front()->colorScaleSpec().ticks(2)));
    if (hasRanking())
        text += tr(" · numbers: %1").arg(rankingCaption_);
    return text;
}

void ModelGridRenderer::paintLegend(QPainter& painter, const QRect& area, const HeatmapStyle& style) const
{
    QRect bar = area;
    if (hasRanking() && !rankingCaption_.isEmpty()) {
        // The colours on the left half, what the numbers are on the right.
        bar.setWidth(area.width() / 2);
        const QFontMetrics fm(font_);
        const QRect text(bar.right() + 1, area.top(), area.width() - bar.width(), area.height());
        painter.save();
        painter.setFont(font_);
        painter.setPen(style.text);
        // The caption may name tokens ("weight from “␣the” to “␣cat”").
        drawTokenText(painter, text, Qt::AlignRight | Qt::AlignVCenter,
                      HeatmapLabelPainter::elided(fm, tr("numbers: %1").arg(rankingCaption_), text.width()));
        painter.restore();
    }
    paintColorLegend(painter, bar, font_, style,
                     {{tr("attention weights"), &maps_.front()->colorScaleSpec()}});
}

void ModelGridRenderer::paintRanking(QPainter& painter, const ModelGridLayout& l,
                                     const HeatmapStyle& style) const
{
    const QFontMetrics fm(font_);
    const QFont bold = HeatmapLabelPainter::boldFont(font_);
    const QFontMetrics boldFm(bold);
    const std::vector<int> marked = markedTiles();
    for (int layer = 0; layer < layerCount(); ++layer)
        for (int head = 0; head < headCount(); ++head) {
            const double v = ranking_(layer, head);
            if (std::isnan(v))
                continue;
            const bool isMarked =
                std::find(marked.begin(), marked.end(), layer * headCount() + head) != marked.end();
            const QString text = QString::number(v, 'f', 2);
            const QFontMetrics& m = isMarked ? boldFm : fm;
            const QRect& t = l.tile(layer, head);
            const int w = m.horizontalAdvance(text) + 4;
            const int h = m.height();
            if (w > t.width() || h > t.height())
                continue;  // the tile is too small for its number; the tooltip has it
            // A box at the bottom of the tile, so that the map stays visible above it.
            const QRect box(t.left() + (t.width() - w) / 2, t.bottom() + 1 - h, w, h);
            if (rankingColored_) {
                // The value's colour on the weights' scale, the largest outlined.
                const QColor fill = maps_.front()->colorFor(v);
                painter.fillRect(box, fill);
                painter.setFont(isMarked ? bold : font_);
                painter.setPen(qGray(fill.rgb()) < 128 ? Qt::white : Qt::black);
                painter.drawText(box, Qt::AlignCenter, text);
                if (isMarked) {
                    painter.setBrush(Qt::NoBrush);
                    painter.setPen(QPen(style.text, 1));
                    painter.drawRect(QRectF(box).adjusted(0.5, 0.5, -0.5, -0.5));
                }
                continue;
            }
            // The largest in the text colour, apart from the selection's highlight.
            const QColor fill = isMarked ? style.text : style.background;
            painter.fillRect(box, fill);
            painter.setFont(isMarked ? bold : font_);
            painter.setPen(isMarked ? style.background : style.text);
            painter.drawText(box, Qt::AlignCenter, text);
        }
    painter.setFont(font_);
}

void ModelGridRenderer::paint(QPainter& painter, const QSize& size, const HeatmapStyle& style,
                              const QColor& highlight) const
{
    painter.save();
    painter.setFont(font_);
    painter.fillRect(QRect(QPoint(0, 0), size), style.background);
    painter.setPen(style.text);
    if (maps_.empty()) {
        painter.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, tr("No model"));
        painter.restore();
        return;
    }
    const ModelGridLayout& l = layout(size);
    const QFontMetrics fm(font_);
    const QFont bold = HeatmapLabelPainter::boldFont(font_);
    for (int layer = 0; layer < l.layers; ++layer) {
        const QRect& r = l.layerLabels[std::size_t(layer)];
        const bool on = layer == selectedLayer_;
        painter.setFont(on ? bold : font_);
        painter.setPen(on ? highlight : style.text);
        painter.drawText(r, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(layer + 1));
    }
    for (int head = 0; head < l.heads; ++head) {
        const QRect& r = l.headLabels[std::size_t(head)];
        const bool on = head == selectedHead_;
        painter.setFont(on ? bold : font_);
        painter.setPen(on ? highlight : style.text);
        // "H12" or, in narrow columns, "12".
        QString label = QStringLiteral("H%1").arg(head + 1);
        if (QFontMetrics(painter.font()).horizontalAdvance(label) > r.width())
            label = QString::number(head + 1);
        painter.drawText(r, Qt::AlignHCenter | Qt::AlignBottom, label);
    }
    // The key/value heads' groups: a label over a bracket spanning the
    // query heads that share it.
    painter.setFont(font_);
    painter.setPen(style.text);
    for (std::size_t kv = 0; kv < l.groupLabels.size(); ++kv) {
        const QRect& r = l.groupLabels[kv];
        QString label = tr("K/V %1").arg(kv + 1);
        if (fm.horizontalAdvance(label) > r.width())
            label = QString::number(kv + 1);
        const int textWidth = std::min(r.width(), fm.horizontalAdvance(label) + fm.averageCharWidth());
        painter.drawText(r, Qt::AlignHCenter | Qt::AlignVCenter, label);
        const double y = r.center().y() + 0.5;
        const double left = r.left() + 1.5, right = r.right() - 0.5;
        const double textLeft = r.center().x() - textWidth / 2.0,
                     textRight = r.center().x() + textWidth / 2.0;
        const double tick = fm.height() / 3.0;
        if (textLeft - left > 4) {
            painter.drawLine(QPointF(left, y), QPointF(textLeft, y));
            painter.drawLine(QPointF(left, y), QPointF(left, y + tick));
        }
        if (right - textRight > 4) {
            painter.drawLine(QPointF(textRight, y), QPointF(right, y));
            painter.drawLine(QPointF(right, y), QPointF(right, y + tick));
        }
    }
    if (l.side > 0) {
        // The tiles' images first, on two threads: sampling and colouring
        // them was most of the grid's paint (336 tiles for Qwen2.5-0.5B).
        const qreal dpr = painter.device() ? painter.device()->devicePixelRatio() : 1.0;
        const std::size_t tiles = std::size_t(l.layers) * std::size_t(l.heads);
        const std::size_t pixels =
            std::size_t(std::ceil(l.side * dpr)) * std::size_t(std::ceil(l.side * dpr));
        inTwoHalves(tiles, std::min<std::size_t>(pixels, std::size_t(tokens()) * std::size_t(tokens())),
                    [&](std::size_t first, std::size_t last) {
                        for (std::size_t i = first; i < last; ++i) {
                            const int layer = int(i) / l.heads, head = int(i) % l.heads;
                            map(layer, head).prepareCellImage(l.tile(layer, head), dpr);
                        }
                    });
        for (int layer = 0; layer < l.layers; ++layer)
            for (int head = 0; head < l.heads; ++head) {
                const QRect& t = l.tile(layer, head);
                map(layer, head).paintCellImage(painter, t);
                painter.setBrush(Qt::NoBrush);
                painter.setPen(QPen(style.frame, 1));
                painter.drawRect(QRectF(t).adjusted(-0.5, -0.5, 0.5, 0.5));
            }
        if (l.tokenLabels())
            for (std::size_t i = 0; i < l.tiles.size(); ++i)
                paintTileTokenLabels(painter, font_, style, l.tiles[i], l.rowLabels[i], l.columnLabels[i],
                                     tokens_);
        painter.setFont(font_);
        if (hasRanking())
            paintRanking(painter, l, style);
        // Ablated heads crossed out, in the message red.
        painter.setPen(QPen(QColor(0xb3, 0x26, 0x1e), 2));
        for (int tile : crossed_) {
            if (tile < 0 || tile >= l.layers * l.heads)
                continue;
            const QRectF t = QRectF(l.tile(tile / l.heads, tile % l.heads)).adjusted(2, 2, -2, -2);
            painter.drawLine(t.topLeft(), t.bottomRight());
            painter.drawLine(t.topRight(), t.bottomLeft());
        }
        // The outlines last, so that no neighbouring tile covers them.
        painter.setBrush(Qt::NoBrush);
        if (hoveredLayer_ >= 0) {
            painter.setPen(QPen(style.text, 1));
            painter.drawRect(QRectF(l.tile(hoveredLayer_, hoveredHead_)).adjusted(-1.5, -1.5, 1.5, 1.5));
        }
        if (selectedLayer_ >= 0) {
            // 2 px just outside the map.
            painter.setPen(QPen(highlight, 2, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
            painter.drawRect(QRectF(l.tile(selectedLayer_, selectedHead_)).adjusted(-1, -1, 1, 1));
        }
    }
    if (!l.legend.isEmpty())
        paintLegend(painter, l.legend, style);
    painter.restore();
}

}  // namespace attnlab
