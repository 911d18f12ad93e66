// SPDX-License-Identifier: GPL-3.0-or-later
#include "rotaryrenderer.h"

#include "colormap.h"
#include "keyvaluesharing.h"
#include "modelgridrenderer.h"
#include "spacemark.h"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainter>
#include <QtMath>

#include <algorithm>
#include <cmath>
#include <utility>

namespace attnlab {

namespace {

constexpr double kMargin = 4.0;
constexpr double kGap = 10.0;
constexpr double kTwoPi = 6.283185307179586;

// An angle reduced to [0, 2 pi).
double turned(double angle)
{
    const double a = std::fmod(angle, kTwoPi);
    return a < 0 ? a + kTwoPi : a;
}

QColor angleColor(double angle)
{
    return QColor::fromHsvF(float(turned(angle) / kTwoPi), 0.55f, 0.95f);
}

}  // namespace

QString RotaryRenderer::headTitle(const attn::DecoderConfig& config, const attn::RotaryHead& head)
{
    const QString sharing = keyValueSharingText(config, head.head);
    QString title = tr("%1: RoPE turns each pair of dimensions (i, i + %2) of q and k by the angle p·θ_i at "
                       "position p")
                        .arg(ModelGridRenderer::tileName(head.layer, head.head))
                        .arg(head.frequencies.size());
    if (!sharing.isEmpty())
        title = tr("%1 (%2)").arg(title, sharing);
    return title;
}

void RotaryRenderer::setHead(attn::RotaryHead head, QStringList labels, QString title, QString frequencyText)
{
    scale_ = 0.0;
    const Eigen::Index n = head.scoresAfter.rows();
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j)
            if (!head.mask.hides(int(i), int(j)))
                scale_ =
                    std::max({scale_, std::abs(head.scoresBefore(i, j)), std::abs(head.scoresAfter(i, j))});
    head_ = std::move(head);
    labels_ = std::move(labels);
    title_ = std::move(title);
    frequencies_ = std::move(frequencyText);
    message_.clear();
}

void RotaryRenderer::clear(const QString& message)
{
    head_.reset();
    labels_.clear();
    message_ = message;
    scale_ = 0.0;
}

RotaryRenderer::Layout RotaryRenderer::layout(const QSize& size) const
{
    Layout l;
    const QFontMetricsF fm(font_);
    const double line = fm.lineSpacing();
    const double w = size.width() - 2 * kMargin;
    double y = kMargin;
    l.title = QRectF(kMargin, y, w, line);
    y += line + 2;
    // Bottom up: the frequencies (two lines), the legend, the note; where
    // the height is short (the head lab's page at 1024 x 700) the maps keep
    // it and the frequencies get one line, the note none (the tooltips and
    // the larger window have them).
    const bool compact = size.height() < 16 * line;
    double bottom = size.height() - kMargin;
    const double frequencyLines = compact ? 1 : 2;
    l.frequencies = QRectF(kMargin, bottom - frequencyLines * line, w, frequencyLines * line);
    bottom -= frequencyLines * line + 2;
    l.legend = QRectF(kMargin, bottom - line, w, line);
    bottom -= line + 2;
    if (!compact) {
        l.note = QRectF(kMargin, bottom - line, w, line);
        bottom -= line + 4;
    }
    if (!head_)
        return l;
    const int n = int(head_->scoresAfter.rows());
    const int pairs = int(head_->frequencies.size());
    const double gridTop = y + line + 2;
    const double gridHeight = std::max(0.0, bottom - gridTop);
    // Token labels where a row is a line of text high.
    double labelWidth = 0;
    for (const QString& label : labels_)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(label.left(10)) + 4);
    const auto rowFor = [&](double labels) {
        const double panel = (w - labels - 2 * kGap) / kPanels;
        return std::max(0.0, std::min(panel / n, gridHeight / n));
    };
    double row = rowFor(labelWidth);
    if (row < fm.height() * 0.8) {
        labelWidth = 0;
        row = rowFor(0);
    }
    row = row >= 3 ? std::floor(row) : row;
    const double panel = (w - labelWidth - 2 * kGap) / kPanels;
    l.rowHeight = row;
    l.scoreWidth = row;
    l.angleWidth = std::min(panel / std::max(pairs, 1), 3 * std::max(row, 1.0));
    l.angleWidth = l.angleWidth >= 3 ? std::floor(l.angleWidth) : l.angleWidth;
    l.rowLabels = labelWidth > 0 ? QRectF(kMargin, gridTop, labelWidth, n * row) : QRectF();
    double x = kMargin + labelWidth;
    for (int p = 0; p < kPanels; ++p) {
        const double cellsWidth = p == int(Panel::Angles) ? pairs * l.angleWidth : n * row;
        l.caption[p] = QRectF(x, y, panel, line);
        l.cells[p] = QRectF(x, gridTop, cellsWidth, n * row);
        x += panel + kGap;
    }
    return l;
}

RotaryRenderer::Hit RotaryRenderer::hitTest(const QSize& size, const QPointF& pos) const
{
    Hit hit;
    if (!head_)
        return hit;
    const Layout l = layout(size);
    for (int p = 0; p < kPanels; ++p) {
        if (!l.cells[p].contains(pos))
            continue;
        const double colWidth = p == int(Panel::Angles) ? l.angleWidth : l.scoreWidth;
        if (l.rowHeight <= 0 || colWidth <= 0)
            return hit;
        hit.panel = Panel(p);
        hit.row =
            std::min(int((pos.y() - l.cells[p].top()) / l.rowHeight), int(head_->scoresAfter.rows()) - 1);
        const int cols =
            p == int(Panel::Angles) ? int(head_->frequencies.size()) : int(head_->scoresAfter.cols());
        hit.col = std::min(int((pos.x() - l.cells[p].left()) / colWidth), cols - 1);
        return hit;
    }
    return hit;
}

QString RotaryRenderer::toolTip(const Hit& hit) const
{
    if (!head_ || hit.panel == Panel::None)
        return QString();
    const auto label = [&](int i) { return i < labels_.size() ? labels_[i] : QString::number(i); };
    if (hit.panel == Panel::Angles) {
        const double a = head_->angles(hit.row, hit.col);
        return tr("pair %1 (dimensions %1 and %2) at position %3 (“%4”): angle %3 × θ_%1 = %5 rad, "
                  "%6° after whole turns (θ_%1 = %7)")
            .arg(hit.col)
            .arg(hit.col + head_->frequencies.size())
            .arg(hit.row)
            .arg(label(hit.row))
            .arg(a, 0, 'g', 5)
            .arg(qRadiansToDegrees(turned(a)), 0, 'f', 1)
            .arg(head_->frequencies[std::size_t(hit.col)], 0, 'g', 5);
    }
    const int i = hit.row, j = hit.col;
    QString text = tr("query %1 “%2”, key %3 “%4”, distance %5: q·k = %6, q_rot·k_rot = %7")
                       .arg(i)
                       .arg(label(i))
                       .arg(j)
                       .arg(label(j))
                       .arg(i - j)
                       .arg(head_->scoresBefore(i, j), 0, 'g', 5)
                       .arg(head_->scoresAfter(i, j), 0, 'g', 5);
    if (head_->mask.hides(i, j))
        text += tr(" (hidden from the query by the mask)");
    return text;
}

void RotaryRenderer::paint(QPainter& painter, const QSize& size, const HeatmapStyle& style) const
{
    painter.fillRect(QRect(QPoint(0, 0), size), style.background);
    painter.setFont(font_);
    painter.setPen(style.text);
    const QFontMetricsF fm(font_);
    const Layout l = layout(size);
    if (!head_) {
        painter.drawText(QRectF(kMargin, kMargin, size.width() - 2 * kMargin, size.height() - 2 * kMargin),
                         Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, message_);
        return;
    }
    const attn::RotaryHead& h = *head_;
    const int n = int(h.scoresAfter.rows());
    const int pairs = int(h.frequencies.size());
    const auto elided = [&](const QString& text, const QRectF& r) {
        return fm.elidedText(text, Qt::ElideRight, r.width());
    };
    painter.drawText(l.title, Qt::AlignLeft | Qt::AlignVCenter, elided(title_, l.title));
    const QString captions[kPanels] = {tr("q·k without the rotation"), tr("q_rot·k_rot (the model's scores)"),
                                       tr("angle p·θ_i: positions × pairs i")};
    const QString shortCaptions[kPanels] = {tr("q·k"), tr("q_rot·k_rot"), tr("angle p·θ_i")};
    for (int p = 0; p < kPanels; ++p) {
        const QString& text =
            fm.horizontalAdvance(captions[p]) <= l.caption[p].width() ? captions[p] : shortCaptions[p];
        painter.drawText(l.caption[p], Qt::AlignLeft | Qt::AlignVCenter, elided(text, l.caption[p]));
    }

    // The scores, on one diverging scale; hidden keys grey.
    const bool edges = l.rowHeight >= 6;
    for (int p = 0; p < 2; ++p) {
        const attn::Matrix& s = p == 0 ? h.scoresBefore : h.scoresAfter;
        const QRectF& cells = l.cells[p];
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const QRectF cell(cells.left() + j * l.scoreWidth, cells.top() + i * l.rowHeight,
                                  l.scoreWidth, l.rowHeight);
                const QRgb fill =
                    h.mask.hides(i, j) ? colormap::kMasked : colormap::divergingRgb(s(i, j), scale_);
                painter.fillRect(edges ? cell.adjusted(0, 0, -1, -1) : cell, QColor::fromRgb(fill));
            }
        painter.setPen(style.frame);
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(cells);
    }
    // The angles: a hue per turn, a hand where a cell is large enough.
    const QRectF& angles = l.cells[int(Panel::Angles)];
    const bool hands = l.rowHeight >= 12 && l.angleWidth >= 12;
    for (int pos = 0; pos < n; ++pos)
        for (int i = 0; i < pairs; ++i) {
            const QRectF cell(angles.left() + i * l.angleWidth, angles.top() + pos * l.rowHeight,
                              l.angleWidth, l.rowHeight);
            const double a = h.angles(pos, i);
            painter.fillRect(edges ? cell.adjusted(0, 0, -1, -1) : cell, angleColor(a));
            if (hands) {
                const QPointF c = cell.center();
                const double r = 0.4 * std::min(cell.width(), cell.height());
                painter.setPen(QPen(Qt::black, 1.2));
                painter.drawLine(c, c + QPointF(r * std::cos(a), -r * std::sin(a)));
            }
        }
    painter.setPen(style.frame);
    painter.drawRect(angles);
    painter.setPen(style.text);
    // A leading space's "␣" as a bracket of lines: the glyph is too small to read here.
    if (!l.rowLabels.isEmpty())
        for (int i = 0; i < n && i < labels_.size(); ++i)
            drawSpaceMarkedLabel(painter, fm,
                                 QRectF(l.rowLabels.left(), l.rowLabels.top() + i * l.rowHeight,
                                        l.rowLabels.width() - 4, l.rowHeight),
                                 fm.elidedText(labels_[i], Qt::ElideRight, l.rowLabels.width() - 4));

    painter.drawText(
        l.note, Qt::AlignLeft | Qt::AlignVCenter,
        elided(tr("Along each diagonal the distance between query and key is the same: with the "
                  "rotation a score depends on q, k and that distance, not on where the pair sits."),
               l.note));
    // Legend: the score scale's bar and the angle's hue wheel as a bar.
    const double bar = std::min(120.0, l.legend.width() / 6);
    QRectF r(l.legend.left(), l.legend.top() + 2, bar, l.legend.height() - 4);
    QLinearGradient scores(r.topLeft(), r.topRight());
    scores.setColorAt(0.0, QColor::fromRgb(colormap::kDivergingLow));
    scores.setColorAt(0.5, Qt::white);
    scores.setColorAt(1.0, QColor::fromRgb(colormap::kDivergingHigh));
    painter.fillRect(r, scores);
    double x = r.right() + 4;
    const QString scoreText = tr("score −%1 … +%1 (both maps); grey: hidden keys").arg(scale_, 0, 'g', 3);
    painter.drawText(QRectF(x, l.legend.top(), fm.horizontalAdvance(scoreText) + 2, l.legend.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, scoreText);
    x += fm.horizontalAdvance(scoreText) + 16;
    if (x + bar < l.legend.right()) {
        QRectF wheel(x, r.top(), bar, r.height());
        QLinearGradient hue(wheel.topLeft(), wheel.topRight());
        for (int k = 0; k <= 6; ++k)
            hue.setColorAt(k / 6.0, angleColor(kTwoPi * k / 6.0 * 0.9999));
        painter.fillRect(wheel, hue);
        const QString angleText = tr("angle 0 … 2π (then round again)");
        painter.drawText(QRectF(wheel.right() + 4, l.legend.top(), l.legend.right() - wheel.right() - 4,
                                l.legend.height()),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         fm.elidedText(angleText, Qt::ElideRight, l.legend.right() - wheel.right() - 4));
    }
    if (l.frequencies.height() < 2 * fm.lineSpacing())
        painter.drawText(l.frequencies, Qt::AlignLeft | Qt::AlignVCenter,
                         fm.elidedText(frequencies_, Qt::ElideRight, l.frequencies.width()));
    else
        painter.drawText(l.frequencies, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, frequencies_);
}

}  // namespace attnlab
