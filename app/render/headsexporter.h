// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pictures of a multi-head result for slides and print: the head grid (every
// head's map and the average, with a title), the heads' average weights,
// each head's raw scores, scaled scores and weights as full labelled maps,
// the concatenation [Z_1 | … | Z_h] and the output projection. Drawn by
// HeadGridRenderer and HeatmapRenderer on white with black text, in PNG,
// SVG or PDF through pictureencoder; the files are named as the numbers are
// (weights_head2.png beside weights_head2.npy).

#include "attentionexport.h"
#include "expected.h"
#include "headgridrenderer.h"
#include "multihead.h"
#include "pictureencoder.h"
#include "stagedwrite.h"
#include "weightsscale.h"

#include <QCoreApplication>
#include <QSize>
#include <QString>
#include <QStringList>

#include <memory>
#include <string>
#include <vector>

class QPainter;

namespace attnlab {

// The concat's column labels, "h1:1" … "h<h>:<d_v>": which head each column
// comes from (the panel's map and the exported picture alike).
QStringList concatColumnLabels(int heads, int dV);

class HeadsExporter {
    Q_DECLARE_TR_FUNCTIONS(HeadsExporter)
public:
    // kind: what the grid's tiles show; selectedHead outlined (-1: none).
    HeadsExporter(std::shared_ptr<const attn::MultiHeadResult> result, const QStringList& tokenLabels,
                  HeadMapKind kind = HeadMapKind::Weights, int selectedHead = -1,
                  WeightsScaleMode weightsMode = WeightsScaleMode::Automatic);
    ~HeadsExporter();
    HeadsExporter(const HeadsExporter&) = delete;
    HeadsExporter& operator=(const HeadsExporter&) = delete;

    bool isEmpty() const { return !result_ || result_->headCount() == 0; }

    void paintGrid(QPainter& painter, const QSize& size) const;
    void paintAverage(QPainter& painter, const QSize& size) const;
    // Head `head`'s (0-based) map of `kind`, with its tokens and colour bar.
    void paintHead(QPainter& painter, const QSize& size, int head, HeadMapKind kind) const;
    void paintConcat(QPainter& painter, const QSize& size) const;
    void paintOutput(QPainter& painter, const QSize& size) const;  // nothing without a projection

    // Every picture in `format`: head_grid, weights_average, per head i
    // (1-based) scores_head<i>, scaled_scores_head<i>, weights_head<i>, then
    // concat and output (with a projection). An empty size takes each
    // picture's default (grid 1200 x 900, maps 900 x 800, concat and output
    // 1200 x 600). Drawn here, not when written.
    attn::Expected<std::vector<OutputFile>> files(ImageFormat format, const QSize& size = QSize()) const;

    // The grid's numbers, one row per (query, key) cell (viewnumbers.h):
    // score_head<i>, scaled_score_head<i>, weight_head<i> for every head,
    // then weight_average. Empty when they would be more than
    // kMaxGridNumbers numbers (gridNumbersProblem says so).
    static constexpr long long kMaxGridNumbers = 10000000;
    std::string gridNumbers() const;
    QString gridNumbersProblem() const;

    static QSize gridSize() { return {1200, 900}; }
    static QSize mapSize() { return {900, 800}; }
    static QSize matrixSize() { return {1200, 600}; }
    // "scores_head2", ...: a head map's file stem.
    static QString headStem(int head, HeadMapKind kind);

private:
    void paintMap(QPainter& painter, const QSize& size, HeatmapRenderer& map) const;
    void prepareMatrix(HeatmapRenderer* map, const attn::Matrix* m, const QString& title,
                       const QStringList& columns) const;

    std::shared_ptr<const attn::MultiHeadResult> result_;
    QStringList tokens_;
    HeadMapKind kind_;
    int selected_;
    WeightsScaleMode weightsMode_;
    std::unique_ptr<HeadGridRenderer> grid_;  // for the grid and, per kind, the heads' colours
};

}  // namespace attnlab
