#include "statisticspanel.h"

#include "presentation.h"
#include "session.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace attnlab {

namespace {

QTableWidgetItem* item(const QString& text, bool number = true)
{
    auto* it = new QTableWidgetItem(text);
    if (number)
        it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    it->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return it;
}

QLabel* valueLabel(const QString& name, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

}  // namespace

StatisticsPanel::StatisticsPanel(Session* session, QWidget* parent)
    : QWidget(parent), session_(session)
{
    rawVariance_ = valueLabel(QStringLiteral("rawVarianceLabel"), this);
    scaledVariance_ = valueLabel(QStringLiteral("scaledVarianceLabel"), this);
    means_ = valueLabel(QStringLiteral("meanStatisticsLabel"), this);
    means_->setWordWrap(true);
    rawVariance_->setAccessibleName(tr("Variance of the raw scores"));
    scaledVariance_->setAccessibleName(tr("Variance of the scaled scores"));
    means_->setAccessibleName(tr("Means over the queries"));
    rawVariance_->setToolTip(tr("Population variance of the raw scores q_i · k_j (unmasked "
                                "entries). It grows about linearly with d_k."));
    scaledVariance_->setToolTip(tr("Variance of the scaled scores: the raw variance divided by "
                                   "the divisor squared (d_k for √d_k)."));

    table_ = new QTableWidget(this);
    table_->setObjectName(QStringLiteral("statisticsTable"));
    table_->setAccessibleName(tr("Statistics per query"));
    table_->setColumnCount(5);
    table_->setHorizontalHeaderLabels(
        {tr("query"), tr("max a"), tr("to key"), tr("H (nats)"), tr("exp H")});
    table_->horizontalHeaderItem(0)->setToolTip(tr("The query token (a row of the maps)."));
    table_->horizontalHeaderItem(1)->setToolTip(tr("The largest weight of the query."));
    table_->horizontalHeaderItem(2)->setToolTip(tr("The key the largest weight goes to."));
    table_->horizontalHeaderItem(3)->setToolTip(tr("Entropy H = −Σ_j a_ij ln a_ij of the query's "
                                                   "weights: 0 when it attends to one token."));
    table_->horizontalHeaderItem(4)->setToolTip(tr("Effective number of attended tokens exp(H): "
                                                   "1 for one token, n for uniform weights."));
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setTabKeyNavigation(false);  // read only: Tab leaves, arrows move inside

    auto* form = new QFormLayout;
    form->addRow(tr("Var(raw scores):"), rawVariance_);
    form->addRow(tr("Var(scaled scores):"), scaledVariance_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(means_);
    layout->addWidget(table_, 1);

    connect(session_, &Session::resultChanged, this, &StatisticsPanel::refresh);
    refresh();
}

void StatisticsPanel::refresh()
{
    const attn::AttentionStats& s = session_->stats();
    const QStringList tokens = session_->tokens();
    rawVariance_->setText(formatNumber(s.rawVariance));
    scaledVariance_->setText(formatNumber(s.scaledVariance));
    means_->setText(tr("Mean over queries: largest weight %1, entropy %2 nats.")
                        .arg(formatNumber(s.meanMaxWeight), formatNumber(s.meanEntropyNats)));
    const int n = int(s.rows.size());
    // Columns sized to their contents re-measure every row on each setItem;
    // fill with fixed widths and measure once at the end.
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    table_->setUpdatesEnabled(false);
    table_->setRowCount(n);
    for (int i = 0; i < n; ++i) {
        const attn::RowStats& row = s.rows[size_t(i)];
        const QString query = i < tokens.size() ? tokens[i] : QString();
        const QString key = row.argMax < tokens.size() ? tokens[row.argMax] : QString();
        table_->setItem(i, 0, item(QStringLiteral("%1 %2").arg(i + 1).arg(query), false));
        const QString tip = tr("Query \"%1\" gives its largest weight %2 to \"%3\".")
                                .arg(query, formatNumber(row.maxWeight), key);
        table_->setItem(i, 1, item(QString::number(row.maxWeight, 'f', 3)));
        table_->setItem(i, 2, item(key, false));
        table_->item(i, 1)->setToolTip(tip);
        table_->item(i, 2)->setToolTip(tip);
        table_->setItem(i, 3, item(QString::number(row.entropyNats, 'f', 3)));
        table_->setItem(i, 4, item(QString::number(row.effectiveTokens, 'f', 2)));
    }
    table_->setUpdatesEnabled(true);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
}

}  // namespace attnlab
