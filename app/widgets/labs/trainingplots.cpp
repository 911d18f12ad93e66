// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingplots.h"

#include "colormap.h"
#include "plotpicture.h"
#include "scalinglabplots.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QScopeGuard>
#include <QWidget>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

constexpr int kMaxRuns = 3;

struct Colours {
    QColor runs[kMaxRuns];
    QColor text, grid, background, faded;
};

Colours coloursOf(const QPalette& pal)
{
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    Colours c;
    c.runs[0] = colormap::scaledCurve(dark);
    c.runs[1] = colormap::rawCurve(dark);
    c.runs[2] = dark ? QColor(0x66, 0xc2, 0xa5) : QColor(0x1b, 0x9e, 0x77);  // ColorBrewer Dark2/Set2 green
    c.text = pal.color(QPalette::WindowText);
    c.background = pal.color(QPalette::Base);
    c.grid = pal.color(QPalette::Mid);
    c.faded = QColor((c.text.red() + c.background.red()) / 2, (c.text.green() + c.background.green()) / 2,
                     (c.text.blue() + c.background.blue()) / 2);
    return c;
}

int runIndex(attn::TrainingScale scale)
{
    switch (scale) {
    case attn::TrainingScale::SqrtDk: return 0;
    case attn::TrainingScale::None: return 1;
    case attn::TrainingScale::Custom: return 2;
    }
    return 0;
}

QString number(double v, int digits = 4)
{
    return QLocale().toString(v, 'g', digits);
}

// The legend where the curves usually are not: rising curves keep the
// lower right corner free of it, falling ones the upper right.
Qt::Alignment legendCorner(int plot)
{
    const bool rising = plot == TrainingPlots::AccuracyPlot || plot == TrainingPlots::MaxWeightPlot;
    return Qt::AlignRight | (rising ? Qt::AlignBottom : Qt::AlignTop);
}

}  // namespace

TrainingPlots::TrainingPlots(QWidget* parent)
{
    for (QCustomPlot*& p : plots_) {
        p = new QCustomPlot(parent);
        p->setPlottingHint(QCP::phImmediateRefresh, false);
        p->setMinimumSize(minimumPlotSize());
    }
    palette_ = parent->palette();
    setUp(parent->font());
    ensureGraphs(2);
    applyColours(palette_);
}

QString TrainingPlots::title(Plot which)
{
    switch (which) {
    case LossPlot: return tr("Loss (cross-entropy)");
    case AccuracyPlot: return tr("Accuracy");
    case GradientPlot: return tr("Gradient norms |∇W_q|, |∇W_k| dashed");
    case MaxWeightPlot: return tr("Mean largest attention weight");
    case EntropyPlot: return tr("Mean attention entropy (nats)");
    case SaturatedPlot: return tr("Saturated on a wrong key (weight > 0.99)");
    }
    return QString();
}

QString TrainingPlots::fileStem(Plot which)
{
    switch (which) {
    case LossPlot: return QStringLiteral("training_loss");
    case AccuracyPlot: return QStringLiteral("training_accuracy");
    case GradientPlot: return QStringLiteral("training_grad_norm");
    case MaxWeightPlot: return QStringLiteral("training_max_weight");
    case EntropyPlot: return QStringLiteral("training_entropy");
    case SaturatedPlot: return QStringLiteral("training_saturated_wrong");
    }
    return QString();
}

std::string TrainingPlots::measure(Plot which)
{
    switch (which) {
    case LossPlot: return "loss";
    case AccuracyPlot: return "accuracy";
    case GradientPlot: return "grad_norm";
    case MaxWeightPlot: return "max_weight";
    case EntropyPlot: return "entropy";
    case SaturatedPlot: return "saturated_wrong";
    }
    return {};
}

QString TrainingPlots::runName(const attn::TrainingRunCurves& run)
{
    switch (run.scale) {
    case attn::TrainingScale::SqrtDk: return tr("scaled ÷√d_k = %1").arg(number(run.divisor, 4));
    case attn::TrainingScale::None: return tr("unscaled ÷1");
    case attn::TrainingScale::Custom: return tr("custom ÷%1").arg(number(run.divisor, 4));
    }
    return QString();
}

QColor TrainingPlots::runColour(attn::TrainingScale scale, const QPalette& palette)
{
    return coloursOf(palette).runs[runIndex(scale)];
}

void TrainingPlots::setUp(const QFont& font)
{
    const QString yLabels[kPlotCount] = {
        tr("loss"),           tr("accuracy"),       tr("Frobenius norm (log)"),
        tr("largest weight"), tr("entropy (nats)"), tr("fraction")};
    QFont titleFont = font;
    titleFont.setBold(true);
    for (int i = 0; i < kPlotCount; ++i) {
        QCustomPlot* p = plots_[std::size_t(i)];
        p->setAccessibleName(title(Plot(i)));
        p->setNoAntialiasingOnDrag(true);
        p->plotLayout()->insertRow(0);
        titles_[std::size_t(i)] = new QCPTextElement(p, title(Plot(i)), titleFont);
        p->plotLayout()->addElement(0, 0, titles_[std::size_t(i)]);
        // On screen the loss plot's legend names the colours for all six
        // (they are small); each picture has its own.
        p->legend->setVisible(i == LossPlot);
        p->legend->setBorderPen(Qt::NoPen);
        p->legend->setRowSpacing(-2);
        p->axisRect()->insetLayout()->setInsetAlignment(0, legendCorner(i));
        p->xAxis->setLabel(tr("step"));
        p->xAxis->setRange(0, 400);
        p->yAxis->setLabel(yLabels[i]);
        p->yAxis->setNumberFormat(QStringLiteral("g"));
    }
    plots_[AccuracyPlot]->yAxis->setRange(0.0, 1.04);
    plots_[MaxWeightPlot]->yAxis->setRange(0.0, 1.04);
    plots_[SaturatedPlot]->yAxis->setRange(0.0, 1.04);
    plots_[EntropyPlot]->yAxis->setRange(0.0, 3.6);
    QCustomPlot* g = plots_[GradientPlot];
    QSharedPointer<QCPAxisTickerLog> logTicker(new QCPAxisTickerLog);
    g->yAxis->setTicker(logTicker);
    g->yAxis->setScaleType(QCPAxis::stLogarithmic);
    g->yAxis->setRange(1e-4, 10);
    targetLine_ = new QCPItemStraightLine(plots_[LossPlot]);
    targetLine_->setSelectable(false);
    targetLine_->setPen(QPen(Qt::black, 1.2, Qt::DashLine));
    setLossTarget(lossTarget_);
}

void TrainingPlots::ensureGraphs(int runs)
{
    for (int i = 0; i < kPlotCount; ++i) {
        QCustomPlot* p = plots_[std::size_t(i)];
        const int wanted = i == GradientPlot ? 2 * runs : runs;
        if (p->graphCount() == wanted)
            continue;
        p->clearGraphs();
        for (int k = 0; k < wanted; ++k) {
            QCPGraph* graph = p->addGraph();
            graph->setPen(
                QPen(Qt::black, 2.0, (i == GradientPlot && k % 2 == 1) ? Qt::DashLine : Qt::SolidLine));
            // One legend entry per run; the gradient's W_k lines share the W_q colour.
            if (i == GradientPlot && k % 2 == 1)
                graph->removeFromLegend();
        }
    }
}

void TrainingPlots::applyColours(const QPalette& pal)
{
    palette_ = pal;
    const Colours c = coloursOf(pal);
    for (int i = 0; i < kPlotCount; ++i) {
        QCustomPlot* p = plots_[std::size_t(i)];
        p->setBackground(c.background);
        p->axisRect()->setBackground(c.background);
        for (QCPAxis* axis : {p->xAxis, p->yAxis, p->xAxis2, p->yAxis2}) {
            axis->setBasePen(QPen(c.text));
            axis->setTickPen(QPen(c.text));
            axis->setSubTickPen(QPen(c.text));
            axis->setTickLabelColor(c.text);
            axis->setLabelColor(c.text);
            axis->grid()->setPen(QPen(c.grid, 0, Qt::DotLine));
            axis->grid()->setSubGridPen(Qt::NoPen);
            axis->grid()->setZeroLinePen(Qt::NoPen);
        }
        QColor legendBack = c.background;
        legendBack.setAlpha(200);
        p->legend->setBrush(legendBack);
        p->legend->setTextColor(c.text);
        titles_[std::size_t(i)]->setTextColor(c.text);
        for (int k = 0; k < p->graphCount(); ++k) {
            const int slot = i == GradientPlot ? k / 2 : k;
            const int run = slot < int(curves_.size()) ? runIndex(curves_[std::size_t(slot)].scale) : slot;
            QPen pen = p->graph(k)->pen();
            pen.setColor(c.runs[std::clamp(run, 0, kMaxRuns - 1)]);
            p->graph(k)->setPen(pen);
        }
    }
    QPen target = targetLine_->pen();
    target.setColor(c.faded);
    targetLine_->setPen(target);
}

void TrainingPlots::fitTitles(int width)
{
    titleWidth_ = width;
    for (int i = 0; i < kPlotCount; ++i) {
        QCPTextElement* t = titles_[std::size_t(i)];
        const QString whole = tr("%1 · d_k = %2").arg(title(Plot(i))).arg(dK_);
        // The element's own margins and a few pixels either side.
        const bool fits = QFontMetrics(t->font()).horizontalAdvance(whole) + 16 <= width;
        t->setText(fits ? whole : title(Plot(i)));
    }
}

void TrainingPlots::setCurves(const std::vector<attn::TrainingRunCurves>& curves, int steps, int nKeys,
                              int dK)
{
    dK_ = dK;
    fitTitles(titleWidth_);
    const bool runsChanged =
        curves.size() != curves_.size()
        || !std::equal(curves.begin(), curves.end(), curves_.begin(), [](const auto& a, const auto& b) {
               return a.scale == b.scale && a.divisor == b.divisor;
           });
    curves_ = curves;
    ensureGraphs(int(curves.size()));
    if (runsChanged)
        applyColours(palette_);
    const double lnN = nKeys > 1 ? std::log(double(nKeys)) : 1.0;
    plots_[EntropyPlot]->yAxis->setRange(0.0, lnN * 1.08);
    double gradLo = 1e300, gradHi = 0.0;
    for (std::size_t r = 0; r < curves.size(); ++r) {
        const attn::TrainingRunCurves& run = curves[r];
        const int n = int(run.size());
        QVector<double> x(n);
        for (int s = 0; s < n; ++s)
            x[s] = s + 1;
        const auto set = [&](Plot plot, int graph, const std::vector<double>& y) {
            QCPGraph* g = plots_[plot]->graph(graph);
            g->setData(x, QVector<double>(y.begin(), y.end()), true);
        };
        const int k = int(r);
        set(LossPlot, k, run.loss);
        set(AccuracyPlot, k, run.accuracy);
        set(GradientPlot, 2 * k, run.gradNormQ);
        set(GradientPlot, 2 * k + 1, run.gradNormK);
        set(MaxWeightPlot, k, run.maxWeight);
        set(EntropyPlot, k, run.entropy);
        set(SaturatedPlot, k, run.saturatedWrong);
        for (const std::vector<double>* v : {&run.gradNormQ, &run.gradNormK})
            for (double g : *v)
                if (g > 0 && std::isfinite(g)) {
                    gradLo = std::min(gradLo, g);
                    gradHi = std::max(gradHi, g);
                }
        const QString name = runName(run);
        for (Plot p : {LossPlot, AccuracyPlot, MaxWeightPlot, EntropyPlot, SaturatedPlot})
            plots_[p]->graph(k)->setName(name);
        plots_[GradientPlot]->graph(2 * k)->setName(name);
        plots_[GradientPlot]->graph(2 * k + 1)->setName(name);
    }
    if (gradHi > 0)
        plots_[GradientPlot]->yAxis->setRange(gradLo / 2, gradHi * 2);
    for (QCustomPlot* p : plots_)
        p->xAxis->setRange(0, std::max(steps, 1));
    updateLossRange();
    for (QCustomPlot* p : plots_)
        p->replot(QCustomPlot::rpQueuedReplot);
}

void TrainingPlots::updateLossRange()
{
    QCustomPlot* p = plots_[LossPlot];
    double lo = 1e300, hi = 0.0;
    for (const attn::TrainingRunCurves& run : curves_)
        for (double v : run.loss)
            if (std::isfinite(v) && v > 0) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    if (hi <= 0) {
        lo = 0.01;
        hi = 4.0;
    }
    lo = std::min(lo, lossTarget_ > 0 ? lossTarget_ : lo);
    hi = std::max(hi, lossTarget_);
    if (logLoss_) {
        p->yAxis->setScaleType(QCPAxis::stLogarithmic);
        p->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        p->yAxis->setRange(lo / 1.5, hi * 1.5);
    } else {
        p->yAxis->setScaleType(QCPAxis::stLinear);
        p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        p->yAxis->setRange(0.0, hi * 1.05);
    }
}

void TrainingPlots::setLossLogScale(bool log)
{
    logLoss_ = log;
    updateLossRange();
    plots_[LossPlot]->replot(QCustomPlot::rpQueuedReplot);
}

void TrainingPlots::setLossTarget(double target)
{
    lossTarget_ = target;
    targetLine_->point1->setCoords(0.0, target);
    targetLine_->point2->setCoords(1.0, target);
    updateLossRange();
    plots_[LossPlot]->replot(QCustomPlot::rpQueuedReplot);
}

attn::Expected<std::vector<OutputFile>> TrainingPlots::imageFiles(const QStringList& formats,
                                                                  const QSize& size, const QPalette& shown)
{
    const attn::Status valid = checkPlotPictures(formats, size);
    if (!valid)
        return valid.error();
    const QPalette light = ScalingLabPlots::exportPalette();
    const bool recolour = coloursOf(shown).background != coloursOf(light).background;
    if (recolour)
        applyColours(light);
    for (QCustomPlot* p : plots_)
        p->legend->setVisible(true);
    const int shownWidth = titleWidth_;
    fitTitles(kAnyWidth);
    const auto restore = qScopeGuard([&] {
        fitTitles(shownWidth);
        if (recolour)
            applyColours(shown);
        for (int i = 0; i < kPlotCount; ++i)
            plots_[std::size_t(i)]->legend->setVisible(i == LossPlot);
    });
    std::vector<PlotPictureSource> sources;
    for (int i = 0; i < kPlotCount; ++i)
        sources.push_back(
            {plots_[std::size_t(i)], fileStem(Plot(i)).toStdString(), titles_[std::size_t(i)]->text()});
    return plotPictureFiles(sources, formats, size);
}

}  // namespace attnlab
