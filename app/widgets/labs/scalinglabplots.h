// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The d_k lab's four QCustomPlots (see ScalingLabView): their axes, graphs,
// legends, titles and d_k marker, their colours (unscaled red, scaled blue,
// theory in a faded text colour) and their pictures. They are children of
// the widget given; that widget lays them out and handles their events.

#include "expected.h"
#include "scaling_lab.h"
#include "stagedwrite.h"

#include <QCoreApplication>
#include <QPalette>
#include <QSize>
#include <QStringList>

#include <array>
#include <vector>

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;
class QCPTextElement;
class QWidget;

namespace attnlab {

class ScalingLabPlots {
    Q_DECLARE_TR_FUNCTIONS(ScalingLabPlots)
public:
    enum Plot { VariancePlot, MaxWeightPlot, EntropyPlot, GradientPlot };
    static constexpr int kPlotCount = 4;
    // Graph order within every plot.
    enum Graph { RawGraph, ScaledGraph, TheoryGraph, SecondTheoryGraph };
    static QSize minimumPlotSize() { return QSize(300, 230); }

    // Made in `parent` with its font and palette, without curves: empty
    // graphs, no legend, no marker.
    explicit ScalingLabPlots(QWidget* parent);

    QCustomPlot* plot(int which) const { return plots_[std::size_t(which)]; }
    const std::array<QCustomPlot*, kPlotCount>& plots() const { return plots_; }

    // The curves into the graphs, with the theory lines of their n, the
    // ranges and the titles; replots.
    void setCurves(const attn::ScalingLabCurves& curves);
    void setLegendsVisible(bool visible);
    // The vertical marker at dK with its label, or none.
    void setMarker(int dK, bool shown);
    void applyColours(const QPalette& palette);

    // The hover text of one plot at a grid index of `curves` (see
    // ScalingLabView::valuesText).
    static QString valuesText(const attn::ScalingLabCurves& curves, Plot which, int index);

    // See ScalingLabView::fileStem, imageFiles and exportPalette; `shown`
    // is the palette the plots have on screen, restored afterwards.
    static QString fileStem(Plot which);
    attn::Expected<std::vector<OutputFile>> imageFiles(const QStringList& formats, const QSize& size,
                                                       const QPalette& shown);
    static QPalette exportPalette();

private:
    void setUp(const QFont& font);

    std::array<QCustomPlot*, kPlotCount> plots_{};
    std::array<QCPItemStraightLine*, kPlotCount> markers_{};
    std::array<QCPItemText*, kPlotCount> markerLabels_{};
    std::array<QCPTextElement*, kPlotCount> titles_{};
    QCPItemText* uniformLabel_ = nullptr;  // "uniform: ln n" on the entropy plot
};

}  // namespace attnlab
