// SPDX-License-Identifier: GPL-3.0-or-later
#include "scorehistogramview.h"

#include <QPainter>

namespace attnlab {

ScoreHistogramView::ScoreHistogramView(QWidget* parent) : QWidget(parent)
{
    setAccessibleName(tr("Histogram of the raw and scaled scores"));
    setToolTip(
        tr("How the scores q·k of all unmasked query-key pairs are spread, before "
           "(red) and after (blue) dividing by √d_k, in the same bins. With unit-"
           "variance q and k the raw spread grows as √d_k, the scaled one stays "
           "about 1."));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ScoreHistogramView::setHistogram(const attn::ScoreHistogram& histogram)
{
    renderer_.setHistogram(histogram);
    setAccessibleDescription(titleText() + QLatin1Char(' ') + legendText(false) + QLatin1Char(' ')
                             + legendText(true));
    update();
}

QString ScoreHistogramView::titleText() const
{
    return renderer_.titleText();
}

QString ScoreHistogramView::legendText(bool scaled) const
{
    return renderer_.legendText(scaled);
}

QSize ScoreHistogramView::minimumSizeHint() const
{
    return {200, 160};
}

QSize ScoreHistogramView::sizeHint() const
{
    return {360, 300};
}

void ScoreHistogramView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    renderTo(painter, size());
}

void ScoreHistogramView::renderTo(QPainter& painter, const QSize& size) const
{
    renderer_.paint(painter, size,
                    {font(), palette().color(QPalette::Base), palette().color(QPalette::Text)});
}

}  // namespace attnlab
