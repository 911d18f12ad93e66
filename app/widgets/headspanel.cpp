// SPDX-License-Identifier: GPL-3.0-or-later
#include "headspanel.h"

#include "headgridview.h"
#include "heatmapview.h"
#include "presentation.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace attnlab {

namespace {

QLabel* captionLabel(const QString& name, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    return label;
}

// "1", ..., "h d_v" as "h1:1", ..., "h3:2": which head each concat column comes from.
QStringList concatColumnLabels(int heads, int dV)
{
    QStringList labels;
    for (int h = 0; h < heads; ++h)
        for (int j = 0; j < dV; ++j)
            labels << QStringLiteral("h%1:%2").arg(h + 1).arg(j + 1);
    return labels;
}

}  // namespace

HeadsPanel::HeadsPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("headsPanel"));
    setAccessibleName(tr("Heads"));

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    auto* showLabel = new QLabel(tr("Tiles show:"), left);
    kind_ = new QComboBox(left);
    kind_->setObjectName(QStringLiteral("headKind"));
    kind_->setAccessibleName(tr("What the head tiles show"));
    kind_->addItem(tr("Weights A_i"), int(HeadMapKind::Weights));
    kind_->addItem(tr("Raw scores Q_i K_iᵀ"), int(HeadMapKind::Scores));
    kind_->addItem(tr("Scaled scores"), int(HeadMapKind::Scaled));
    showLabel->setBuddy(kind_);
    top->addWidget(showLabel);
    top->addWidget(kind_);
    top->addStretch(1);
    leftLayout->addLayout(top);
    grid_ = new HeadGridView(left);
    leftLayout->addWidget(grid_, 1);
    gridCaption_ = captionLabel(QStringLiteral("headGridCaption"), left);
    gridCaption_->setText(
        tr("Each head runs scaled dot-product attention with its own W_q, W_k, W_v. "
           "max: a query's largest weight, averaged over the queries. The last tile "
           "is the mean of the heads' weights. Click a head (or use the arrow keys "
           "and Enter) to show it in the other views."));
    leftLayout->addWidget(gridCaption_);

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    concat_ = new HeatmapView(right);
    concat_->setObjectName(QStringLiteral("concatMap"));
    concat_->setColorMap(MapColors::Diverging);
    rightLayout->addWidget(concat_, 1);
    concatCaption_ = captionLabel(QStringLiteral("concatCaption"), right);
    rightLayout->addWidget(concatCaption_);
    outputBox_ = new QWidget(right);
    auto* outputLayout = new QVBoxLayout(outputBox_);
    outputLayout->setContentsMargins(0, 0, 0, 0);
    output_ = new HeatmapView(outputBox_);
    output_->setObjectName(QStringLiteral("outputMap"));
    output_->setColorMap(MapColors::Diverging);
    outputLayout->addWidget(output_, 1);
    outputCaption_ = captionLabel(QStringLiteral("outputCaption"), outputBox_);
    outputLayout->addWidget(outputCaption_);
    rightLayout->addWidget(outputBox_, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("headsSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(kind_, &QComboBox::currentIndexChanged, this,
            [this] { grid_->setKind(HeadMapKind(kind_->currentData().toInt())); });
    connect(grid_, &HeadGridView::headActivated, this, &HeadsPanel::headActivated);
    refreshMaps();
}

void HeadsPanel::setResult(std::shared_ptr<const attn::MultiHeadResult> result,
                           const QStringList& tokenLabels, int selectedHead)
{
    result_ = std::move(result);
    tokens_ = tokenLabels;
    grid_->setResult(result_, tokens_, selectedHead);
    refreshMaps();
}

void HeadsPanel::setSelectedHead(int head)
{
    grid_->setSelectedHead(head);
}

int HeadsPanel::selectedHead() const
{
    return grid_->selectedHead();
}

void HeadsPanel::setKind(HeadMapKind kind)
{
    kind_->setCurrentIndex(kind_->findData(int(kind)));
}

HeadMapKind HeadsPanel::kind() const
{
    return grid_->kind();
}

void HeadsPanel::refreshMaps()
{
    if (!result_ || result_->headCount() == 0) {
        concat_->setTitle(tr("concat = [Z_1 | … | Z_h]"));
        concat_->setData(attn::Matrix(), {}, {});
        concatCaption_->setText(tr("No multi-head result: choose more than one head."));
        outputBox_->hide();
        return;
    }
    const attn::MultiHeadResult& r = *result_;
    const int h = r.headCount();
    const int n = int(r.concat.rows());
    const int dV = h > 0 ? int(r.concat.cols()) / h : 0;
    concat_->setTitle(tr("concat = [Z_1 | … | Z_%1]  (%2 × %3)").arg(h).arg(n).arg(r.concat.cols()));
    const double concatRange = symmetricRange(r.concat);
    concat_->setDecimals(decimalsForRange(concatRange));
    concat_->setCells(sharedMatrixCells(std::shared_ptr<const attn::Matrix>(result_, &r.concat)), tokens_,
                      concatColumnLabels(h, dV));
    concat_->setRange(-concatRange, concatRange);
    concatCaption_->setText(tr("The %1 heads' context vectors side by side: columns h1:1 … h1:%2 are "
                               "head 1's Z_1 = A_1 V_1, and so on.")
                                .arg(h)
                                .arg(dV));
    if (!r.hasOutput()) {
        outputBox_->hide();
        return;
    }
    const double outputRange = symmetricRange(r.output);
    output_->setTitle(tr("output = concat · W_o  (%1 × %2)").arg(r.output.rows()).arg(r.output.cols()));
    output_->setDecimals(decimalsForRange(outputRange));
    output_->setCells(sharedMatrixCells(std::shared_ptr<const attn::Matrix>(result_, &r.output)), tokens_,
                      dimensionLabels(int(r.output.cols())));
    output_->setRange(-outputRange, outputRange);
    outputCaption_->setText(r.layout == attn::HeadLayout::Split
                                ? tr("The output projection: concat · out_proj.weightᵀ + out_proj.bias, "
                                     "as torch.nn.MultiheadAttention returns it.")
                                : tr("The output projection: concat (n × h d_v) times W_o (h d_v × d_out)."));
    outputBox_->show();
}

}  // namespace attnlab
