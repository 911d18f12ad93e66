// SPDX-License-Identifier: GPL-3.0-or-later
#include "tokenstrip.h"

#include "displaylabel.h"
#include "focusframe.h"
#include "spacemark.h"
#include "textwidths.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

namespace attnlab {

namespace {
constexpr int kMargin = 4;
constexpr int kGap = 6;
constexpr int kPadX = 8;
constexpr int kPadY = 3;
constexpr int kMaxChipEms = 16;
}  // namespace

TokenStrip::TokenStrip(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    // Tab reaches the strip; Up/Down then move the focused query (MainWindow).
    setFocusPolicy(Qt::StrongFocus);
    setAccessibleName(tr("Tokens"));
    setAccessibleDescription(
        tr("The tokens of the sentence with their vocabulary ids. Click a "
           "token, or use Up and Down, to focus a query."));
    setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
}

void TokenStrip::setTokens(const QStringList& tokens, const QList<int>& ids)
{
    // Every result passes the tokens again; a d_k step leaves them as they are.
    if (tokens == tokens_ && ids == ids_)
        return;
    tokens_ = tokens;
    ids_ = ids;
    relayout();
}

void TokenStrip::setFocusIndex(int index)
{
    if (index == focus_)
        return;
    focus_ = index;
    update();
}

void TokenStrip::relayout()
{
    rects_.clear();
    labels_.clear();
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.8);
    TextWidths widths(font());
    TextWidths smallWidths(small);
    const QFontMetrics& fm = widths.metrics();
    const int height = fm.height() + smallWidths.metrics().height() + 2 * kPadY;
    const int maxTextWidth = kMaxChipEms * fm.horizontalAdvance(QLatin1Char('M'));
    int x = kMargin;
    for (int i = 0; i < tokens_.size(); ++i) {
        const QString idText = tr("id %1").arg(i < ids_.size() ? ids_[i] : -1);
        labels_.append(widths.elided(displayLabel(tokens_[i]), maxTextWidth));
        const int width = std::max(widths.advance(labels_.back()), smallWidths.advance(idText)) + 2 * kPadX;
        rects_.append(QRect(x, kMargin, width, height));
        x += width + kGap;
    }
    updateGeometry();
    update();
}

QRect TokenStrip::chipRect(int index) const
{
    return index >= 0 && index < rects_.size() ? rects_[index] : QRect();
}

QColor TokenStrip::chipColor(int index) const
{
    const int id = index >= 0 && index < ids_.size() ? ids_[index] : 0;
    // Golden-angle hues keep neighbouring ids apart.
    const int hue = int(id * 137.508) % 360;
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    return dark ? QColor::fromHsl(hue, 110, 75) : QColor::fromHsl(hue, 170, 215);
}

QSize TokenStrip::sizeHint() const
{
    const QFontMetrics fm(font());
    const int chipHeight = rects_.isEmpty() ? 2 * fm.height() + 2 * kPadY : rects_.first().height();
    const int width = rects_.isEmpty() ? 100 : rects_.last().right() + kMargin;
    return QSize(width, chipHeight + 2 * kMargin);
}

QSize TokenStrip::minimumSizeHint() const
{
    return sizeHint();
}

void TokenStrip::paintEvent(QPaintEvent* event)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.8);
    const QFontMetrics fm(font());
    // Only the chips in view: a long sentence's strip scrolls, and drawing
    // its 256 chips' text on every paint took about 8 ms.
    const QRect exposed = event->rect().adjusted(-3, -3, 3, 3);  // the focus pen's width
    for (int i = 0; i < rects_.size(); ++i) {
        if (!rects_[i].intersects(exposed))
            continue;
        const QRectF r = QRectF(rects_[i]).adjusted(0.5, 0.5, -0.5, -0.5);
        QPainterPath path;
        path.addRoundedRect(r, 5, 5);
        painter.fillPath(path, chipColor(i));
        const bool focused = i == focus_;
        painter.setPen(QPen(focused ? palette().color(QPalette::Highlight) : palette().color(QPalette::Mid),
                            focused ? 2.5 : 1.0));
        painter.drawPath(path);
        painter.setPen(palette().color(QPalette::WindowText));
        painter.setFont(font());
        const QRect textRect = rects_[i].adjusted(kPadX, kPadY, -kPadX, -kPadY);
        drawTokenText(painter, textRect, Qt::AlignHCenter | Qt::AlignTop, labels_.value(i));
        painter.setFont(small);
        painter.drawText(textRect, Qt::AlignHCenter | Qt::AlignBottom,
                         tr("id %1").arg(i < ids_.size() ? ids_[i] : -1));
    }
    if (hasFocus())
        drawFocusFrame(painter, *this);
}

int TokenStrip::chipAt(const QPoint& pos) const
{
    for (int i = 0; i < rects_.size(); ++i)
        if (rects_[i].contains(pos))
            return i;
    return -1;
}

void TokenStrip::mousePressEvent(QMouseEvent* event)
{
    const int index = chipAt(event->position().toPoint());
    if (index >= 0 && event->button() == Qt::LeftButton)
        emit tokenClicked(index);
    QWidget::mousePressEvent(event);
}

bool TokenStrip::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int i = chipAt(help->pos());
        if (i >= 0) {
            QToolTip::showText(help->globalPos(),
                               tr("Token %1 \"%2\", vocabulary id %3: row %1 of X, query %1 and "
                                  "key %1 of the score maps. Click to focus this query.")
                                   .arg(i + 1)
                                   .arg(displayLabel(tokens_[i]))
                                   .arg(i < ids_.size() ? ids_[i] : -1),
                               this, rects_[i]);
        } else {
            QToolTip::hideText();
            event->ignore();
        }
        return true;
    }
    if (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut)
        update();
    return QWidget::event(event);
}

void TokenStrip::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        relayout();
    else if (event->type() == QEvent::PaletteChange)
        update();
    QWidget::changeEvent(event);
}

}  // namespace attnlab
