// SPDX-License-Identifier: GPL-3.0-or-later
#include "headgridview.h"

#include "focusframe.h"
#include "presentation.h"

#include <QEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace attnlab {

HeadGridView::HeadGridView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("headGrid"));
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    renderer_.setFont(font());
    updateAccessibleText();
}

HeadGridView::~HeadGridView() = default;

void HeadGridView::setResult(std::shared_ptr<const attn::MultiHeadResult> result,
                             const QStringList& tokenLabels, int selectedHead,
                             const std::vector<int>* changedHeads)
{
    renderer_.setResult(std::move(result), tokenLabels, changedHeads);
    renderer_.setSelectedHead(selectedHead);
    if (renderer_.cursorTile() < 0 && hasFocus())
        renderer_.setCursorTile(std::max(0, renderer_.selectedHead()));
    updateAccessibleText();
    update();
}

void HeadGridView::setSelectedHead(int head)
{
    renderer_.setSelectedHead(head);
    updateAccessibleText();
    update();
}

void HeadGridView::setKind(HeadMapKind kind)
{
    renderer_.setKind(kind);
    updateAccessibleText();
    update();
}

void HeadGridView::setWeightsScaleMode(WeightsScaleMode mode)
{
    renderer_.setWeightsScaleMode(mode);
    update();
}

QRect HeadGridView::tileRect(int tile) const
{
    const HeadGridLayout& l = renderer_.layout(size());
    return tile >= 0 && tile < int(l.tiles.size()) ? l.tiles[std::size_t(tile)].frame : QRect();
}

QRect HeadGridView::tileMapRect(int tile) const
{
    const HeadGridLayout& l = renderer_.layout(size());
    return tile >= 0 && tile < int(l.tiles.size()) ? l.tiles[std::size_t(tile)].map : QRect();
}

int HeadGridView::tileAt(const QPoint& pos) const
{
    return renderer_.layout(size()).tileAt(pos);
}

QString HeadGridView::toolTipAt(const QPoint& pos) const
{
    int tile = -1;
    int row = -1;
    int col = -1;
    if (!renderer_.cellAt(size(), pos, &tile, &row, &col)) {
        tile = tileAt(pos);
        if (tile < 0)
            return {};
        return tile == renderer_.averageTile()
                   ? renderer_.tileName(tile)
                   : tr("%1: click to show it in the other views").arg(renderer_.tileName(tile));
    }
    const QStringList& tokens = renderer_.tokenLabels();
    const QString query = tokens.value(row, QString::number(row));
    const QString key = tokens.value(col, QString::number(col));
    const bool average = tile == renderer_.averageTile();
    const QString what = average ? tr("mean weight") : HeadGridRenderer::kindName(renderer_.kind());
    QString text = tr("%1\nquery \"%2\" (%3), key \"%4\" (%5)\n%6: %7")
                       .arg(renderer_.tileName(tile), query)
                       .arg(row + 1)
                       .arg(key)
                       .arg(col + 1)
                       .arg(what, formatForDisplay(renderer_.value(tile, row, col)));
    if (!average)
        text += tr("\nclick to show head %1 in the other views").arg(tile + 1);
    return text;
}

void HeadGridView::renderTo(QPainter& painter, const QSize& size) const
{
    HeatmapStyle style;
    style.background = Qt::white;
    style.text = Qt::black;
    style.frame = QColor(0x80, 0x80, 0x80);
    renderer_.paint(painter, size, style, QColor(0xd9, 0x5f, 0x02));
}

QSize HeadGridView::minimumSizeHint() const
{
    const int line = QFontMetrics(font()).height();
    return {8 * line, 6 * line};
}

QSize HeadGridView::sizeHint() const
{
    const int line = QFontMetrics(font()).height();
    return {30 * line, 24 * line};
}

void HeadGridView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    renderer_.paint(painter, size(), HeatmapStyle::fromPalette(palette(), true),
                    palette().color(QPalette::Highlight));
    if (hasFocus())
        drawFocusFrame(painter, *this);
}

void HeadGridView::activate(int tile)
{
    if (tile < 0 || tile >= renderer_.headCount())
        return;  // the average is no head of the pipeline
    renderer_.setCursorTile(tile);
    renderer_.setSelectedHead(tile);
    updateAccessibleText();
    update();
    emit headActivated(tile);
}

void HeadGridView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    const int tile = tileAt(event->position().toPoint());
    if (tile < 0) {
        QWidget::mousePressEvent(event);
        return;
    }
    activate(tile);
    event->accept();
}

void HeadGridView::moveCursor(int rows, int cols)
{
    const int count = renderer_.tileCount();
    if (count == 0)
        return;
    const int columns = std::max(1, renderer_.layout(size()).columns);
    int tile = renderer_.cursorTile();
    if (tile < 0) {
        tile = std::max(0, renderer_.selectedHead());
    } else {
        tile += cols + rows * columns;
        // Up and Down stay in the column; Left and Right run on across rows.
        if (rows != 0 && (tile < 0 || tile >= count))
            tile -= rows * columns;
        tile = std::clamp(tile, 0, count - 1);
    }
    renderer_.setCursorTile(tile);
    updateAccessibleText();
    update();
}

void HeadGridView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Left: moveCursor(0, -1); break;
    case Qt::Key_Right: moveCursor(0, 1); break;
    case Qt::Key_Up: moveCursor(-1, 0); break;
    case Qt::Key_Down: moveCursor(1, 0); break;
    case Qt::Key_Home:
        renderer_.setCursorTile(0);
        update();
        break;
    case Qt::Key_End:
        renderer_.setCursorTile(renderer_.tileCount() - 1);
        update();
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Space:
        activate(renderer_.cursorTile() >= 0 ? renderer_.cursorTile() : renderer_.selectedHead());
        break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

bool HeadGridView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this, tileRect(tileAt(help->pos())));
        }
        return true;
    }
    if (event->type() == QEvent::FocusIn) {
        if (renderer_.cursorTile() < 0 && renderer_.tileCount() > 0)
            renderer_.setCursorTile(std::max(0, renderer_.selectedHead()));
        update();
    }
    if (event->type() == QEvent::FocusOut)
        update();
    return QWidget::event(event);
}

void HeadGridView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) {
        renderer_.setFont(font());
        update();
        updateGeometry();
    } else if (event->type() == QEvent::PaletteChange) {
        update();
    }
    QWidget::changeEvent(event);
}

void HeadGridView::updateAccessibleText()
{
    setAccessibleName(tr("Head grid"));
    const int heads = renderer_.headCount();
    if (heads == 0) {
        setAccessibleDescription(tr("No heads to show."));
        return;
    }
    QString text = tr("%n heads' %1 and their average weights.", nullptr, heads)
                       .arg(HeadGridRenderer::kindName(renderer_.kind()));
    if (renderer_.selectedHead() >= 0)
        text += QLatin1Char(' ') + tr("Head %1 is selected.").arg(renderer_.selectedHead() + 1);
    if (renderer_.cursorTile() >= 0)
        text += QLatin1Char(' ') + tr("Cursor on %1.").arg(renderer_.tileName(renderer_.cursorTile()));
    text += QLatin1Char(' ') + tr("Arrow keys move, Enter or Space shows that head in the other views.");
    setAccessibleDescription(text);
}

}  // namespace attnlab
