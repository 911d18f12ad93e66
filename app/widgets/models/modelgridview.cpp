// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelgridview.h"

#include "focusframe.h"
#include "heatmapstyle.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace attnlab {

ModelGridView::ModelGridView(QWidget* parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAccessibleName(tr("Layers and heads"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    renderer_.setFont(font());
}

ModelGridView::~ModelGridView() = default;

void ModelGridView::setResult(std::shared_ptr<const attn::DecoderResult> result,
                              const QStringList& tokenLabels)
{
    renderer_.setResult(std::move(result), tokenLabels);
    updateGeometry();
    update();
}

void ModelGridView::setSelected(int layer, int head)
{
    renderer_.setSelectedTile(layer, head);
    update();
}

void ModelGridView::setRanking(const attn::Matrix& values, const QString& caption, bool colored)
{
    renderer_.setRanking(values, caption, 3, colored);
    update();
}

void ModelGridView::setCrossedTiles(std::vector<int> tiles)
{
    renderer_.setCrossedTiles(std::move(tiles));
    update();
}

void ModelGridView::clearRanking()
{
    renderer_.clearRanking();
    update();
}

QSize ModelGridView::minimumSizeHint() const
{
    const int line = fontMetrics().height();
    return QSize(std::max(1, heads()) * 28 + 4 * line, std::max(1, layers()) * 28 + 3 * line);
}

QSize ModelGridView::sizeHint() const
{
    const int line = fontMetrics().height();
    return QSize(std::max(1, heads()) * 90 + 4 * line, std::max(1, layers()) * 90 + 3 * line);
}

void ModelGridView::setPlaceholder(const QString& text)
{
    placeholder_ = text;
    update();
}

void ModelGridView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    if (tileCount() == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
        return;
    }
    renderer_.paint(painter, size(), HeatmapStyle::fromPalette(palette(), true),
                    palette().color(QPalette::Highlight));
    if (hasFocus())
        drawFocusFrame(painter, *this);
}

void ModelGridView::mousePressEvent(QMouseEvent* event)
{
    int layer = 0, head = 0;
    if (event->button() != Qt::LeftButton
        || !renderer_.tileAt(size(), event->position().toPoint(), &layer, &head)) {
        QWidget::mousePressEvent(event);
        return;
    }
    setSelected(layer, head);
    emit headActivated(layer, head);
    if (event->modifiers() & Qt::ControlModifier)
        emit ablationToggled(layer, head);
    else
        emit headShown(layer, head);
}

void ModelGridView::mouseMoveEvent(QMouseEvent* event)
{
    int layer = -1, head = -1;
    if (!renderer_.tileAt(size(), event->position().toPoint(), &layer, &head))
        layer = head = -1;
    if (layer != renderer_.hoveredLayer() || head != renderer_.hoveredHead()) {
        renderer_.setHoveredTile(layer, head);
        update();
    }
    QWidget::mouseMoveEvent(event);
}

void ModelGridView::leaveEvent(QEvent* event)
{
    renderer_.setHoveredTile(-1, -1);
    update();
    QWidget::leaveEvent(event);
}

void ModelGridView::keyPressEvent(QKeyEvent* event)
{
    if (tileCount() == 0) {
        QWidget::keyPressEvent(event);
        return;
    }
    int l = std::max(0, selectedLayer()), h = std::max(0, selectedHead());
    switch (event->key()) {
    case Qt::Key_Left: h = std::max(0, h - 1); break;
    case Qt::Key_Right: h = std::min(heads() - 1, h + 1); break;
    case Qt::Key_Up: l = std::max(0, l - 1); break;
    case Qt::Key_Down: l = std::min(layers() - 1, l + 1); break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Space: break;
    default: QWidget::keyPressEvent(event); return;
    }
    setSelected(l, h);
    emit headActivated(l, h);
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
        if (event->modifiers() & Qt::ControlModifier)
            emit ablationToggled(l, h);
        else
            emit headShown(l, h);
    }
}

bool ModelGridView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        int layer = 0, head = 0, row = 0, col = 0;
        if (renderer_.cellAt(size(), help->pos(), &layer, &head, &row, &col))
            QToolTip::showText(help->globalPos(), renderer_.cellText(layer, head, row, col), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void ModelGridView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        renderer_.setFont(font());
    QWidget::changeEvent(event);
}

}  // namespace attnlab
