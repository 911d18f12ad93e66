// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Draws a decoder model result's layers x heads grid with QPainter: one small map
// of every head's attention weights (rows "L1".., columns "H1.."), laid out
// by ModelGridLayout, the selected tile outlined in the highlight colour,
// the hovered one in the text colour, and the colour legend along the
// bottom. Each tile is a HeatmapRenderer's cell picture (as the head
// grid's tiles are), sampled at the tile's pixels, so 144 heads at 1024
// tokens cost what the tiles' area costs. An optional ranking overlay
// prints one number per tile, a layers x heads table the caller computed
// (the lesson's weight from the last token to "cinema"), the largest
// few on the text colour. Serves the model view and exported pictures alike.

#include "heatmaprenderer.h"
#include "heatmapstyle.h"
#include "matrix.h"
#include "modelgridlayout.h"
#include "resultcells.h"
#include "weightsscale.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

class QPainter;

namespace attn {
struct DecoderResult;
}  // namespace attn

namespace attnlab {

class ModelGridRenderer {
    Q_DECLARE_TR_FUNCTIONS(ModelGridView)
public:
    ModelGridRenderer();
    ~ModelGridRenderer();
    ModelGridRenderer(const ModelGridRenderer&) = delete;
    ModelGridRenderer& operator=(const ModelGridRenderer&) = delete;

    void setFont(const QFont& font);
    const QFont& font() const { return font_; }
    // Null (or a result without kept maps): no tiles. tokenLabels name the
    // rows and columns (cellText).
    void setResult(std::shared_ptr<const attn::DecoderResult> result, const QStringList& tokenLabels);
    const std::shared_ptr<const attn::DecoderResult>& result() const { return result_; }
    const QStringList& tokenLabels() const { return tokens_; }
    void setWeightsScaleMode(WeightsScaleMode mode);

    // (-1, -1) or out of range: none.
    void setSelectedTile(int layer, int head);
    int selectedLayer() const { return selectedLayer_; }
    int selectedHead() const { return selectedHead_; }
    void setHoveredTile(int layer, int head);
    int hoveredLayer() const { return hoveredLayer_; }
    int hoveredHead() const { return hoveredHead_; }

    // One number per tile, a (layers, heads) table, printed in the tiles
    // with two decimals, the `marked` largest outlined; caption says what
    // the numbers are ("weight from “new” to “cinema”"). An empty table (or
    // one of another shape) clears it; NaN entries print nothing.
    // `colored`: each number's box is filled with its colour on the weights'
    // scale (the head lab's scores are shares of attention, as weights are).
    void setRanking(const attn::Matrix& values, const QString& caption, int marked = 3, bool colored = false);
    void clearRanking();
    bool hasRanking() const { return ranking_.size() > 0; }
    const attn::Matrix& ranking() const { return ranking_; }
    const QString& rankingCaption() const { return rankingCaption_; }
    // The `marked` tiles with the largest numbers, largest first, as
    // layer * heads + head (ties: the smaller index).
    std::vector<int> markedTiles() const;

    // The heads drawn crossed out (the ablated ones), as layer * heads + head.
    void setCrossedTiles(std::vector<int> tiles) { crossed_ = std::move(tiles); }
    const std::vector<int>& crossedTiles() const { return crossed_; }

    int layerCount() const;
    int headCount() const;
    int tokens() const;

    const ModelGridLayout& layout(const QSize& size) const;  // cached
    // The tile at `pos` (false in the gaps and outside the grid).
    bool tileAt(const QSize& size, const QPoint& pos, int* layer, int* head) const;
    QRect tileRect(const QSize& size, int layer, int head) const;
    // The tile at `pos` and the cell under it (false outside every map).
    bool cellAt(const QSize& size, const QPoint& pos, int* layer, int* head, int* row, int* col) const;

    // "layer 3 · head 5"
    static QString tileName(int layer, int head);
    // "layer 3 · head 5: “new” → “cinema” 0.31"
    QString cellText(int layer, int head, int row, int col) const;
    // The weight tile (layer, head) shows at (row, col), and its colour.
    double value(int layer, int head, int row, int col) const;
    QColor cellColor(int layer, int head, int row, int col) const;
    QString legendText() const;

    // Draws everything in (0, 0, size).
    void paint(QPainter& painter, const QSize& size, const HeatmapStyle& style,
               const QColor& highlight) const;

private:
    void rebuildMaps();
    const HeatmapRenderer& map(int layer, int head) const
    {
        return *maps_[std::size_t(layer) * headCount() + head];
    }
    void paintRanking(QPainter& painter, const ModelGridLayout& l, const HeatmapStyle& style) const;
    void paintLegend(QPainter& painter, const QRect& area, const HeatmapStyle& style) const;

    QFont font_;
    std::shared_ptr<const attn::DecoderResult> result_;
    QStringList tokens_;
    WeightsScaleMode weightsMode_ = WeightsScaleMode::Automatic;
    int selectedLayer_ = -1;
    int selectedHead_ = -1;
    int hoveredLayer_ = -1;
    int hoveredHead_ = -1;
    attn::Matrix ranking_;
    QString rankingCaption_;
    int marked_ = 0;
    bool rankingColored_ = false;
    std::vector<int> crossed_;
    std::vector<std::unique_ptr<HeatmapRenderer>> maps_;  // layer-major
    mutable ModelGridLayout layoutCache_;
    mutable bool layoutValid_ = false;
};

}  // namespace attnlab
