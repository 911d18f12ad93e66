#include "focuspanel.h"

#include "heatmapview.h"
#include "presentation.h"
#include "session.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <qcustomplot.h>

namespace attnlab {

namespace {

QVector<double> barValues(const QCPBars* bars)
{
    QVector<double> values;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        values.append(it->value);
    return values;
}

QTableWidgetItem* numberItem(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return item;
}

}  // namespace

FocusPanel::FocusPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session)
{
    title_ = new QLabel(this);
    title_->setObjectName(QStringLiteral("focusTitle"));
    title_->setWordWrap(true);
    QFont titleFont = title_->font();
    titleFont.setBold(true);
    title_->setFont(titleFont);

    qCaption_ = new QLabel(this);
    qVector_ = new HeatmapView(this);
    qVector_->setObjectName(QStringLiteral("focusQueryVector"));
    qVector_->setAccessibleName(tr("Query vector of the focused query"));
    qVector_->setColorMap(HeatmapView::ColorMap::Diverging);
    qVector_->setMinimumHeight(58);
    zCaption_ = new QLabel(this);
    zVector_ = new HeatmapView(this);
    zVector_->setObjectName(QStringLiteral("focusContextVector"));
    zVector_->setAccessibleName(tr("Context vector of the focused query"));
    zVector_->setColorMap(HeatmapView::ColorMap::Diverging);
    zVector_->setMinimumHeight(58);
    mixing_ = new QLabel(this);
    mixing_->setObjectName(QStringLiteral("focusMixingLabel"));
    mixing_->setAccessibleName(tr("Context vector as a mix of values"));
    mixing_->setWordWrap(true);
    mixing_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("focusPlot"));
    plot_->setAccessibleName(tr("Scores and weights of the focused query"));
    plot_->setMinimumSize(260, 150);
    plot_->setToolTip(tr("Left axis: the dot products q_i · k_j. Right axis: the softmax "
                         "weights a_ij in [0, 1]."));
    scoreBars_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    scoreBars_->setName(tr("q · k (left axis)"));
    weightBars_ = new QCPBars(plot_->xAxis, plot_->yAxis2);
    weightBars_->setName(tr("weight (right axis)"));
    auto* group = new QCPBarsGroup(plot_);
    scoreBars_->setBarsGroup(group);
    weightBars_->setBarsGroup(group);
    scoreBars_->setWidth(0.38);
    weightBars_->setWidth(0.38);
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setRange(0.0, 1.0);
    // The axis labels name the bars in their colours; a legend would cover them.
    plot_->yAxis->setLabel(tr("q · k (red)"));
    plot_->yAxis2->setLabel(tr("weight (blue)"));

    table_ = new QTableWidget(this);
    table_->setObjectName(QStringLiteral("focusTable"));
    table_->setAccessibleName(tr("Keys of the focused query"));
    table_->setColumnCount(4);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setTabKeyNavigation(false);  // read only: Tab leaves, arrows move inside
    // As wide as its columns: the numbers are the point of the table.
    table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    table_->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Expanding);

    auto* vectors = new QVBoxLayout;
    vectors->addWidget(title_);
    vectors->addWidget(qCaption_);
    vectors->addWidget(qVector_, 1);
    vectors->addWidget(zCaption_);
    vectors->addWidget(zVector_, 1);
    vectors->addWidget(mixing_);
    auto* layout = new QHBoxLayout(this);
    layout->addLayout(vectors, 1);
    layout->addWidget(plot_, 1);
    layout->addWidget(table_);

    stylePlot();
    connect(session_, &Session::resultChanged, this, &FocusPanel::refresh);
    refresh();
}

void FocusPanel::setQuery(int query)
{
    if (query == query_)
        return;
    query_ = query;
    refresh();
}

QVector<double> FocusPanel::scoreBarValues() const
{
    return barValues(scoreBars_);
}

QVector<double> FocusPanel::weightBarValues() const
{
    return barValues(weightBars_);
}

void FocusPanel::refresh()
{
    const attn::AttentionResult& r = session_->result();
    const QStringList tokens = session_->tokens();
    const int n = r.tokens();
    if (n == 0 || query_ < 0 || query_ >= n || tokens.size() != n)
        return;
    const int i = query_;
    const QString token = tokens[i];
    const QString divisor = divisorText(*session_);

    title_->setText(tr("Query %1 \"%2\": how its context vector is built").arg(i + 1).arg(token));
    qCaption_->setText(tr("1. Its query q_%1 = x_%1 W_q (d_k = %2)").arg(i + 1).arg(r.Q.cols()));
    QStringList dims;
    for (int d = 1; d <= r.Q.cols(); ++d)
        dims.append(QString::number(d));
    const double qRange = symmetricRange(r.Q.row(i));
    qVector_->setData(r.Q.row(i), {token}, dims);
    qVector_->setRange(-qRange, qRange);

    zCaption_->setText(tr("4. Its context z_%1 = Σ_j a_%1j v_j (d_v = %2)").arg(i + 1).arg(r.V.cols()));
    QStringList vDims;
    for (int d = 1; d <= r.V.cols(); ++d)
        vDims.append(QString::number(d));
    const double zRange = symmetricRange(r.context.row(i));
    zVector_->setData(r.context.row(i), {token}, vDims);
    zVector_->setRange(-zRange, zRange);
    QStringList terms;
    for (int j = 0; j < n; ++j)
        terms.append(QStringLiteral("%1·v(%2)").arg(QString::number(r.weights(i, j), 'f', 3), tokens[j]));
    mixing_->setText(tr("z_%1 = %2").arg(i + 1).arg(terms.join(QStringLiteral(" + "))));

    QVector<double> keys, scores, weights;
    QVector<QString> labels;
    for (int j = 0; j < n; ++j) {
        keys.append(j + 1);
        scores.append(r.scores(i, j));
        weights.append(r.weights(i, j));
        labels.append(tokens[j]);
    }
    scoreBars_->setData(keys, scores, true);
    weightBars_->setData(keys, weights, true);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    ticker->setTicks(keys, labels);
    plot_->xAxis->setTicker(ticker);
    keyLabels_ = QStringList(labels.begin(), labels.end());
    updateTickRotation();
    plot_->xAxis->setRange(0.4, n + 0.6);
    plot_->xAxis->setLabel(tr("2. q_%1 · k_j for every key, 3. the weights").arg(i + 1));
    const double range = symmetricRange(r.scores.row(i));
    plot_->yAxis->setRange(-range * 1.05, range * 1.05);
    plot_->yAxis2->setRange(-1.05, 1.05);
    plot_->replot(QCustomPlot::rpQueuedReplot);

    // Columns sized to their contents re-measure every row on each setItem;
    // fill with fixed widths and measure once at the end.
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    table_->setUpdatesEnabled(false);
    table_->setRowCount(n + 1);
    table_->setHorizontalHeaderLabels(
        {tr("key"), tr("q · k"), tr("÷ %1").arg(divisor), tr("softmax")});
    table_->horizontalHeaderItem(1)->setToolTip(tr("The raw score q_%1 · k_j").arg(i + 1));
    table_->horizontalHeaderItem(2)->setToolTip(tr("The scaled score (q_%1 · k_j) ÷ %2").arg(i + 1).arg(divisor));
    table_->horizontalHeaderItem(3)->setToolTip(tr("The weight a_%1j; the weights sum to 1").arg(i + 1));
    for (int j = 0; j < n; ++j) {
        auto* key = new QTableWidgetItem(QStringLiteral("%1 %2").arg(j + 1).arg(tokens[j]));
        key->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        table_->setItem(j, 0, key);
        table_->setItem(j, 1, numberItem(formatNumber(r.scores(i, j))));
        table_->setItem(j, 2, numberItem(r.isMasked(i, j) ? tr("masked")
                                                          : formatNumber(r.scaled(i, j))));
        table_->setItem(j, 3, numberItem(formatNumber(r.weights(i, j))));
    }
    auto* sumLabel = new QTableWidgetItem(tr("sum"));
    sumLabel->setFlags(Qt::ItemIsEnabled);
    QFont bold = sumLabel->font();
    bold.setBold(true);
    sumLabel->setFont(bold);
    table_->setItem(n, 0, sumLabel);
    table_->setItem(n, 1, numberItem(QString()));
    table_->setItem(n, 2, numberItem(QString()));
    auto* sum = numberItem(formatNumber(session_->weightSum(i)));
    sum->setFont(bold);
    sum->setToolTip(tr("The weights of one query always sum to 1."));
    table_->setItem(n, 3, sum);
    table_->setUpdatesEnabled(true);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void FocusPanel::stylePlot()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor grid = pal.color(QPalette::Mid);
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    const QColor scoreColor = dark ? QColor(244, 109, 67) : QColor(178, 24, 43);
    const QColor weightColor = dark ? QColor(116, 173, 209) : QColor(33, 102, 172);
    scoreBars_->setPen(QPen(scoreColor));
    scoreBars_->setBrush(QColor(scoreColor.red(), scoreColor.green(), scoreColor.blue(), 170));
    weightBars_->setPen(QPen(weightColor));
    weightBars_->setBrush(QColor(weightColor.red(), weightColor.green(), weightColor.blue(), 170));
    plot_->setBackground(pal.brush(QPalette::Base));
    plot_->axisRect()->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis, plot_->yAxis2}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
        axis->setTickLabelFont(font());
        axis->setLabelFont(font());
    }
    plot_->xAxis->grid()->setVisible(false);
    plot_->yAxis->setLabelColor(scoreColor);
    plot_->yAxis2->setLabelColor(weightColor);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void FocusPanel::updateTickRotation()
{
    // Key tokens lie flat while they fit side by side in the axis rectangle
    // (about three quarters of the plot), else they are turned.
    const QFontMetrics fm(plot_->xAxis->tickLabelFont());
    int labelsWidth = 0;
    for (const QString& label : keyLabels_)
        labelsWidth += fm.horizontalAdvance(label) + 2 * fm.averageCharWidth();
    const double rotation = labelsWidth > plot_->width() * 3 / 4 ? 60 : 0;
    if (plot_->xAxis->tickLabelRotation() != rotation) {
        plot_->xAxis->setTickLabelRotation(rotation);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

void FocusPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    updateTickRotation();
}

void FocusPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        stylePlot();
    QWidget::changeEvent(event);
}

}  // namespace attnlab
