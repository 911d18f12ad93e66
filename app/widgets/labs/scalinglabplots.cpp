// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalinglabplots.h"

#include "colormap.h"
#include "pictureencoder.h"
#include "plotpicture.h"
#include "viewexportcontroller.h"

#include <qcustomplot.h>

#include <QScopeGuard>
#include <QWidget>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// Unscaled in red, scaled in blue (the heatmaps' diverging ends, lighter on
// a dark background, as in the focus plot), theory and marker in the text
// colour, the theory a little faded towards the background.
struct PlotColours {
    QColor raw, scaled, theory, marker, text, grid, background;
};

PlotColours plotColours(const QPalette& pal)
{
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    PlotColours c;
    c.raw = colormap::rawCurve(dark);
    c.scaled = colormap::scaledCurve(dark);
    c.text = pal.color(QPalette::WindowText);
    c.background = pal.color(QPalette::Base);
    c.marker = c.text;
    const QColor bg = c.background;
    c.theory = QColor((c.text.red() * 2 + bg.red()) / 3, (c.text.green() * 2 + bg.green()) / 3,
                      (c.text.blue() * 2 + bg.blue()) / 3);
    c.grid = pal.color(QPalette::Mid);
    return c;
}

constexpr double kAxisLow = 1.0 / 1.12;  // a little room around 1 and 1024
constexpr double kAxisHigh = 1024.0 * 1.12;

QVector<double> toQVector(const std::vector<double>& v)
{
    return QVector<double>(v.begin(), v.end());
}

QVector<double> toQVector(const std::vector<int>& v)
{
    return QVector<double>(v.begin(), v.end());
}

QString number(double v, int digits = 4)
{
    return QLocale().toString(v, 'g', digits);
}

}  // namespace

ScalingLabPlots::ScalingLabPlots(QWidget* parent)
{
    for (QCustomPlot*& p : plots_) {
        p = new QCustomPlot(parent);
        // Replots join the window's next paint instead of repainting at once.
        p->setPlottingHint(QCP::phImmediateRefresh, false);
        p->setMinimumSize(minimumPlotSize());
        p->setMouseTracking(true);
    }
    setUp(parent->font());
    applyColours(parent->palette());
    setMarker(1, false);
    setLegendsVisible(false);
}

void ScalingLabPlots::setUp(const QFont& font)
{
    const QString titles[kPlotCount] = {
        tr("Variance of the scores"),
        tr("Mean largest softmax weight"),
        tr("Mean softmax entropy"),
        tr("Mean softmax Jacobian norm (the gradient back)"),
    };
    const QString yLabels[kPlotCount] = {
        tr("variance (log scale)"),
        tr("largest weight"),
        tr("entropy (nats)"),
        tr("Jacobian norm (Frobenius)"),
    };
    QFont titleFont = font;
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.1);

    for (int i = 0; i < kPlotCount; ++i) {
        QCustomPlot* p = plots_[i];
        p->setAccessibleName(titles[i]);
        p->setNoAntialiasingOnDrag(true);
        p->plotLayout()->insertRow(0);
        titles_[i] = new QCPTextElement(p, titles[i], titleFont);
        p->plotLayout()->addElement(0, 0, titles_[i]);

        // The legend in its own row under the axes, where it hides no curve.
        auto* legendRow = new QCPLayoutGrid;
        p->plotLayout()->addElement(2, 0, legendRow);
        p->plotLayout()->setRowStretchFactor(2, 0.001);
        legendRow->setMargins(QMargins(6, 0, 6, 4));
        legendRow->addElement(0, 0, p->legend);
        p->legend->setVisible(true);
        p->legend->setFillOrder(QCPLegend::foColumnsFirst);
        p->legend->setWrap(2);
        p->legend->setBorderPen(Qt::NoPen);
        p->legend->setBrush(Qt::NoBrush);
        p->legend->setRowSpacing(0);
        p->legend->setColumnSpacing(12);

        QSharedPointer<QCPAxisTickerLog> xTicker(new QCPAxisTickerLog);
        xTicker->setLogBase(2);
        xTicker->setSubTickCount(0);
        xTicker->setTickCount(11);
        p->xAxis->setTicker(xTicker);
        p->xAxis->setScaleType(QCPAxis::stLogarithmic);
        p->xAxis->setNumberFormat(QStringLiteral("f"));
        p->xAxis->setNumberPrecision(0);
        p->xAxis->setRange(kAxisLow, kAxisHigh);
        p->xAxis->setLabel(tr("d_k (log scale)"));
        p->yAxis->setLabel(yLabels[i]);

        QCPGraph* raw = p->addGraph();
        raw->setPen(QPen(Qt::black, 2.2));
        raw->setName(i == VariancePlot ? tr("unscaled q·k") : tr("unscaled softmax(q·k)"));
        QCPGraph* scaled = p->addGraph();
        scaled->setPen(QPen(Qt::black, 2.2));
        scaled->setName(i == VariancePlot ? tr("scaled q·k/√d_k") : tr("scaled softmax(q·k/√d_k)"));
        if (i != GradientPlot) {
            QCPGraph* theory = p->addGraph();
            theory->setPen(QPen(Qt::black, 1.4, Qt::DashLine));
            // setCurves adds the value of n.
            theory->setName(i == MaxWeightPlot ? tr("uniform: 1/n") : tr("uniform limit: ln n"));
        }
        if (i == VariancePlot) {
            // Measured points on the theory lines: dots, so the lines show.
            raw->setLineStyle(QCPGraph::lsNone);
            raw->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
            scaled->setLineStyle(QCPGraph::lsNone);
            scaled->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
            raw->setName(tr("measured: unscaled q·k"));
            scaled->setName(tr("measured: scaled q·k/√d_k"));
            QCPGraph* one = p->addGraph();
            one->setPen(QPen(Qt::black, 1.4, Qt::DotLine));
            one->setName(tr("theory: 1"));
            p->graph(TheoryGraph)->setName(tr("theory: d_k"));
            QSharedPointer<QCPAxisTickerLog> yTicker(new QCPAxisTickerLog);
            yTicker->setSubTickCount(8);
            p->yAxis->setTicker(yTicker);
            p->yAxis->setScaleType(QCPAxis::stLogarithmic);
            p->yAxis->setNumberFormat(QStringLiteral("g"));
            p->yAxis->setNumberPrecision(6);
            p->yAxis->setRange(0.3, 3000);
        }

        markers_[i] = new QCPItemStraightLine(p);
        markers_[i]->setObjectName(QStringLiteral("dkMarker"));
        markers_[i]->setPen(QPen(Qt::black, 1.2, Qt::DashDotLine));
        markers_[i]->setSelectable(false);
        markerLabels_[i] = new QCPItemText(p);
        markerLabels_[i]->position->setTypeX(QCPItemPosition::ptPlotCoords);
        markerLabels_[i]->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        markerLabels_[i]->setPadding(QMargins(4, 2, 4, 2));
        // Above the axes, in a margin kept free for it, so it covers no curve.
        markerLabels_[i]->setClipToAxisRect(false);
        p->axisRect()->setAutoMargins(QCP::msLeft | QCP::msRight | QCP::msBottom);
        p->axisRect()->setMargins(QMargins(0, QFontMetrics(font).height() + 8, 0, 0));
        markerLabels_[i]->setSelectable(false);
    }
    uniformLabel_ = new QCPItemText(plots_[EntropyPlot]);
    uniformLabel_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    uniformLabel_->setSelectable(false);
}

void ScalingLabPlots::applyColours(const QPalette& pal)
{
    const PlotColours c = plotColours(pal);
    const auto recolour = [](QCPGraph* g, const QColor& colour) {
        QPen pen = g->pen();
        pen.setColor(colour);
        g->setPen(pen);
        QCPScatterStyle scatter = g->scatterStyle();
        if (!scatter.isNone()) {
            scatter.setPen(QPen(colour));
            scatter.setBrush(colour);
            g->setScatterStyle(scatter);
        }
    };
    for (int i = 0; i < kPlotCount; ++i) {
        QCustomPlot* p = plots_[i];
        p->setBackground(c.background);
        p->axisRect()->setBackground(c.background);
        for (QCPAxis* axis : {p->xAxis, p->yAxis, p->xAxis2, p->yAxis2}) {
            axis->setBasePen(QPen(c.text));
            axis->setTickPen(QPen(c.text));
            axis->setSubTickPen(QPen(c.text));
            axis->setTickLabelColor(c.text);
            axis->setLabelColor(c.text);
            axis->grid()->setPen(QPen(c.grid, 0, Qt::DotLine));
            axis->grid()->setSubGridPen(QPen(c.grid, 0, Qt::DotLine));
            axis->grid()->setZeroLinePen(Qt::NoPen);
        }
        p->legend->setTextColor(c.text);
        titles_[i]->setTextColor(c.text);
        recolour(p->graph(RawGraph), c.raw);
        recolour(p->graph(ScaledGraph), c.scaled);
        for (int g = TheoryGraph; g < p->graphCount(); ++g)
            recolour(p->graph(g), c.theory);
        QPen markerPen = markers_[i]->pen();
        markerPen.setColor(c.marker);
        markers_[i]->setPen(markerPen);
        markerLabels_[i]->setColor(c.marker);
    }
    uniformLabel_->setColor(c.theory);
}

void ScalingLabPlots::setCurves(const attn::ScalingLabCurves& curves)
{
    const QVector<double> x = toQVector(curves.dK);
    const int n = curves.nKeys;
    const double lnN = n > 0 ? std::log(double(n)) : 0.0;

    QCustomPlot* v = plots_[VariancePlot];
    v->graph(RawGraph)->setData(x, toQVector(curves.varRaw), true);
    v->graph(ScaledGraph)->setData(x, toQVector(curves.varScaled), true);
    v->graph(TheoryGraph)->setData({1.0, 1024.0}, {1.0, 1024.0}, true);
    v->graph(SecondTheoryGraph)->setData({1.0, 1024.0}, {1.0, 1.0}, true);
    double hi = 1024.0, lo = 1.0;
    for (std::size_t g = 0; g < curves.size(); ++g) {
        hi = std::max({hi, curves.varRaw[g], curves.varScaled[g]});
        lo = std::min({lo, curves.varRaw[g], curves.varScaled[g]});
    }
    v->yAxis->setRange(lo / 2.5, hi * 2.5);

    QCustomPlot* m = plots_[MaxWeightPlot];
    m->graph(RawGraph)->setData(x, toQVector(curves.maxWeightRaw), true);
    m->graph(ScaledGraph)->setData(x, toQVector(curves.maxWeightScaled), true);
    m->graph(TheoryGraph)->setData({1.0, 1024.0}, {1.0 / n, 1.0 / n}, true);
    m->graph(TheoryGraph)->setName(tr("uniform: 1/n = %1").arg(number(1.0 / n, 3)));
    m->yAxis->setRange(0.0, 1.04);
    titles_[MaxWeightPlot]->setText(tr("Mean largest softmax weight over n = %1 keys").arg(n));

    QCustomPlot* e = plots_[EntropyPlot];
    e->graph(RawGraph)->setData(x, toQVector(curves.entropyRaw), true);
    e->graph(ScaledGraph)->setData(x, toQVector(curves.entropyScaled), true);
    e->graph(TheoryGraph)->setData({1.0, 1024.0}, {lnN, lnN}, true);
    e->graph(TheoryGraph)->setName(tr("uniform limit: ln n = %1").arg(number(lnN, 3)));
    e->yAxis->setRange(0.0, lnN * 1.15);
    uniformLabel_->position->setCoords(1.1, lnN);
    uniformLabel_->setText(tr("uniform: ln %1").arg(n));
    titles_[EntropyPlot]->setText(tr("Mean softmax entropy over n = %1 keys").arg(n));

    QCustomPlot* j = plots_[GradientPlot];
    j->graph(RawGraph)->setData(x, toQVector(curves.gradNormRaw), true);
    j->graph(ScaledGraph)->setData(x, toQVector(curves.gradNormScaled), true);
    double top = 0.0;
    for (std::size_t g = 0; g < curves.size(); ++g)
        top = std::max({top, curves.gradNormRaw[g], curves.gradNormScaled[g]});
    j->yAxis->setRange(0.0, top > 0 ? top * 1.15 : 1.0);

    for (QCustomPlot* p : plots_)
        p->replot();
}

void ScalingLabPlots::setLegendsVisible(bool visible)
{
    for (QCustomPlot* p : plots_)
        p->legend->setVisible(visible);
}

void ScalingLabPlots::setMarker(int dK, bool shown)
{
    const double d = dK;
    // Near the right end the label goes to the left of the line.
    const bool rightEnd = d > 180;
    for (int i = 0; i < kPlotCount; ++i) {
        markers_[i]->setVisible(shown);
        markerLabels_[i]->setVisible(shown);
        markers_[i]->point1->setCoords(d, 1.0);
        markers_[i]->point2->setCoords(d, 2.0);
        markerLabels_[i]->position->setCoords(d, 0.0);
        markerLabels_[i]->setPositionAlignment(Qt::AlignBottom | (rightEnd ? Qt::AlignRight : Qt::AlignLeft));
        markerLabels_[i]->setText(tr("d_k = %1").arg(dK));
    }
}
QString ScalingLabPlots::valuesText(const attn::ScalingLabCurves& curves, Plot which, int index)
{
    if (index < 0 || index >= int(curves.size()))
        return QString();
    const std::size_t g = std::size_t(index);
    const int d = curves.dK[g];
    const int n = curves.nKeys;
    QString text = tr("d_k = %1").arg(d);
    switch (which) {
    case VariancePlot:
        text += QLatin1Char('\n')
                + tr("unscaled: %1 ± %2 (theory %3)")
                      .arg(number(curves.varRaw[g]), number(curves.varRawStdErr[g], 2))
                      .arg(d);
        text += QLatin1Char('\n')
                + tr("scaled: %1 ± %2 (theory 1)")
                      .arg(number(curves.varScaled[g]), number(curves.varScaledStdErr[g], 2));
        break;
    case MaxWeightPlot:
        text += QLatin1Char('\n') + tr("unscaled: %1").arg(number(curves.maxWeightRaw[g], 3));
        text += QLatin1Char('\n') + tr("scaled: %1").arg(number(curves.maxWeightScaled[g], 3));
        text += QLatin1Char('\n') + tr("uniform: 1/%1 = %2").arg(n).arg(number(1.0 / n, 3));
        break;
    case EntropyPlot:
        text += QLatin1Char('\n') + tr("unscaled: %1 nats").arg(number(curves.entropyRaw[g], 3));
        text += QLatin1Char('\n') + tr("scaled: %1 nats").arg(number(curves.entropyScaled[g], 3));
        text += QLatin1Char('\n') + tr("uniform: ln %1 = %2 nats").arg(n).arg(number(std::log(double(n)), 3));
        break;
    case GradientPlot:
        text += QLatin1Char('\n') + tr("unscaled: %1").arg(number(curves.gradNormRaw[g], 3));
        text += QLatin1Char('\n') + tr("scaled: %1").arg(number(curves.gradNormScaled[g], 3));
        break;
    }
    return text;
}

QPalette ScalingLabPlots::exportPalette()
{
    QPalette light(QColor(0xef, 0xef, 0xef), Qt::white);
    light.setColor(QPalette::WindowText, Qt::black);
    light.setColor(QPalette::Text, Qt::black);
    light.setColor(QPalette::Mid, QColor(0xb8, 0xb8, 0xb8));
    return light;
}

QString ScalingLabPlots::fileStem(Plot which)
{
    switch (which) {
    case VariancePlot: return QStringLiteral("scaling_lab_variance");
    case MaxWeightPlot: return QStringLiteral("scaling_lab_max_weight");
    case EntropyPlot: return QStringLiteral("scaling_lab_entropy");
    case GradientPlot: return QStringLiteral("scaling_lab_jacobian");
    }
    return QString();
}

attn::Expected<std::vector<OutputFile>> ScalingLabPlots::imageFiles(const QStringList& formats,
                                                                    const QSize& size, const QPalette& shown)
{
    const attn::Status valid = checkPlotPictures(formats, size);
    if (!valid)
        return valid.error();
    // Pictures are for slides and print: light whatever the window's theme.
    const bool recolour = plotColours(shown).background != plotColours(exportPalette()).background;
    if (recolour)
        applyColours(exportPalette());
    const auto restoreColours = qScopeGuard([&] {
        if (recolour)
            applyColours(shown);
    });
    std::vector<PlotPictureSource> sources;
    for (int i = 0; i < kPlotCount; ++i)
        sources.push_back({plots_[i], fileStem(Plot(i)).toStdString(), titles_[i]->text()});
    return plotPictureFiles(sources, formats, size);
}

}  // namespace attnlab
