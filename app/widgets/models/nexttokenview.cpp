// SPDX-License-Identifier: GPL-3.0-or-later
#include "nexttokenview.h"

#include "gpt2.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace attnlab {

NextTokenView::NextTokenView(QWidget* parent) : QWidget(parent)
{
    setAccessibleName(tr("Most likely next tokens"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    renderer_.setFont(font());
}

void NextTokenView::setPrediction(const std::vector<attn::TopToken>& top, const QStringList& labels,
                                  double temperature, const QString& context)
{
    renderer_.setPrediction(top, labels, temperature, context);
    setAccessibleDescription(renderer_.entries().empty()
                                 ? QString()
                                 : renderer_.captionText() + QStringLiteral(": ")
                                       + renderer_.entries().front().text + QStringLiteral(" ")
                                       + NextTokenRenderer::valueText(renderer_.entries().front()));
    update();
}

void NextTokenView::clear()
{
    renderer_.clear();
    update();
}

QSize NextTokenView::minimumSizeHint() const
{
    return QSize(12 * fontMetrics().averageCharWidth(), 6 * fontMetrics().height());
}

QSize NextTokenView::sizeHint() const
{
    return QSize(40 * fontMetrics().averageCharWidth(), 13 * fontMetrics().height());
}

void NextTokenView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    renderer_.paint(painter, size(), HeatmapStyle::fromPalette(palette(), true),
                    palette().color(QPalette::Highlight));
}

bool NextTokenView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const int i = renderer_.entryAt(size(), help->pos());
        if (i >= 0) {
            const NextTokenRenderer::Entry& e = renderer_.entries()[std::size_t(i)];
            QToolTip::showText(help->globalPos(),
                               e.text + QStringLiteral(": ") + NextTokenRenderer::valueText(e), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

void NextTokenView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        renderer_.setFont(font());
    QWidget::changeEvent(event);
}

}  // namespace attnlab
