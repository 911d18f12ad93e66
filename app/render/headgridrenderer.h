// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Draws the head grid with QPainter: every head's map as a small square
// tile captioned "head i" (and the head's mean largest weight when it fits),
// then the tile of the heads' average weights, laid out by HeadGridLayout,
// the selected head outlined, and one legend for the colours along the
// bottom. Each tile is a HeatmapRenderer's cell picture, sampled at its
// pixels (a 2048-token head costs what its tile's area costs) and cached
// until the result, the kind or the size changes. Serves the screen
// (HeadGridView) and exported pictures alike; the numbers are the engine's,
// the average its weightsAverage.

#include "headgridlayout.h"
#include "heatmaprenderer.h"
#include "heatmapstyle.h"
#include "multihead.h"
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

namespace attnlab {

// What the head tiles show (the average tile always shows weights).
enum class HeadMapKind { Weights, Scores, Scaled };

class HeadGridRenderer {
    Q_DECLARE_TR_FUNCTIONS(HeadGridView)
public:
    HeadGridRenderer();
    ~HeadGridRenderer();
    HeadGridRenderer(const HeadGridRenderer&) = delete;
    HeadGridRenderer& operator=(const HeadGridRenderer&) = delete;

    void setFont(const QFont& font);
    const QFont& font() const { return font_; }
    // Null: no tiles. tokenLabels name the rows and columns in tooltips.
    // `changedHeads`, when given, says that `result` holds the current
    // result's numbers but for those heads (Session::headsChangedSince):
    // the other heads' tiles keep their pictures, and only the changed
    // ones and the average are drawn again.
    void setResult(std::shared_ptr<const attn::MultiHeadResult> result, const QStringList& tokenLabels,
                   const std::vector<int>* changedHeads = nullptr);
    const std::shared_ptr<const attn::MultiHeadResult>& result() const { return result_; }
    const QStringList& tokenLabels() const { return tokens_; }
    void setKind(HeadMapKind kind);
    HeadMapKind kind() const { return kind_; }
    void setWeightsScaleMode(WeightsScaleMode mode);
    // -1 (or out of range): none outlined.
    void setSelectedHead(int head);
    int selectedHead() const { return selected_; }
    // The tile with the keyboard's cursor, drawn with a dashed outline (-1: none).
    void setCursorTile(int tile);
    int cursorTile() const { return cursor_; }

    int headCount() const;
    int tileCount() const;  // heads + the average, 0 without a result
    int averageTile() const { return headCount(); }
    int tokens() const;

    const HeadGridLayout& layout(const QSize& size) const;  // cached
    // The tile at `pos` and its cell (false outside every map).
    bool cellAt(const QSize& size, const QPoint& pos, int* tile, int* row, int* col) const;

    // "head 2", "average of 3 heads"; the caption drawn in a tile of `width`
    // ("head 2 · max 0.91", shortened to fit).
    QString tileName(int tile) const;
    QString tileCaption(int tile, int width) const;
    // The number tile `tile` shows at (row, col), and its colour.
    double value(int tile, int row, int col) const;
    QColor cellColor(int tile, int row, int col) const;
    // The map of one tile (its colours and cells), for the exports' full maps.
    const HeatmapRenderer& tileMap(int tile) const { return *maps_[std::size_t(tile)]; }
    // The same to draw whole, with a title and font of the picture's.
    HeatmapRenderer& tileMap(int tile) { return *maps_[std::size_t(tile)]; }
    // Whether the keys' labels fit above `tile`'s map (each whole, or two
    // letters and an ellipsis); the queries' are there whenever the layout
    // gave them room (HeadGridTile::rowLabels).
    bool columnLabelsFit(const HeadGridTile& tile) const;
    // The legend's text: what the colours mean.
    QString legendText() const;
    // What a tile's map is: "attention weights", "raw scores Q Kᵀ", ...
    static QString kindName(HeadMapKind kind);

    // Draws everything in (0, 0, size); `highlight` outlines the selected head.
    void paint(QPainter& painter, const QSize& size, const HeatmapStyle& style,
               const QColor& highlight) const;

private:
    // Every tile anew, or (`keep`) the maps of the heads marked true rebound
    // to result_ with their pictures.
    void rebuildMaps(const std::vector<bool>& keep = {});
    std::shared_ptr<const CellSource> headCells(int head) const;
    void paintLegend(QPainter& painter, const QRect& area, const HeatmapStyle& style) const;

    QFont font_;
    std::shared_ptr<const attn::MultiHeadResult> result_;
    QStringList tokens_;
    HeadMapKind kind_ = HeadMapKind::Weights;
    WeightsScaleMode weightsMode_ = WeightsScaleMode::Automatic;
    int selected_ = -1;
    int cursor_ = -1;
    // One per tile (the heads, then the average); the heads' maps sample
    // through one cache per head, shared by the three kinds.
    std::vector<std::unique_ptr<HeatmapRenderer>> maps_;
    std::vector<std::shared_ptr<ResultSampleCache>> caches_;
    double headRange_ = 0.0;  // the heads' shared range of the score kinds
    mutable HeadGridLayout layoutCache_;
    mutable bool layoutValid_ = false;
};

}  // namespace attnlab
