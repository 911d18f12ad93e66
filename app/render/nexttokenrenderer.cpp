// SPDX-License-Identifier: GPL-3.0-or-later
#include "nexttokenrenderer.h"

#include "gpt2.h"
#include "heatmaplabelpainter.h"
#include "spacemark.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab {

void NextTokenRenderer::setFont(const QFont& font)
{
    font_ = font;
    layoutValid_ = false;
}

void NextTokenRenderer::setPrediction(const std::vector<attn::TopToken>& top, const QStringList& labels,
                                      double temperature, const QString& context)
{
    entries_.clear();
    for (std::size_t i = 0; i < top.size(); ++i)
        entries_.push_back(
            {top[i].id, labels.value(int(i), QString::number(top[i].id)), top[i].logit, top[i].probability});
    temperature_ = temperature;
    context_ = context;
    layoutValid_ = false;
}

void NextTokenRenderer::clear()
{
    entries_.clear();
    context_.clear();
    layoutValid_ = false;
}

QString NextTokenRenderer::softmaxText(double temperature)
{
    // One decimal when that is exact (1.0, 0.5), else the number as it is.
    const bool tenths = std::abs(temperature * 10.0 - std::round(temperature * 10.0)) < 1e-9;
    return tr("softmax(logits / T), T = %1")
        .arg(tenths ? QString::number(temperature, 'f', 1) : QString::number(temperature, 'g', 6));
}

QString NextTokenRenderer::percentText(double probability)
{
    const double percent = probability * 100.0;
    if (percent >= 1.0 || percent == 0.0)
        return tr("%1 %").arg(QString::number(percent, 'f', 1));
    // Three significant digits: 0.0412 %, 3.12e-05 % below a millionth.
    return tr("%1 %").arg(QString::number(percent, percent >= 1e-4 ? 'f' : 'g',
                                          percent >= 1e-4 ? 2 - int(std::floor(std::log10(percent))) : 3));
}

QString NextTokenRenderer::valueText(const Entry& e)
{
    return tr("%1 · id %2 · logit %3").arg(percentText(e.probability)).arg(e.id).arg(e.logit, 0, 'f', 3);
}

QString NextTokenRenderer::valueText(const Entry& e, ValueDetail detail)
{
    switch (detail) {
    case ValueDetail::Percent: return percentText(e.probability);
    case ValueDetail::PercentId: return tr("%1 · id %2").arg(percentText(e.probability)).arg(e.id);
    case ValueDetail::Full: break;
    }
    return valueText(e);
}

QString NextTokenRenderer::captionHead() const
{
    return context_.isEmpty() ? tr("Next token, top %1").arg(entries_.size())
                              : tr("Next token after “%1”, top %2").arg(context_).arg(entries_.size());
}

QString NextTokenRenderer::captionText() const
{
    return tr("%1: %2").arg(captionHead(), softmaxText(temperature_));
}

QString NextTokenRenderer::shortCaptionText() const
{
    return tr("Top %1: %2").arg(entries_.size()).arg(softmaxText(temperature_));
}

QString NextTokenRenderer::noteText(int shown) const
{
    if (entries_.empty())
        return {};
    const QString note =
        tr("bar length ∝ probability (the longest: %1)").arg(percentText(entries_.front().probability));
    if (shown >= int(entries_.size()))
        return note;
    return tr("the first %1 of %2 (a taller panel shows all); %3").arg(shown).arg(entries_.size()).arg(note);
}

const NextTokenRenderer::Layout& NextTokenRenderer::layout(const QSize& size) const
{
    if (layoutValid_ && layout_.size == size)
        return layout_;
    Layout l;
    l.size = size;
    const QFontMetrics fm(font_);
    const int line = fm.height();
    const int pad = std::max(2, line / 4);
    const QFontMetrics boldFm(HeatmapLabelPainter::boldFont(font_));
    l.captionShort = boldFm.horizontalAdvance(captionText()) > size.width() - 2 * pad;
    l.caption = QRect(pad, pad, size.width() - 2 * pad, line);
    l.note = QRect(pad, size.height() - pad - line, size.width() - 2 * pad, line);
    const int n = int(entries_.size());
    int labelWidth = 0;
    for (const Entry& e : entries_)
        labelWidth =
            std::max(labelWidth, fm.horizontalAdvance(HeatmapLabelPainter::elidedLabel(fm, e.text, 1 << 20)));
    labelWidth = std::min(labelWidth + 2 * pad, size.width() / 4);
    // The most the value column can say whole, the bars keeping a quarter.
    const int room = std::max(0, size.width() - 2 * pad - labelWidth - size.width() / 4);
    int valueWidth = 0;
    for (const ValueDetail detail : {ValueDetail::Full, ValueDetail::PercentId, ValueDetail::Percent}) {
        l.detail = detail;
        valueWidth = 0;
        for (const Entry& e : entries_)
            valueWidth = std::max(valueWidth, fm.horizontalAdvance(valueText(e, detail)));
        valueWidth += 2 * pad;
        if (valueWidth <= room)
            break;
    }
    valueWidth = std::min(valueWidth, room);
    const int top = l.caption.bottom() + 1 + pad;
    const int bottom = l.note.top() - pad;
    // Every entry where each gets a line of text, else the first ones that do:
    // rows thinner than the text overprinted each other.
    const int shown = n > 0 && (bottom - top) / n < line ? std::clamp((bottom - top) / line, 1, n) : n;
    const int rowHeight = shown > 0 ? std::min(2 * line, std::max(1, (bottom - top) / shown)) : 0;
    for (int i = 0; i < shown; ++i) {
        const QRect row(pad, top + i * rowHeight, size.width() - 2 * pad, rowHeight);
        l.rows.push_back(row);
        l.labels.emplace_back(row.left(), row.top(), labelWidth - pad, row.height());
        const int barLeft = row.left() + labelWidth;
        const int barWidth = std::max(0, row.width() - labelWidth - valueWidth);
        // A bar takes two thirds of its row, centred.
        const int barHeight = std::max(1, rowHeight * 2 / 3);
        l.bars.emplace_back(barLeft, row.top() + (rowHeight - barHeight) / 2, barWidth, barHeight);
        l.values.emplace_back(barLeft + barWidth + pad, row.top(), valueWidth - pad, row.height());
    }
    // The note right under the bars (it was kept room for at the bottom).
    if (shown > 0)
        l.note.moveTop(std::min(l.note.top(), l.rows.back().bottom() + 1 + pad));
    layout_ = l;
    layoutValid_ = true;
    return layout_;
}

QRect NextTokenRenderer::barRect(const QSize& size, int i) const
{
    const Layout& l = layout(size);
    if (i < 0 || i >= int(l.bars.size()))
        return {};
    const QRect full = l.bars[std::size_t(i)];
    const double largest = entries_.front().probability;
    const double share =
        largest > 0.0 ? std::clamp(entries_[std::size_t(i)].probability / largest, 0.0, 1.0) : 0.0;
    return {full.left(), full.top(), int(std::lround(share * full.width())), full.height()};
}

int NextTokenRenderer::entryAt(const QSize& size, const QPoint& pos) const
{
    const Layout& l = layout(size);
    for (std::size_t i = 0; i < l.rows.size(); ++i)
        if (l.rows[i].contains(pos))
            return int(i);
    return -1;
}

void NextTokenRenderer::paint(QPainter& painter, const QSize& size, const HeatmapStyle& style,
                              const QColor& bar) const
{
    painter.save();
    painter.setFont(font_);
    painter.fillRect(QRect(QPoint(0, 0), size), style.background);
    painter.setPen(style.text);
    if (entries_.empty()) {
        painter.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, tr("No prediction"));
        painter.restore();
        return;
    }
    const Layout& l = layout(size);
    const QFontMetrics fm(font_);
    const QFont bold = HeatmapLabelPainter::boldFont(font_);
    painter.setFont(bold);
    const QFontMetrics boldFm(bold);
    // The caption names the context's last token ("after “␣new”").
    drawTokenText(painter, l.caption, Qt::AlignLeft | Qt::AlignVCenter,
                  HeatmapLabelPainter::elided(boldFm, l.captionShort ? shortCaptionText() : captionText(),
                                              l.caption.width()));
    painter.setFont(font_);
    for (int i = 0; i < int(l.rows.size()); ++i) {
        const Entry& e = entries_[std::size_t(i)];
        const QRect& label = l.labels[std::size_t(i)];
        painter.setPen(style.text);
        drawTokenText(painter, label, Qt::AlignRight | Qt::AlignVCenter,
                      HeatmapLabelPainter::elidedLabel(fm, e.text, label.width()));
        const QRect b = barRect(size, i);
        painter.fillRect(b.isEmpty() ? QRect(b.left(), b.top(), 1, b.height()) : b, bar);
        painter.drawText(
            l.values[std::size_t(i)], Qt::AlignLeft | Qt::AlignVCenter,
            HeatmapLabelPainter::elided(fm, valueText(e, l.detail), l.values[std::size_t(i)].width()));
    }
    painter.setPen(style.frame);
    painter.drawText(l.note, Qt::AlignLeft | Qt::AlignVCenter,
                     HeatmapLabelPainter::elided(fm, noteText(int(l.rows.size())), l.note.width()));
    painter.restore();
}

}  // namespace attnlab
