// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The raw scores q·k and the scaled ones q·k / √d_k of the current result as
// two histograms over the same bins: the raw ones widen with d_k while the
// scaled ones keep their width. Bars are the share of the counted pairs in
// each bin; the legend gives each spread (standard deviation) and says when
// the queries were sampled.
//
// Draws an attn::ScoreHistogram (attn::scoreHistogram) through
// ScoreHistogramRenderer and computes nothing itself.

#include "score_histogram.h"
#include "scorehistogramrenderer.h"

#include <QWidget>

namespace attnlab {

class ScoreHistogramView : public QWidget {
    Q_OBJECT
public:
    explicit ScoreHistogramView(QWidget* parent = nullptr);

    void setHistogram(const attn::ScoreHistogram& histogram);
    const attn::ScoreHistogram& histogram() const { return renderer_.histogram(); }

    // Draws the view (title, bars, axes, legend) laid out for `size` in the
    // painter's current coordinates, for export and tests.
    void renderTo(QPainter& painter, const QSize& size) const;
    QString titleText() const;
    QString legendText(bool scaled) const;

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    ScoreHistogramRenderer renderer_;
};

}  // namespace attnlab
