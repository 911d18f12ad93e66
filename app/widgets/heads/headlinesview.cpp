// SPDX-License-Identifier: GPL-3.0-or-later
#include "headlinesview.h"

#include "gpt2.h"
#include "heatmapstyle.h"

#include <QMouseEvent>
#include <QPainter>

namespace attnlab {

HeadLinesView::HeadLinesView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAccessibleName(tr("Head view of the selected layer"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    renderer_.setFont(font());
}

HeadLinesView::~HeadLinesView() = default;

void HeadLinesView::setResult(std::shared_ptr<const attn::DecoderResult> result,
                              const QStringList& tokenLabels)
{
    renderer_.setResult(std::move(result), tokenLabels);
    if (int(shown_.size()) != renderer_.headCount()) {
        shown_.clear();
        renderer_.setHeadMask(shown_);
    }
    update();
}

void HeadLinesView::setLayer(int layer)
{
    renderer_.setLayer(layer);
    update();
}

QSize HeadLinesView::minimumSizeHint() const
{
    return QSize(20 * fontMetrics().averageCharWidth(), 6 * fontMetrics().height());
}

QSize HeadLinesView::sizeHint() const
{
    return QSize(60 * fontMetrics().averageCharWidth(), 20 * fontMetrics().height());
}

void HeadLinesView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    if (renderer_.tokens() == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("File > Open model… first: the selected layer's heads then show here as "
                            "lines from each token to the tokens it attends to."));
        return;
    }
    renderer_.paint(painter, size(), HeatmapStyle::fromPalette(palette(), true),
                    palette().color(QPalette::Highlight));
}

void HeadLinesView::mouseMoveEvent(QMouseEvent* event)
{
    bool keySide = false;
    const int token = renderer_.tokenAt(size(), event->position().toPoint(), &keySide);
    if (token != renderer_.hoveredToken() || keySide != renderer_.hoveredKeySide()) {
        renderer_.setHoveredToken(token, keySide);
        update();
    }
    QWidget::mouseMoveEvent(event);
}

void HeadLinesView::mousePressEvent(QMouseEvent* event)
{
    const int head = renderer_.legendHeadAt(size(), event->position().toPoint());
    if (event->button() != Qt::LeftButton || head < 0) {
        QWidget::mousePressEvent(event);
        return;
    }
    if (int(shown_.size()) != renderer_.headCount())
        shown_.assign(std::size_t(renderer_.headCount()), true);
    shown_[std::size_t(head)] = !shown_[std::size_t(head)];
    renderer_.setHeadMask(shown_);
    update();
}

void HeadLinesView::leaveEvent(QEvent* event)
{
    renderer_.setHoveredToken(-1);
    update();
    QWidget::leaveEvent(event);
}

void HeadLinesView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        renderer_.setFont(font());
    QWidget::changeEvent(event);
}

}  // namespace attnlab
