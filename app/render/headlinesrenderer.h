// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head view of one decoder model layer, after BertViz's (Vig 2019): the tokens
// in two columns, queries on the left and keys on the right, a line from
// each query to each key it attends to, its opacity the weight, one colour
// per head (a legend of the heads' colours; the caller's mask switches
// heads off). A hovered query shows only its own lines, a hovered key only
// the lines into it. The columns scale to the height (HeadLinesLayout);
// only lines of at least minWeight are drawn, the strongest maxLines of
// them, chosen once per change with a bounded heap, so 1024 tokens cost
// what the lines drawn cost and the caption says how many were left out.
// On screen the lines are kept as an image until they change.
// The tokens are the caller's display text ("␣cinema"). Serves the model
// view and exported pictures alike.

#include "headlineslayout.h"
#include "heatmapstyle.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QImage>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

class QPainter;

namespace attn {
struct DecoderResult;
}  // namespace attn

namespace attnlab {

class HeadLinesRenderer {
    Q_DECLARE_TR_FUNCTIONS(HeadLinesView)
public:
    struct Line {
        int head = 0;
        int query = 0;
        int key = 0;
        double weight = 0.0;
    };
    static constexpr double kDefaultMinWeight = 0.01;
    static constexpr int kDefaultMaxLines = 2000;

    HeadLinesRenderer();
    ~HeadLinesRenderer();

    void setFont(const QFont& font);
    const QFont& font() const { return font_; }
    // Null (or a result without kept maps): nothing to draw.
    void setResult(std::shared_ptr<const attn::DecoderResult> result, const QStringList& tokenLabels);
    const std::shared_ptr<const attn::DecoderResult>& result() const { return result_; }
    // 0-based; clamped to the result's layers.
    void setLayer(int layer);
    int layer() const { return layer_; }
    // shown[h]: head h's lines are drawn; heads beyond the mask (an empty
    // mask: every head) are shown.
    void setHeadMask(const std::vector<bool>& shown);
    bool headShown(int head) const;
    // The token under the pointer (-1: none); keySide: a key of the right column.
    void setHoveredToken(int token, bool keySide = false);
    int hoveredToken() const { return hovered_; }
    bool hoveredKeySide() const { return hoveredKey_; }
    void setMinWeight(double weight);
    double minWeight() const { return minWeight_; }
    void setMaxLines(int lines);
    int maxLines() const { return maxLines_; }

    int layerCount() const;
    int headCount() const;
    int tokens() const;

    // Head h's colour: Tableau 10's first ten, then hues a golden angle apart.
    static QColor headColor(int head);

    // The lines drawn, weakest first (the strongest on top); cached.
    const std::vector<Line>& lines() const;
    // Lines of at least minWeight before the maxLines cap.
    long long candidateLines() const;
    // "Layer 3 · 12 heads · line opacity = attention weight", and what was left out.
    QString captionText() const;
    QString legendLabel(int head) const;  // "H3"

    const HeadLinesLayout& layout(const QSize& size) const;  // cached
    // The token label at `pos` (-1 outside both columns).
    int tokenAt(const QSize& size, const QPoint& pos, bool* keySide) const;
    // The head whose legend entry is at `pos`, or -1 (to switch it on or off).
    int legendHeadAt(const QSize& size, const QPoint& pos) const;

    void paint(QPainter& painter, const QSize& size, const HeatmapStyle& style,
               const QColor& highlight) const;

private:
    void invalidateLines();
    void collectLines() const;
    void paintLabels(QPainter& painter, const HeadLinesLayout& l, const HeatmapStyle& style,
                     const QColor& highlight) const;
    void paintLegend(QPainter& painter, const HeadLinesLayout& l, const HeatmapStyle& style) const;
    void paintLines(QPainter& painter, const HeadLinesLayout& l) const;

    QFont font_;
    std::shared_ptr<const attn::DecoderResult> result_;
    QStringList tokens_;
    int layer_ = 0;
    std::vector<bool> shown_;
    int hovered_ = -1;
    bool hoveredKey_ = false;
    double minWeight_ = kDefaultMinWeight;
    int maxLines_ = kDefaultMaxLines;

    mutable std::vector<Line> lines_;
    mutable long long candidates_ = 0;
    mutable bool linesValid_ = false;
    mutable HeadLinesLayout layoutCache_;
    mutable bool layoutValid_ = false;
    mutable QImage linesImage_;  // the lines on screen (HeatmapStyle::screen)
    mutable bool linesImageValid_ = false;
};

}  // namespace attnlab
