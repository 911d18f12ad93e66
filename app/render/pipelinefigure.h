// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The pipeline figure of the exported pictures: the raw, scaled and weights
// maps in a row with the operations between them (÷ the divisor, the causal
// mask, softmax), a title naming the sentence, a subtitle with the settings,
// and the formula as a caption. ViewExporter owns the maps and draws them
// through this figure.

#include "attentionsnapshot.h"

#include <QCoreApplication>
#include <QSize>
#include <QString>

#include <array>

class QPainter;

namespace attnlab {

class HeatmapRenderer;

class PipelineFigure {
    Q_DECLARE_TR_FUNCTIONS(ViewExporter)
public:
    // The maps of the raw scores, the scaled scores and the weights, set up
    // by the caller (cells, ranges, titles); `snapshot` and the maps must
    // outlive the figure; `divisor` as the titles write it ("√4").
    PipelineFigure(const std::array<HeatmapRenderer*, 3>& maps, const AttentionSnapshot& snapshot,
                   QString divisor);

    // Fills (0, 0, size) and sets the maps' font to the figure's size.
    void paint(QPainter& painter, const QSize& size) const;

private:
    std::array<HeatmapRenderer*, 3> maps_;
    const AttentionSnapshot& snapshot_;
    QString divisor_;
};

}  // namespace attnlab
