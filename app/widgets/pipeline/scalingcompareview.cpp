// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalingcompareview.h"

#include "heatmapview.h"
#include "scorehistogramview.h"
#include "sharetext.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace attnlab {

namespace {

QString number(double v, int digits = 4)
{
    return QLocale().toString(v, 'g', digits);
}

}  // namespace

ScalingCompareView::ScalingCompareView(QWidget* parent) : QWidget(parent)
{
    init_ = new QLabel(this);
    init_->setAccessibleName(tr("Initialisation"));
    init_->setWordWrap(true);
    summary_ = new QLabel(this);
    summary_->setAccessibleName(tr("Summary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    unscaled_ = new HeatmapView(this);
    unscaled_->setObjectName(QStringLiteral("unscaledWeightsMap"));
    scaled_ = new HeatmapView(this);
    scaled_->setObjectName(QStringLiteral("scaledWeightsMap"));
    for (HeatmapView* view : {unscaled_, scaled_}) {
        view->setColorMap(HeatmapView::ColorMap::Sequential);
        view->setRange(0.0, 1.0);
        view->setDecimals(2);
    }
    unscaled_->setTitle(tr("softmax(QKᵀ): unscaled"));
    scaled_->setTitle(tr("softmax(QKᵀ/√d_k): scaled"));
    unscaled_->setToolTip(
        tr("Attention weights from the raw scores q·k. With a large d_k "
           "the scores spread widely and each row collapses onto one key."));
    scaled_->setToolTip(
        tr("Attention weights from the scores divided by √d_k, as the "
           "transformer computes them: the spread stays the same for every "
           "d_k."));

    table_ = new QTableWidget(kReadoutCount, 2, this);
    table_->setObjectName(QStringLiteral("scalingCompareTable"));
    table_->setAccessibleName(tr("Scaled and unscaled measures"));
    table_->setHorizontalHeaderLabels({tr("unscaled"), tr("scaled by 1/√d_k")});
    table_->setVerticalHeaderLabels({tr("score variance"), tr("mean largest weight"),
                                     tr("mean entropy (nats)"), tr("mean Jacobian norm")});
    const QString rowTips[kReadoutCount] = {
        tr("Variance of the scores of this sentence. With unit-variance q and k it is about "
           "d_k before scaling and about 1 after."),
        tr("The largest weight of each query's row, averaged over the queries: 1 means "
           "every query looks at a single token."),
        tr("Entropy of each row, averaged: ln n for uniform attention, 0 for one-hot rows."),
        tr("Frobenius norm of the softmax Jacobian diag(p) − p pᵀ, averaged over the rows: "
           "how much gradient can flow back through the softmax. Near 0 it has vanished."),
    };
    for (int r = 0; r < kReadoutCount; ++r) {
        table_->verticalHeaderItem(r)->setToolTip(rowTips[r]);
        for (int c = 0; c < 2; ++c) {
            auto* item = new QTableWidgetItem;
            item->setFlags(Qt::ItemIsEnabled);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setToolTip(rowTips[r]);
            table_->setItem(r, c, item);
        }
    }
    table_->setToolTip(
        tr("The same measures for the unscaled and the scaled scores of the "
           "current sentence."));
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->setFocusPolicy(Qt::NoFocus);
    table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);

    auto* maps = new QHBoxLayout;
    maps->addWidget(unscaled_, 1);
    maps->addWidget(scaled_, 1);
    histogram_ = new ScoreHistogramView(this);
    histogram_->setObjectName(QStringLiteral("scoreHistogramView"));
    maps->addWidget(histogram_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(init_);
    layout->addLayout(maps, 1);
    layout->addWidget(summary_);
    layout->addWidget(table_);
    updateInitText();
}

void ScalingCompareView::setWeightsScaleMode(WeightsScaleMode mode)
{
    scaleMode_ = mode;
    const WeightsScale scale = chooseWeightsScale(mode, unscaled_->rowCount());
    for (HeatmapView* view : {unscaled_, scaled_})
        applyWeightsScale(view, scale);
}

void ScalingCompareView::setData(std::shared_ptr<const attn::ScalingComparison> comparison,
                                 const QStringList& tokens)
{
    comparison_ = comparison ? std::move(comparison) : std::make_shared<const attn::ScalingComparison>();
    // Aliasing pointers: the maps keep the whole comparison alive.
    unscaled_->setCells(sharedMatrixCells({comparison_, &comparison_->weightsUnscaled}), tokens, tokens);
    scaled_->setCells(sharedMatrixCells({comparison_, &comparison_->weightsScaled}), tokens, tokens);
    setWeightsScaleMode(scaleMode_);
    for (int r = 0; r < kReadoutCount; ++r)
        for (int c = 0; c < 2; ++c) {
            QTableWidgetItem* item = table_->item(r, c);
            item->setData(Qt::UserRole, readoutValue(Readout(r), Side(c)));
            item->setText(readoutText(Readout(r), Side(c)));
        }
    summary_->setText(summaryText());
}

void ScalingCompareView::setHistogram(const attn::ScoreHistogram& histogram)
{
    histogram_->setHistogram(histogram);
}

double ScalingCompareView::readoutValue(Readout readout, Side side) const
{
    const attn::ScalingComparison& c = *comparison_;
    const bool raw = side == Unscaled;
    switch (readout) {
    case Variance: return raw ? c.varRaw : c.varScaled;
    case MeanMaxWeight: return raw ? c.meanMaxRaw : c.meanMaxScaled;
    case MeanEntropy: return raw ? c.meanEntropyRaw : c.meanEntropyScaled;
    case MeanJacobianNorm: return raw ? c.meanGradRaw : c.meanGradScaled;
    }
    return 0.0;
}

QString ScalingCompareView::readoutText(Readout readout, Side side) const
{
    return number(readoutValue(readout, side));
}

QString ScalingCompareView::summaryText() const
{
    const attn::ScalingComparison& c = *comparison_;
    if (c.dK < 1)
        return QString();
    return tr("d_k = %1: dividing by √d_k = %2 takes the score variance from %3 to %4. "
              "On average a query gives %5 of its attention to a single token without the "
              "scaling and %6 with it.")
        .arg(c.dK)
        .arg(number(c.divisor, 3), number(c.varRaw), number(c.varScaled), shareText(c.meanMaxRaw),
             shareText(c.meanMaxScaled));
}

void ScalingCompareView::setInitMode(attn::InitMode mode)
{
    initMode_ = mode;
    updateInitText();
}

QString ScalingCompareView::initText() const
{
    switch (initMode_) {
    case attn::InitMode::UnitVariance:
        return tr(
            "Initialisation: unit variance. The entries of q and k have mean 0 and "
            "variance about 1, the textbook assumption: expect a raw score variance "
            "near d_k and a scaled one near 1.");
    case attn::InitMode::StandardNormal:
        return tr(
            "Initialisation: standard normal. X and the weights are N(0, 1), so the "
            "entries of q and k have variance about d_model rather than 1: the scores "
            "spread even more than d_k alone explains. Choose unit variance for the "
            "textbook setting.");
    case attn::InitMode::Article:
        return tr(
            "Initialisation: the article's. The weights are uniform in [0, 1), so q "
            "and k are not centred and the textbook assumption does not hold. Choose "
            "unit variance to see the √d_k argument work exactly.");
    }
    return QString();
}

void ScalingCompareView::updateInitText()
{
    init_->setText(initText());
}

}  // namespace attnlab
