// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The exported scaled-vs-unscaled comparison: softmax(Q Kᵀ) beside
// softmax(Q Kᵀ ÷ √d_k) over one result, with the mean largest weight and
// the mean entropy of each as the caption. The comparison and its two maps
// are made when first asked for.

#include "attention.h"
#include "scaling_lab.h"

#include <QCoreApplication>
#include <QSize>
#include <QStringList>

#include <array>
#include <memory>
#include <string>

class QPainter;

namespace attnlab {

class HeatmapRenderer;

class ScalingComparisonFigure {
    Q_DECLARE_TR_FUNCTIONS(ViewExporter)
public:
    // `result` must outlive the figure; `tokens` label the maps' rows and
    // columns, `focusRow` is outlined (-1 none), `sentence` is the title's.
    ScalingComparisonFigure(const attn::AttentionResult& result, QStringList tokens, int focusRow,
                            std::string sentence);
    ~ScalingComparisonFigure();
    ScalingComparisonFigure(const ScalingComparisonFigure&) = delete;
    ScalingComparisonFigure& operator=(const ScalingComparisonFigure&) = delete;

    // attn::compareScaling of the result, computed once.
    const attn::ScalingComparison& comparison() const;
    void paint(QPainter& painter, const QSize& size) const;

private:
    const attn::AttentionResult& result_;
    QStringList tokens_;
    int focusRow_;
    std::string sentence_;
    mutable std::shared_ptr<const attn::ScalingComparison> comparison_;
    mutable std::array<std::unique_ptr<HeatmapRenderer>, 2> maps_;
};

}  // namespace attnlab
