// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Draws an attn::ScoreHistogram with QPainter: the raw scores q·k and the
// scaled ones q·k / √d_k as two histograms over the same bins, a title, a
// legend giving each spread (standard deviation), the share axis and the
// score axis. Serves ScoreHistogramView on screen and the exported pictures.

#include "score_histogram.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QString>

class QPainter;
class QSize;

namespace attnlab {

class ScoreHistogramRenderer {
    Q_DECLARE_TR_FUNCTIONS(ScoreHistogramView)
public:
    struct Style {
        QFont font;
        QColor background;  // QPalette::Base
        QColor text;        // QPalette::Text
    };

    void setHistogram(const attn::ScoreHistogram& histogram) { histogram_ = histogram; }
    const attn::ScoreHistogram& histogram() const { return histogram_; }
    QString titleText() const;
    QString legendText(bool scaled) const;

    // Everything laid out for (0, 0, size) in the painter's coordinates.
    void paint(QPainter& painter, const QSize& size, const Style& style) const;

private:
    attn::ScoreHistogram histogram_;
};

}  // namespace attnlab
