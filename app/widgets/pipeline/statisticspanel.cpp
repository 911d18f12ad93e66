// SPDX-License-Identifier: GPL-3.0-or-later
#include "statisticspanel.h"

#include "displaylabel.h"
#include "numberdelegate.h"
#include "presentation.h"
#include "session.h"
#include "statisticstablemodel.h"
#include "textwidths.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab {

namespace {

QLabel* valueLabel(const QString& name, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

}  // namespace

StatisticsPanel::StatisticsPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session)
{
    rawVariance_ = valueLabel(QStringLiteral("rawVarianceLabel"), this);
    scaledVariance_ = valueLabel(QStringLiteral("scaledVarianceLabel"), this);
    // One short line each: a wrapped sentence would be laid out again (line
    // breaking included) on every d_k step.
    meanMax_ = valueLabel(QStringLiteral("meanMaxWeightLabel"), this);
    meanEntropy_ = valueLabel(QStringLiteral("meanEntropyLabel"), this);
    rawVariance_->setAccessibleName(tr("Variance of the raw scores"));
    scaledVariance_->setAccessibleName(tr("Variance of the scaled scores"));
    meanMax_->setAccessibleName(tr("Largest weight, mean over the queries"));
    meanEntropy_->setAccessibleName(tr("Entropy in nats, mean over the queries"));
    meanMax_->setToolTip(
        tr("Each query's largest weight, averaged over the queries: 1 when every "
           "query attends to a single token."));
    meanEntropy_->setToolTip(
        tr("Entropy of each query's weights in nats, averaged: 0 for one-hot "
           "rows, ln n for uniform ones."));
    rawVariance_->setToolTip(
        tr("Population variance of the raw scores q_i · k_j (unmasked "
           "entries). It grows about linearly with d_k."));
    scaledVariance_->setToolTip(
        tr("Variance of the scaled scores: the raw variance divided by "
           "the divisor squared (d_k for √d_k)."));

    model_ = new StatisticsTableModel(session_, this);
    table_ = new QTableView(this);
    table_->setObjectName(QStringLiteral("statisticsTable"));
    table_->setAccessibleName(tr("Statistics per query"));
    table_->setModel(model_);
    table_->setItemDelegate(new NumberDelegate(table_));
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    // Widths from the tokens and the number formats (sizeColumns), not
    // measured cell by cell on every change.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setTabKeyNavigation(false);  // read only: Tab leaves, arrows move inside

    auto* form = new QFormLayout;
    form->addRow(tr("Var(raw scores):"), rawVariance_);
    form->addRow(tr("Var(scaled scores):"), scaledVariance_);
    form->addRow(tr("Mean largest weight:"), meanMax_);
    form->addRow(tr("Mean entropy:"), meanEntropy_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(table_, 1);

    connect(session_, &Session::resultChanged, this, &StatisticsPanel::refresh);
    refresh();
}

void StatisticsPanel::refresh()
{
    const attn::AttentionStats& s = session_->published()->stats();
    const QStringList tokens = session_->published()->tokens();
    rawVariance_->setText(formatForDisplay(s.rawVariance));
    scaledVariance_->setText(formatForDisplay(s.scaledVariance));
    meanMax_->setText(formatForDisplay(s.meanMaxWeight));
    meanEntropy_->setText(tr("%1 nats").arg(formatForDisplay(s.meanEntropyNats)));
    model_->refresh();
    if (tokens != sizedFor_) {
        sizedFor_ = tokens;
        sizeColumns();
    }
}

void StatisticsPanel::sizeColumns()
{
    // Token columns as wide as their widest token (measured when the tokens
    // change); number columns as wide as their format (digits share a width).
    const QFontMetrics fm(table_->font());
    const int pad = fm.averageCharWidth() + 2 * table_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin);
    const int cap = fm.averageCharWidth() * 24;
    int widestQuery = 0;
    int widestToken = 0;
    const QStringList labels = session_->published()->labels();  // the "to key" column's
    TextWidths texts(table_->font());
    for (int i = 0; i < sizedFor_.size(); ++i) {
        const int w = texts.advance(displayLabel(sizedFor_[i]));
        widestToken = std::max(widestToken, texts.advance(labels.value(i)));
        widestQuery = std::max(widestQuery, w + texts.advance(QStringLiteral("%1 ").arg(i + 1)));
    }
    QHeaderView* header = table_->horizontalHeader();
    const int widths[StatisticsTableModel::kColumns] = {
        std::min(widestQuery, cap),
        fm.horizontalAdvance(QStringLiteral("0.000")),
        std::min(widestToken, cap),
        fm.horizontalAdvance(QStringLiteral("00.000")),
        fm.horizontalAdvance(QStringLiteral("0000.00")),
    };
    const QFontMetrics headerFm(header->font());
    for (int c = 0; c < StatisticsTableModel::kColumns; ++c) {
        const QString title = model_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
        header->resizeSection(c, std::max(widths[c], headerFm.horizontalAdvance(title)) + pad);
    }
}

}  // namespace attnlab
