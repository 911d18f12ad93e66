// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalinglabview.h"

#include "plotgrid.h"

#include <qcustomplot.h>

#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QProgressBar>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab {

namespace {

constexpr int kGridSpacing = 6;

}  // namespace

ScalingLabView::ScalingLabView(QWidget* parent) : ScalingLabView(nullptr, parent)
{
}

ScalingLabView::ScalingLabView(ScalingLabRun* run, QWidget* parent) : QWidget(parent)
{
    if (!run) {
        ownRun_ = std::make_unique<ScalingLabRun>();
        run = ownRun_.get();
    }
    run_ = run;
    keysSpin_ = new QSpinBox(this);
    keysSpin_->setObjectName(QStringLiteral("keysPerQuerySpin"));
    keysSpin_->setAccessibleName(tr("Keys per query"));
    keysSpin_->setRange(2, 128);
    keysSpin_->setValue(run_->config().nKeys);
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
    plots_ = std::make_unique<ScalingLabPlots>(this);
    for (QCustomPlot* p : plots_->plots())
        p->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(grid_, 1);
    arrangePlots(2);

    connect(keysSpin_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int n) {
        attn::ScalingLabConfig config = this->config();
        config.nKeys = n;
        config.samples = attn::defaultScalingLabSamples(n);
        compute(config);
    });
    connectRun();
    if (run_->hasCurves())
        showCurves();
    else
        updateStatus();
}

ScalingLabView::~ScalingLabView() = default;

void ScalingLabView::connectRun()
{
    connect(run_, &ScalingLabRun::started, this, [this] {
        showKeys(run_->config().nKeys);
        updateStatus();
    });
    connect(run_, &ScalingLabRun::progressChanged, this, &ScalingLabView::showProgress);
    connect(run_, &ScalingLabRun::curvesReady, this, &ScalingLabView::showCurves);
    connect(run_, &ScalingLabRun::failed, this, &ScalingLabView::showFailure);
}

const attn::ScalingLabCurves& ScalingLabView::curves() const
{
    static const attn::ScalingLabCurves none;
    return run_ ? run_->curves() : none;
}

const attn::ScalingLabConfig& ScalingLabView::config() const
{
    static const attn::ScalingLabConfig defaults;
    return run_ ? run_->config() : defaults;
}

void ScalingLabView::setCurves(const attn::ScalingLabCurves& curves)
{
    if (run_)
        run_->setCurves(curves);  // back in showCurves
}

void ScalingLabView::compute(const attn::ScalingLabConfig& config)
{
    if (run_)
        run_->compute(config);  // back in showKeys and updateStatus
}

void ScalingLabView::prefetch()
{
    if (run_)
        run_->prefetch();
}

void ScalingLabView::showKeys(int nKeys)
{
    if (keysSpin_->value() != nKeys) {
        const QSignalBlocker block(keysSpin_);
        keysSpin_->setValue(nKeys);
    }
}

void ScalingLabView::showCurves()
{
    showKeys(curves().nKeys);
    plots_->setCurves(curves());
    updateMarkers();
    updateStatus();
    emit curvesChanged();
}

void ScalingLabView::showProgress(int done, int total)
{
    if (isComputing())
        progress_->setValue(total > 0 ? int((long long)done * 100 / total) : 0);
}

void ScalingLabView::showFailure(const QString& message)
{
    updateStatus();
    status_->setText(message);
    emit computeFailed(message);
}

void ScalingLabView::arrangePlots(int columns)
{
    if (columns == columns_)
        return;
    columns_ = columns;
    placePlotsInGrid(grid_, plots_->plots(), columns);
}

void ScalingLabView::reflow()
{
    // The space the view is given: its scroll area's viewport, else its own.
    const QSize space = parentWidget() ? parentWidget()->size() : size();
    const QMargins m = layout()->contentsMargins();
    const int controlsHeight = layout()->itemAt(0)->sizeHint().height() + layout()->spacing();
    const int fourAcross =
        4 * ScalingLabPlots::minimumPlotSize().width() + 3 * kGridSpacing + m.left() + m.right();
    const int twoHigh = 2 * ScalingLabPlots::minimumPlotSize().height() + kGridSpacing + controlsHeight
                        + m.top() + m.bottom();
    // A wide, low space (the window's lower half in docks) takes the four
    // plots in one row; otherwise two by two, which the plots read best in.
    arrangePlots(space.width() >= fourAcross && space.height() < twoHigh ? 4 : 2);
}

void ScalingLabView::updateStatus()
{
    const bool computing = isComputing();
    progress_->setVisible(computing);
    if (computing)
        showProgress(run_->progressDone(), run_->progressTotal());  // 0 when it starts
    plots_->setLegendsVisible(hasCurves());
    if (computing) {
        status_->setText(tr("Computing the curves for n = %1 keys…").arg(config().nKeys));
        return;
    }
    if (!hasCurves()) {
        status_->setText(tr("The curves are computed when the lab is first shown."));
        return;
    }
    status_->setText(tr("%1 random queries per d_k, each against n = %2 keys, every entry of "
                        "q and k drawn from N(0, 1) (mean 0, variance 1: the textbook "
                        "assumption); seed %3.")
                         .arg(curves().samples)
                         .arg(curves().nKeys)
                         .arg(curves().seed));
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
    for (QCustomPlot* p : plots_->plots())
        p->replot(QCustomPlot::rpQueuedReplot);
}

void ScalingLabView::updateMarkers()
{
    plots_->setMarker(currentDk_, markerShown_);
}

int ScalingLabView::nearestIndex(double dK) const
{
    return run_ ? run_->nearestIndex(dK) : -1;
}

QString ScalingLabView::valuesText(Plot which, int index) const
{
    return ScalingLabPlots::valuesText(curves(), which, index);
}

bool ScalingLabView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == parentWidget() && event->type() == QEvent::Resize) {
        reflow();
        return false;
    }
    const auto& plots = plots_->plots();
    const auto it = std::find(plots.begin(), plots.end(), watched);
    if (it == plots.end())
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
            QToolTip::showText(p->mapToGlobal(pos), valuesText(Plot(it - plots.begin()), index), p);
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
    if (event->type() == QEvent::PaletteChange && plots_) {
        plots_->applyColours(palette());
        for (QCustomPlot* p : plots_->plots())
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

attn::Expected<std::vector<OutputFile>> ScalingLabView::imageFiles(const QStringList& formats,
                                                                   const QSize& size) const
{
    return plots_->imageFiles(formats, size, palette());
}

}  // namespace attnlab
