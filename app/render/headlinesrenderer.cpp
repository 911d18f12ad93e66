// SPDX-License-Identifier: GPL-3.0-or-later
#include "headlinesrenderer.h"

#include "displaylabel.h"
#include "gpt2.h"
#include "heatmaplabelpainter.h"
#include "spacemark.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

namespace attnlab {

namespace {

// The order lines are kept and drawn in: by weight, ties by position, so
// that the cap and the picture do not depend on the heap's history.
bool weaker(const HeadLinesRenderer::Line& a, const HeadLinesRenderer::Line& b)
{
    return std::tie(a.weight, b.head, b.query, b.key) < std::tie(b.weight, a.head, a.query, a.key);
}

}  // namespace

HeadLinesRenderer::HeadLinesRenderer() = default;
HeadLinesRenderer::~HeadLinesRenderer() = default;

void HeadLinesRenderer::setFont(const QFont& font)
{
    font_ = font;
    layoutValid_ = false;
    linesImageValid_ = false;  // the labels' width moves the lines' ends
}

void HeadLinesRenderer::setResult(std::shared_ptr<const attn::DecoderResult> result,
                                  const QStringList& tokenLabels)
{
    result_ = std::move(result);
    tokens_ = tokenLabels;
    layer_ = std::clamp(layer_, 0, std::max(0, layerCount() - 1));
    if (hovered_ >= tokens())
        hovered_ = -1;
    layoutValid_ = false;
    invalidateLines();
}

void HeadLinesRenderer::setLayer(int layer)
{
    layer = std::clamp(layer, 0, std::max(0, layerCount() - 1));
    if (layer == layer_)
        return;
    layer_ = layer;
    invalidateLines();
}

void HeadLinesRenderer::setHeadMask(const std::vector<bool>& shown)
{
    shown_ = shown;
    invalidateLines();
}

bool HeadLinesRenderer::headShown(int head) const
{
    return std::size_t(head) >= shown_.size() || shown_[std::size_t(head)];
}

void HeadLinesRenderer::setHoveredToken(int token, bool keySide)
{
    if (token < 0 || token >= tokens()) {
        token = -1;
        keySide = false;
    }
    if (token == hovered_ && keySide == hoveredKey_)
        return;
    hovered_ = token;
    hoveredKey_ = keySide;
    invalidateLines();
}

void HeadLinesRenderer::setMinWeight(double weight)
{
    minWeight_ = std::isfinite(weight) ? std::clamp(weight, 0.0, 1.0) : kDefaultMinWeight;
    invalidateLines();
}

void HeadLinesRenderer::setMaxLines(int lines)
{
    maxLines_ = std::max(1, lines);
    invalidateLines();
}

int HeadLinesRenderer::layerCount() const
{
    if (!result_ || result_->layers.empty() || result_->layers.front().heads.empty())
        return 0;
    return int(result_->layers.size());
}

int HeadLinesRenderer::headCount() const
{
    return layerCount() > 0 ? int(result_->layers[std::size_t(layer_)].heads.size()) : 0;
}

int HeadLinesRenderer::tokens() const
{
    return layerCount() > 0 ? result_->tokens() : 0;
}

QColor HeadLinesRenderer::headColor(int head)
{
    // Tableau 10 (Tableau's default categorical palette, also matplotlib's "tab10").
    static const QRgb kTableau[] = {0xff1f77b4, 0xffff7f0e, 0xff2ca02c, 0xffd62728, 0xff9467bd,
                                    0xff8c564b, 0xffe377c2, 0xff7f7f7f, 0xffbcbd22, 0xff17becf};
    if (head >= 0 && head < 10)
        return QColor::fromRgb(kTableau[head]);
    // Beyond ten, hues 137.5° apart never repeat and stay far from their neighbours.
    const double hue = std::fmod(0.07 + (head - 10) * 0.381966, 1.0);
    return QColor::fromHsvF(float(hue), 0.75f, 0.8f);
}

void HeadLinesRenderer::invalidateLines()
{
    linesValid_ = false;
    linesImageValid_ = false;
}

void HeadLinesRenderer::collectLines() const
{
    lines_.clear();
    candidates_ = 0;
    linesValid_ = true;
    const int n = tokens();
    if (n == 0)
        return;
    // The strongest maxLines_ candidates: a min-heap of at most that many,
    // so that memory stays bounded whatever the sentence.
    std::priority_queue<Line, std::vector<Line>, bool (*)(const Line&, const Line&)> heap(
        [](const Line& a, const Line& b) { return weaker(b, a); });
    const auto offer = [&](int head, int query, int key, double w) {
        if (!(w >= minWeight_) || w <= 0.0)
            return;
        ++candidates_;
        const Line line{head, query, key, w};
        if (int(heap.size()) < maxLines_) {
            heap.push(line);
        } else if (weaker(heap.top(), line)) {
            heap.pop();
            heap.push(line);
        }
    };
    std::vector<double> row(std::size_t(n), 0.0);
    const std::vector<attn::AttentionResult>& heads = result_->layers[std::size_t(layer_)].heads;
    for (int h = 0; h < int(heads.size()); ++h) {
        if (!headShown(h))
            continue;
        const attn::AttentionResult& r = heads[std::size_t(h)];
        if (hovered_ >= 0 && hoveredKey_) {
            for (int q = 0; q < n; ++q)
                if (!r.isMasked(q, hovered_))
                    offer(h, q, hovered_, r.weights(q, hovered_));
            continue;
        }
        for (int q = hovered_ >= 0 ? hovered_ : 0; q < (hovered_ >= 0 ? hovered_ + 1 : n); ++q) {
            r.weightsRow(q, row.data());
            const attn::VisibleKeys vis = r.visible(q);
            for (int c = 0; c < vis.count(); ++c)
                offer(h, q, vis.key(c), row[std::size_t(vis.key(c))]);
        }
    }
    lines_.reserve(heap.size());
    while (!heap.empty()) {
        lines_.push_back(heap.top());
        heap.pop();
    }
}

const std::vector<HeadLinesRenderer::Line>& HeadLinesRenderer::lines() const
{
    if (!linesValid_)
        collectLines();
    return lines_;
}

long long HeadLinesRenderer::candidateLines() const
{
    lines();
    return candidates_;
}

QString HeadLinesRenderer::legendLabel(int head) const
{
    return QStringLiteral("H%1").arg(head + 1);
}

QString HeadLinesRenderer::captionText() const
{
    if (tokens() == 0)
        return {};
    int shown = 0;
    for (int h = 0; h < headCount(); ++h)
        shown += headShown(h) ? 1 : 0;
    QString text = tr("Layer %1 of %2 · %3 of %4 heads · line opacity = attention weight")
                       .arg(layer_ + 1)
                       .arg(layerCount())
                       .arg(shown)
                       .arg(headCount());
    const auto drawn = static_cast<long long>(lines().size());
    if (candidates_ > drawn)
        text += tr(" · the %1 strongest of %2 lines ≥ %3").arg(drawn).arg(candidates_).arg(minWeight_);
    else if (minWeight_ > 0.0)
        text += tr(" · weights ≥ %1").arg(minWeight_);
    return text;
}

const HeadLinesLayout& HeadLinesRenderer::layout(const QSize& size) const
{
    if (layoutValid_ && layoutCache_.size == size && layoutCache_.tokens == tokens()
        && layoutCache_.legend.size() == std::size_t(headCount()))
        return layoutCache_;
    const QFontMetrics fm(font_);
    const QFontMetrics bold(HeatmapLabelPainter::boldFont(font_));
    int widest = 0;
    for (int i = 0; i < tokens(); ++i)
        widest = std::max(widest, bold.horizontalAdvance(displayLabel(tokens_.value(i))));
    std::vector<int> legend;
    for (int h = 0; h < headCount(); ++h)
        legend.push_back(fm.height() + fm.horizontalAdvance(QLatin1Char(' ') + legendLabel(h)));
    layoutCache_ = HeadLinesLayout::compute(size, tokens(), fm.height(), widest + 4, legend);
    layoutValid_ = true;
    return layoutCache_;
}

int HeadLinesRenderer::tokenAt(const QSize& size, const QPoint& pos, bool* keySide) const
{
    return layout(size).tokenAt(pos, keySide);
}

int HeadLinesRenderer::legendHeadAt(const QSize& size, const QPoint& pos) const
{
    return layout(size).legendAt(pos);
}

void HeadLinesRenderer::paintLegend(QPainter& painter, const HeadLinesLayout& l,
                                    const HeatmapStyle& style) const
{
    const QFontMetrics fm(font_);
    for (int h = 0; h < int(l.legend.size()); ++h) {
        const QRect& r = l.legend[std::size_t(h)];
        const int s = std::max(4, fm.height() * 7 / 10);
        const QRect swatch(r.left(), r.top() + (r.height() - s) / 2, s, s);
        const bool on = headShown(h);
        // A head switched off: an empty swatch and its name in the frame colour.
        painter.setPen(QPen(headColor(h), 1));
        painter.setBrush(on ? QBrush(headColor(h)) : QBrush(Qt::NoBrush));
        painter.drawRect(QRectF(swatch).adjusted(0.5, 0.5, -0.5, -0.5));
        painter.setPen(on ? style.text : style.frame);
        painter.drawText(QRect(swatch.right() + 1, r.top(), r.right() - swatch.right(), r.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, QLatin1Char(' ') + legendLabel(h));
    }
    painter.setBrush(Qt::NoBrush);
}

void HeadLinesRenderer::paintLabels(QPainter& painter, const HeadLinesLayout& l, const HeatmapStyle& style,
                                    const QColor& highlight) const
{
    const QFont bold = HeatmapLabelPainter::boldFont(font_);
    const QFontMetrics fm(font_);
    const int line = fm.height();
    const auto draw = [&](int i, bool keySide) {
        const QRect& column = keySide ? l.keys : l.queries;
        const int y = int(std::lround(l.rowCentre(i) - line / 2.0));
        const QRect box(column.left(), y, column.width(), line);
        const bool on = i == hovered_ && keySide == hoveredKey_;
        if (on)
            painter.fillRect(box, style.background);
        painter.setFont(on ? bold : font_);
        painter.setPen(on ? highlight : style.text);
        const QFontMetrics m(painter.font());
        drawTokenText(painter, box, (keySide ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter,
                      HeatmapLabelPainter::elidedLabel(m, tokens_.value(i), box.width()));
    };
    for (const bool keySide : {false, true}) {
        for (int i = 0; i < l.tokens; i += l.labelStep)
            if (i != hovered_ || keySide != hoveredKey_)
                draw(i, keySide);
        if (hovered_ >= 0 && keySide == hoveredKey_)
            draw(hovered_, keySide);
    }
    painter.setFont(font_);
}

void HeadLinesRenderer::paintLines(QPainter& painter, const HeadLinesLayout& l) const
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const double width = std::clamp(l.rowHeight / 8.0, 1.0, 2.5);
    const double x0 = l.queryAnchor();
    const double x1 = l.keyAnchor();
    for (const Line& line : lines()) {
        QColor c = headColor(line.head);
        c.setAlphaF(float(std::clamp(line.weight, 0.0, 1.0)));
        painter.setPen(QPen(c, width, Qt::SolidLine, Qt::FlatCap));
        painter.drawLine(QPointF(x0, l.rowCentre(line.query)), QPointF(x1, l.rowCentre(line.key)));
    }
    painter.restore();
}

void HeadLinesRenderer::paint(QPainter& painter, const QSize& size, const HeatmapStyle& style,
                              const QColor& highlight) const
{
    painter.save();
    painter.setFont(font_);
    painter.fillRect(QRect(QPoint(0, 0), size), style.background);
    painter.setPen(style.text);
    if (tokens() == 0) {
        painter.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, tr("No model"));
        painter.restore();
        return;
    }
    const HeadLinesLayout& l = layout(size);
    const QFontMetrics fm(font_);
    painter.drawText(l.caption, Qt::AlignLeft | Qt::AlignVCenter,
                     HeatmapLabelPainter::elided(fm, captionText(), l.caption.width()));
    paintLegend(painter, l, style);
    if (style.screen) {
        // On screen the lines are drawn once into an image kept until they,
        // the size or the pixel ratio change: a repaint (the pointer leaving
        // a token, a window over the view) costs a blit, not thousands of
        // blended lines. Exports draw them as vectors.
        const qreal dpr = painter.device() ? painter.device()->devicePixelRatio() : 1.0;
        if (!linesImageValid_ || linesImage_.size() != size * dpr || linesImage_.devicePixelRatio() != dpr) {
            linesImage_ = QImage(size * dpr, QImage::Format_ARGB32_Premultiplied);
            linesImage_.setDevicePixelRatio(dpr);
            linesImage_.fill(Qt::transparent);
            QPainter image(&linesImage_);
            paintLines(image, l);
            linesImageValid_ = true;
        }
        painter.drawImage(QPointF(0, 0), linesImage_);
    } else {
        paintLines(painter, l);
    }
    paintLabels(painter, l, style, highlight);
    painter.restore();
}

}  // namespace attnlab
