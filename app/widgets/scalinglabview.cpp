// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalinglabview.h"

#include "colormap.h"

#include "pictureencoder.h"
#include "viewexportcontroller.h"

#include <qcustomplot.h>

#include <QAbstractScrollArea>
#include <QBuffer>
#include <QCoreApplication>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPdfWriter>
#include <QProgressBar>
#include <QSpinBox>
#include <QScopeGuard>
#include <QToolTip>
#include <QVBoxLayout>

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

const QSize kPlotMinimum(300, 230);
constexpr int kGridSpacing = 6;

constexpr double kAxisLow = 1.0 / 1.12;  // a little room around 1 and 1024
constexpr double kAxisHigh = 1024.0 * 1.12;

// Graph order within every plot.
enum Graph { RawGraph, ScaledGraph, TheoryGraph, SecondTheoryGraph };

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

ScalingLabView::ScalingLabView(QWidget* parent) : QWidget(parent)
{
    keysSpin_ = new QSpinBox(this);
    keysSpin_->setObjectName(QStringLiteral("keysPerQuerySpin"));
    keysSpin_->setAccessibleName(tr("Keys per query"));
    keysSpin_->setRange(2, 128);
    keysSpin_->setValue(config_.nKeys);
    keysSpin_->setToolTip(
        tr("How many keys each random query attends to: the n of the "
           "softmax over n scores. The uniform limits 1/n and ln n move "
           "with it."));
    status_ = new QLabel(this);
    status_->setAccessibleName(tr("Status"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("scalingLabProgress"));
    progress_->setAccessibleName(tr("Progress of the computation"));
    progress_->setRange(0, 100);
    progress_->setFormat(tr("%p%"));
    progress_->hide();

    auto* controls = new QHBoxLayout;
    auto* keysLabel = new QLabel(tr("Ke&ys per query n:"), this);
    keysLabel->setBuddy(keysSpin_);
    controls->addWidget(keysLabel);
    controls->addWidget(keysSpin_);
    controls->addSpacing(12);
    controls->addWidget(progress_);
    controls->addWidget(status_, 1);

    grid_ = new QGridLayout;
    grid_->setSpacing(kGridSpacing);
    for (int i = 0; i < kPlotCount; ++i) {
        plots_[i] = new QCustomPlot(this);
        // Replots join the window's next paint instead of repainting at once.
        plots_[i]->setPlottingHint(QCP::phImmediateRefresh, false);
        plots_[i]->setMinimumSize(kPlotMinimum);
        plots_[i]->setMouseTracking(true);
        plots_[i]->installEventFilter(this);
    }
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(grid_, 1);
    arrangePlots(2);

    setUpPlots();
    updateStatus();

    connect(keysSpin_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int n) {
        attn::ScalingLabConfig config = config_;
        config.nKeys = n;
        config.samples = attn::defaultScalingLabSamples(n);
        compute(config);
    });
}

ScalingLabView::~ScalingLabView()
{
    stopWorker();
}

void ScalingLabView::arrangePlots(int columns)
{
    if (columns == columns_)
        return;
    columns_ = columns;
    for (QCustomPlot* p : plots_)
        grid_->removeWidget(p);
    for (int i = 0; i < kPlotCount; ++i)
        grid_->addWidget(plots_[i], i / columns, i % columns);
    for (int c = 0; c < kPlotCount; ++c)
        grid_->setColumnStretch(c, c < columns ? 1 : 0);
}

void ScalingLabView::reflow()
{
    // The space the view is given: its scroll area's viewport, else its own.
    const QSize space = parentWidget() ? parentWidget()->size() : size();
    const QMargins m = layout()->contentsMargins();
    const int controlsHeight = layout()->itemAt(0)->sizeHint().height() + layout()->spacing();
    const int fourAcross = 4 * kPlotMinimum.width() + 3 * kGridSpacing + m.left() + m.right();
    const int twoHigh = 2 * kPlotMinimum.height() + kGridSpacing + controlsHeight + m.top() + m.bottom();
    // A wide, low space (the window's lower half in docks) takes the four
    // plots in one row; otherwise two by two, which the plots read best in.
    arrangePlots(space.width() >= fourAcross && space.height() < twoHigh ? 4 : 2);
}

void ScalingLabView::setUpPlots()
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
    QFont titleFont = font();
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
        markers_[i]->setPen(QPen(Qt::black, 1.2, Qt::DashDotLine));
        markers_[i]->setSelectable(false);
        markerLabels_[i] = new QCPItemText(p);
        markerLabels_[i]->position->setTypeX(QCPItemPosition::ptPlotCoords);
        markerLabels_[i]->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        markerLabels_[i]->setPadding(QMargins(4, 2, 4, 2));
        // Above the axes, in a margin kept free for it, so it covers no curve.
        markerLabels_[i]->setClipToAxisRect(false);
        p->axisRect()->setAutoMargins(QCP::msLeft | QCP::msRight | QCP::msBottom);
        p->axisRect()->setMargins(QMargins(0, QFontMetrics(font()).height() + 8, 0, 0));
        markerLabels_[i]->setSelectable(false);
    }
    uniformLabel_ = new QCPItemText(plots_[EntropyPlot]);
    uniformLabel_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    uniformLabel_->setSelectable(false);
    applyColours(palette());
    updateMarkers();
}

void ScalingLabView::applyColours(const QPalette& pal)
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

void ScalingLabView::setCurves(const attn::ScalingLabCurves& curves)
{
    curves_ = curves;
    config_.nKeys = curves.nKeys;
    config_.samples = curves.samples;
    config_.seed = curves.seed;
    config_.dks = curves.dK;
    if (keysSpin_->value() != curves.nKeys) {
        const QSignalBlocker block(keysSpin_);
        keysSpin_->setValue(curves.nKeys);
    }
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

    updateMarkers();
    updateStatus();
    for (QCustomPlot* p : plots_)
        p->replot();
    emit curvesChanged();
}

void ScalingLabView::compute(const attn::ScalingLabConfig& config)
{
    stopWorker();
    config_ = config;
    if (keysSpin_->value() != config.nKeys) {
        const QSignalBlocker block(keysSpin_);
        keysSpin_->setValue(config.nKeys);
    }
    startWorker();
}

void ScalingLabView::prefetch()
{
    if (!hasCurves() && !computing_)
        compute(config_);
}

void ScalingLabView::startWorker()
{
    computing_ = true;
    const unsigned generation = ++generation_;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    cancel_ = cancel;
    const attn::ScalingLabConfig config = config_;
    // The view outlives the thread (the destructor joins it), so the queued
    // call can name `this`; Qt drops it if the view is gone by then.
    worker_ = std::thread([this, config, cancel, generation] {
        const attn::ScalingLabProgress progress = [this, generation](int done, int total) {
            QMetaObject::invokeMethod(
                this, [this, generation, done, total] { showProgress(generation, done, total); },
                Qt::QueuedConnection);
        };
        auto result = std::make_shared<attn::Expected<attn::ScalingLabCurves>>(
            attn::runScalingLab(config, cancel.get(), progress));
        QMetaObject::invokeMethod(
            this, [this, generation, result] { finishComputation(generation, *result); },
            Qt::QueuedConnection);
    });
    updateStatus();
}

void ScalingLabView::stopWorker()
{
    if (cancel_)
        cancel_->store(true);
    if (worker_.joinable())
        worker_.join();
    computing_ = false;
}

void ScalingLabView::finishComputation(unsigned generation, attn::Expected<attn::ScalingLabCurves> result)
{
    if (generation != generation_)
        return;  // a newer request replaced this one
    if (worker_.joinable())
        worker_.join();
    computing_ = false;
    if (result.ok()) {
        setCurves(result.value());
    } else {
        const QString message = QString::fromStdString(result.error().message);
        status_->setText(message);
        emit computeFailed(message);
    }
}

void ScalingLabView::showProgress(unsigned generation, int done, int total)
{
    if (generation != generation_ || !computing_ || total <= 0)
        return;
    progress_->setValue(int((long long)done * 100 / total));
}

void ScalingLabView::updateStatus()
{
    progress_->setVisible(computing_);
    if (computing_)
        progress_->setValue(0);
    for (QCustomPlot* p : plots_)
        p->legend->setVisible(hasCurves());
    if (computing_) {
        status_->setText(tr("Computing the curves for n = %1 keys…").arg(config_.nKeys));
        return;
    }
    if (!hasCurves()) {
        status_->setText(tr("The curves are computed when the lab is first shown."));
        return;
    }
    status_->setText(tr("%1 random queries per d_k, each against n = %2 keys, every entry of "
                        "q and k drawn from N(0, 1) (mean 0, variance 1: the textbook "
                        "assumption); seed %3.")
                         .arg(curves_.samples)
                         .arg(curves_.nKeys)
                         .arg(curves_.seed));
}

void ScalingLabView::setCurrentDk(int dK)
{
    currentDk_ = std::clamp(dK, 1, attn::kScalingLabMaxDk);
    markerShown_ = true;
    updateMarkers();
    replotWhenShown();
}

void ScalingLabView::replotWhenShown()
{
    // A hidden plot would still lay out and draw into its buffer on every
    // d_k step; it catches up when shown instead.
    if (!isVisible()) {
        replotPending_ = true;
        return;
    }
    replotPending_ = false;
    for (QCustomPlot* p : plots_)
        p->replot(QCustomPlot::rpQueuedReplot);
}

void ScalingLabView::updateMarkers()
{
    const double d = currentDk_;
    // Near the right end the label goes to the left of the line.
    const bool rightEnd = d > 180;
    for (int i = 0; i < kPlotCount; ++i) {
        markers_[i]->setVisible(markerShown_);
        markerLabels_[i]->setVisible(markerShown_);
        markers_[i]->point1->setCoords(d, 1.0);
        markers_[i]->point2->setCoords(d, 2.0);
        markerLabels_[i]->position->setCoords(d, 0.0);
        markerLabels_[i]->setPositionAlignment(Qt::AlignBottom | (rightEnd ? Qt::AlignRight : Qt::AlignLeft));
        markerLabels_[i]->setText(tr("d_k = %1").arg(currentDk_));
    }
}

int ScalingLabView::nearestIndex(double dK) const
{
    if (curves_.dK.empty() || !(dK > 0))
        return -1;
    const double target = std::log(dK);
    int best = 0;
    for (int g = 1; g < int(curves_.size()); ++g)
        if (std::abs(std::log(double(curves_.dK[g])) - target)
            < std::abs(std::log(double(curves_.dK[best])) - target))
            best = g;
    return best;
}

QString ScalingLabView::valuesText(Plot which, int index) const
{
    if (index < 0 || index >= int(curves_.size()))
        return QString();
    const std::size_t g = std::size_t(index);
    const int d = curves_.dK[g];
    const int n = curves_.nKeys;
    QString text = tr("d_k = %1").arg(d);
    switch (which) {
    case VariancePlot:
        text += QLatin1Char('\n')
                + tr("unscaled: %1 ± %2 (theory %3)")
                      .arg(number(curves_.varRaw[g]), number(curves_.varRawStdErr[g], 2))
                      .arg(d);
        text += QLatin1Char('\n')
                + tr("scaled: %1 ± %2 (theory 1)")
                      .arg(number(curves_.varScaled[g]), number(curves_.varScaledStdErr[g], 2));
        break;
    case MaxWeightPlot:
        text += QLatin1Char('\n') + tr("unscaled: %1").arg(number(curves_.maxWeightRaw[g], 3));
        text += QLatin1Char('\n') + tr("scaled: %1").arg(number(curves_.maxWeightScaled[g], 3));
        text += QLatin1Char('\n') + tr("uniform: 1/%1 = %2").arg(n).arg(number(1.0 / n, 3));
        break;
    case EntropyPlot:
        text += QLatin1Char('\n') + tr("unscaled: %1 nats").arg(number(curves_.entropyRaw[g], 3));
        text += QLatin1Char('\n') + tr("scaled: %1 nats").arg(number(curves_.entropyScaled[g], 3));
        text += QLatin1Char('\n') + tr("uniform: ln %1 = %2 nats").arg(n).arg(number(std::log(double(n)), 3));
        break;
    case GradientPlot:
        text += QLatin1Char('\n') + tr("unscaled: %1").arg(number(curves_.gradNormRaw[g], 3));
        text += QLatin1Char('\n') + tr("scaled: %1").arg(number(curves_.gradNormScaled[g], 3));
        break;
    }
    return text;
}

bool ScalingLabView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == parentWidget() && event->type() == QEvent::Resize) {
        reflow();
        return false;
    }
    const auto it = std::find(plots_.begin(), plots_.end(), watched);
    if (it == plots_.end())
        return QWidget::eventFilter(watched, event);
    QCustomPlot* p = *it;
    if (event->type() == QEvent::Wheel) {
        // QCustomPlot takes every wheel event (it zooms nothing here); the
        // enclosing scroll area scrolls with it instead.
        for (QWidget* w = parentWidget(); w; w = w->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(w)) {
                QCoreApplication::sendEvent(area->viewport(), event);
                return true;
            }
        return false;
    }
    if (event->type() == QEvent::MouseMove || event->type() == QEvent::ToolTip) {
        const QPoint pos = event->type() == QEvent::MouseMove
                               ? static_cast<QMouseEvent*>(event)->position().toPoint()
                               : static_cast<QHelpEvent*>(event)->pos();
        const int index =
            p->axisRect()->rect().contains(pos) ? nearestIndex(p->xAxis->pixelToCoord(pos.x())) : -1;
        if (index >= 0)
            QToolTip::showText(p->mapToGlobal(pos), valuesText(Plot(it - plots_.begin()), index), p);
        else
            QToolTip::hideText();
        return event->type() == QEvent::ToolTip;
    }
    if (event->type() == QEvent::Leave)
        QToolTip::hideText();
    return QWidget::eventFilter(watched, event);
}

void ScalingLabView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && plots_[0]) {
        applyColours(palette());
        for (QCustomPlot* p : plots_)
            p->replot(QCustomPlot::rpQueuedReplot);
    }
    if (event->type() == QEvent::ParentChange) {
        if (watchedParent_)
            watchedParent_->removeEventFilter(this);
        watchedParent_ = parentWidget();
        if (watchedParent_)
            watchedParent_->installEventFilter(this);
        reflow();
    }
}

void ScalingLabView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    reflow();
}

void ScalingLabView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    reflow();
    if (replotPending_)
        replotWhenShown();
    prefetch();
}

QPalette ScalingLabView::exportPalette()
{
    QPalette light(QColor(0xef, 0xef, 0xef), Qt::white);
    light.setColor(QPalette::WindowText, Qt::black);
    light.setColor(QPalette::Text, Qt::black);
    light.setColor(QPalette::Mid, QColor(0xb8, 0xb8, 0xb8));
    return light;
}

QString ScalingLabView::fileStem(Plot which)
{
    switch (which) {
    case VariancePlot: return QStringLiteral("scaling_lab_variance");
    case MaxWeightPlot: return QStringLiteral("scaling_lab_max_weight");
    case EntropyPlot: return QStringLiteral("scaling_lab_entropy");
    case GradientPlot: return QStringLiteral("scaling_lab_jacobian");
    }
    return QString();
}

attn::Expected<std::vector<OutputFile>> ScalingLabView::imageFiles(const QStringList& formats,
                                                                   const QSize& size) const
{
    for (const QString& f : formats)
        if (f != QLatin1String("png") && f != QLatin1String("svg") && f != QLatin1String("pdf"))
            return attn::Error{tr("Unknown image format '%1'; use png, svg or pdf.").arg(f).toStdString()};
    if (size.width() < 100 || size.height() < 100)
        return attn::Error{tr("Images must be at least 100 by 100 pixels.").toStdString()};
    const int w = size.width(), h = size.height();
    // Pictures are for slides and print: light whatever the window's theme.
    auto* self = const_cast<ScalingLabView*>(this);
    const bool recolour = plotColours(palette()).background != plotColours(exportPalette()).background;
    if (recolour)
        self->applyColours(exportPalette());
    const auto restoreColours = qScopeGuard([&] {
        if (recolour)
            self->applyColours(palette());
    });
    std::vector<OutputFile> files;
    for (int i = 0; i < kPlotCount; ++i) {
        QCustomPlot* p = plots_[i];
        const std::string stem = fileStem(Plot(i)).toStdString();
        for (const QString& f : formats) {
            QByteArray bytes;
            if (f == QLatin1String("png")) {
                const QImage image = p->toPixmap(w, h, 2.0).toImage();
                QBuffer buffer(&bytes);
                buffer.open(QIODevice::WriteOnly);
                if (!image.save(&buffer, "PNG"))
                    return attn::Error{tr("The PNG image could not be encoded.").toStdString()};
            } else if (f == QLatin1String("pdf")) {
                // One device unit per pixel, as on screen, so the layout and
                // the fonts keep their proportions.
                QBuffer buffer(&bytes);
                buffer.open(QIODevice::WriteOnly);
                QPdfWriter writer(&buffer);
                const int dpi = p->logicalDpiX();
                writer.setResolution(dpi);
                writer.setPageSize(QPageSize(QSizeF(w * 72.0 / dpi, h * 72.0 / dpi), QPageSize::Point,
                                             QString(), QPageSize::ExactMatch));
                writer.setPageMargins(QMarginsF(0, 0, 0, 0));
                writer.setTitle(titles_[i]->text());
                writer.setCreator(QStringLiteral("Attention Lab"));
                QCPPainter painter;
                if (!painter.begin(&writer))
                    return attn::Error{tr("The PDF could not be started.").toStdString()};
                painter.setMode(QCPPainter::pmVectorized);
                painter.setMode(QCPPainter::pmNoCaching);
                painter.setWindow(0, 0, w, h);
                p->toPainter(&painter, w, h);
                painter.end();
            } else {
                bytes = svgPicture(plotPainter(p), QSize(w, h));
            }
            files.push_back(OutputFile{stem + '.' + f.toStdString(), [bytes](std::ostream& out) {
                                           out.write(bytes.constData(), bytes.size());
                                       }});
        }
        p->replot(QCustomPlot::rpQueuedReplot);
    }
    return files;
}

attn::Status ScalingLabView::exportImages(const QString& directory, const QStringList& formats,
                                          const QSize& size) const
{
    auto files = imageFiles(formats, size);
    if (!files.ok())
        return files.error();
    return writeFilesAtomically(directory, files.value());
}

}  // namespace attnlab
