// SPDX-License-Identifier: GPL-3.0-or-later
#include "focuspanel.h"

#include "colormap.h"
#include "focusbars.h"
#include "focussortmodel.h"
#include "focustablemodel.h"
#include "displaylabel.h"
#include "heatmaplabelpainter.h"
#include "heatmapview.h"
#include "numberdelegate.h"
#include "presentation.h"
#include "session.h"
#include "textwidths.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <initializer_list>

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

// Key labels under the bars: about this many at most, evenly spaced.
constexpr int kMaxKeyTicks = 32;

// A token in the title, the mix and under the bars: at most 12 widths of
// "M" (a word of thousands of letters does not wrap and would hold the panel
// that wide).
QString shortLabel(const QFontMetrics& fm, const QString& token)
{
    return HeatmapLabelPainter::elidedLabel(fm, token, 12 * fm.horizontalAdvance(QLatin1Char('M')));
}

// Each key's pair of bars gets at least this many pixels of the plot's width.
constexpr int kPixelsPerKey = 6;

}  // namespace

FocusPanel::FocusPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session)
{
    title_ = new QLabel(this);
    title_->setObjectName(QStringLiteral("focusTitle"));
    title_->setWordWrap(true);
    QFont titleFont = title_->font();
    titleFont.setBold(true);
    title_->setFont(titleFont);

    // Captions and the plot give way on a narrow screen (1024 pixels: the
    // table keeps its numbers' width); the captions wrap.
    qCaption_ = new QLabel(this);
    qCaption_->setWordWrap(true);
    qVector_ = new HeatmapView(this);
    qVector_->setObjectName(QStringLiteral("focusQueryVector"));
    qVector_->setAccessibleName(tr("Query vector of the focused query"));
    qVector_->setColorMap(HeatmapView::ColorMap::Diverging);
    qVector_->setMinimumSize(120, 58);  // a strip: narrower than a map may be
    zCaption_ = new QLabel(this);
    zCaption_->setWordWrap(true);
    zVector_ = new HeatmapView(this);
    zVector_->setObjectName(QStringLiteral("focusContextVector"));
    zVector_->setAccessibleName(tr("Context vector of the focused query"));
    zVector_->setColorMap(HeatmapView::ColorMap::Diverging);
    zVector_->setMinimumSize(120, 58);
    mixing_ = new QLabel(this);
    mixing_->setObjectName(QStringLiteral("focusMixingLabel"));
    mixing_->setAccessibleName(tr("Context vector as a mix of values"));
    mixing_->setWordWrap(true);
    mixing_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("focusPlot"));
    // A replot marks the plot for the window's next paint, with the other
    // views and after their layouts settle; QCustomPlot's default repaint()
    // painted every view then and there, and again once labels had resized.
    plot_->setPlottingHint(QCP::phImmediateRefresh, false);
    plot_->setAccessibleName(tr("Scores and weights of the focused query"));
    plot_->setMinimumSize(180, 110);  // the bottom dock of a 700-pixel screen is about 130 high
    plot_->setToolTip(
        tr("Left axis: the dot products q_i · k_j. Right axis: the softmax "
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
    // Bars are upright rectangles, crisp without antialiasing; with it, each
    // one costs a coverage pass of its whole height (about a millisecond).
    for (QCPBars* b : {scoreBars_, weightBars_}) {
        b->setAntialiased(false);
        b->setAntialiasedFill(false);
    }
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setRange(0.0, 1.0);
    // The axis labels name the bars in their colours (fitAxisLabels); a
    // legend would cover them. Their lengths do not move the axis rectangle
    // (only their line heights do), so fitting them, and the number of key
    // labels that follows its width, after each layout settles at once.
    connect(plot_, &QCustomPlot::afterLayout, this, [this] {
        fitAxisLabels();
        updateTicks();
    });

    tableModel_ = new FocusTableModel(session_, this);
    table_ = new QTableView(this);
    table_->setObjectName(QStringLiteral("focusTable"));
    table_->setAccessibleName(tr("Keys of the focused query"));
    sortModel_ = new FocusSortModel(this);
    sortModel_->setSourceModel(tableModel_);
    table_->setModel(sortModel_);
    // A click on a column's header sorts by it; "key" restores the sentence's
    // order.
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder);
    table_->horizontalHeader()->setSortIndicatorShown(true);
    table_->setItemDelegate(new NumberDelegate(table_));
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    // Widths are set from the numbers' format (sizeColumns), not measured
    // cell by cell on every change.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setTabKeyNavigation(false);  // read only: Tab leaves, arrows move inside
    // As wide as its columns: the numbers are the point of the table.
    table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    table_->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Expanding);

    // The vectors' column scrolls on its own in a short dock (its wrapped
    // captions and the mixture are taller than the plot needs), so that the
    // plot and the table keep the dock's whole height: with the column setting
    // the panel's height, a 230-pixel dock showed only the top of the bars.
    auto* column = new QWidget;
    column->setObjectName(QStringLiteral("focusVectors"));
    auto* vectors = new QVBoxLayout(column);
    vectors->setContentsMargins(0, 0, 0, 0);
    vectors->addWidget(title_);
    vectors->addWidget(qCaption_);
    vectors->addWidget(qVector_, 1);
    vectors->addWidget(zCaption_);
    vectors->addWidget(zVector_, 1);
    vectors->addWidget(mixing_);
    auto* columnScroll = new QScrollArea(this);
    columnScroll->setObjectName(QStringLiteral("focusVectorsScroll"));
    columnScroll->setWidgetResizable(true);
    columnScroll->setFrameShape(QFrame::NoFrame);
    columnScroll->setWidget(column);
    columnScroll->setFocusPolicy(Qt::NoFocus);  // Tab goes to the plot and the table, as before
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(columnScroll, 1);
    layout->addWidget(plot_, 1);
    layout->addWidget(table_);

    stylePlot();
    connect(session_, &Session::resultChanged, this, &FocusPanel::refresh);
    connect(session_, &Session::previewChanged, this, &FocusPanel::refresh);
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
    // The selected head's newest numbers, as the maps show them.
    const std::shared_ptr<const attn::AttentionResult> shown = session_->shownResult();
    const attn::AttentionResult& r = *shown;
    // Repeated words carry their position ("to#4") in the labels.
    const QStringList tokens = session_->published()->labels();
    const int n = r.tokens();
    if (n == 0 || query_ < 0 || query_ >= n || tokens.size() != n)
        return;
    const int i = query_;
    const QString token = tokens[i];

    title_->setText(tr("Query %1 \"%2\": how its context vector is built")
                        .arg(i + 1)
                        .arg(shortLabel(title_->fontMetrics(), session_->published()->tokens().value(i))));
    qCaption_->setText(tr("1. Its query q_%1 = x_%1 W_q (d_k = %2)").arg(i + 1).arg(r.Q.cols()));
    const double qRange = symmetricRange(r.Q.row(i));
    qVector_->setData(r.Q.row(i), {token}, dimensionLabels(int(r.Q.cols())));
    qVector_->setRange(-qRange, qRange);

    zCaption_->setText(tr("4. Its context z_%1 = Σ_j a_%1j v_j (d_v = %2)").arg(i + 1).arg(r.V.cols()));
    const double zRange = symmetricRange(r.context.row(i));
    zVector_->setData(r.context.row(i), {token}, dimensionLabels(int(r.V.cols())));
    zVector_->setRange(-zRange, zRange);
    // The query's weights, computed once for the mix, the bars and the
    // column widths (each read of a weight is an exponential).
    std::vector<double> w(static_cast<std::size_t>(n));
    r.weightsRow(i, w.data());
    mixing_->setText(mixingText(r, w, tokens, i));

    // One bar per key, or per run of keys (see focusBars) once a key would
    // get less than kPixelsPerKey of the plot: a bar under a pixel shows
    // nothing more, and each one is a polygon to fill (at 2,048 keys, 4,096
    // of them took most of a second of the GUI thread on every change).
    const FocusBars bars = focusBars(r.scores.data() + std::size_t(i) * n, w.data(), n, barsThatFit());
    const int group = bars.group;
    barGroup_ = group;

    const auto vec = [](const std::vector<double>& v) { return QVector<double>(v.begin(), v.end()); };
    scoreBars_->setWidth(0.38 * group);
    weightBars_->setWidth(0.38 * group);
    scoreBars_->setData(vec(bars.keys), vec(bars.scores), true);
    weightBars_->setData(vec(bars.keys), vec(bars.weights), true);
    if (tokens != tickTokens_) {
        tickTokens_ = tokens;
        updateTicks();
        sizeKeyColumn();
    }
    plot_->xAxis->setRange(0.4, n + 0.6);
    if (group == 1)
        xLabels_ = {tr("2. q_%1 · k_j for every key, 3. the weights").arg(i + 1),
                    tr("2. q_%1 · k_j, 3. weights").arg(i + 1), tr("q·k, weights")};
    else
        xLabels_ = {
            tr("2. q_%1 · k_j, 3. the weights (each bar: the largest of %2 keys)").arg(i + 1).arg(group),
            tr("2. q_%1 · k_j, 3. weights (max of %2)").arg(i + 1).arg(group),
            tr("q·k, weights (max of %1)").arg(group)};
    fitAxisLabels();
    const double range = symmetricRange(r.scores.row(i));
    plot_->yAxis->setRange(-range * 1.05, range * 1.05);
    plot_->yAxis2->setRange(-1.05, 1.05);
    plot_->replot(QCustomPlot::rpQueuedReplot);

    tableModel_->show(i);
    sizeNumberColumns(r, w, i);
}

QString FocusPanel::mixingText(const attn::AttentionResult& r, const std::vector<double>& w,
                               const QStringList& tokens, int i) const
{
    // The keys the query attends to (all, up to itself with a causal mask,
    // or the mask's window and sinks: masked keys add nothing); at most kMaxMixingTerms written out,
    // more would make a paragraph nobody reads (and a label that costs a
    // text layout of thousands of words on every change).
    // The sum (another pass over the row) only matters when keys are left out.
    const attn::VisibleKeys vis = r.visible(i);
    const int keys = vis.count();
    std::vector<double> kept(static_cast<std::size_t>(keys));
    for (int c = 0; c < keys; ++c)
        kept[std::size_t(c)] = w[std::size_t(vis.key(c))];
    const FocusMixture mix =
        focusMixture(kept.data(), keys, keys > kMaxMixingTerms ? weightRowSum(r, i) : 1.0);
    QStringList terms;
    for (const int c : mix.keys) {
        const int j = vis.key(c);
        terms.append(QStringLiteral("%1·v(%2)")
                         .arg(QString::number(w[std::size_t(j)], 'f', 3),
                              shortLabel(mixing_->fontMetrics(), tokens[j])));
    }
    if (mix.otherKeys == 0)
        return tr("z_%1 = %2").arg(i + 1).arg(terms.join(QStringLiteral(" + ")));
    return tr("z_%1 = %2 + … (%3 more keys with %4 of the weight)")
        .arg(i + 1)
        .arg(terms.join(QStringLiteral(" + ")))
        .arg(mix.otherKeys)
        .arg(QString::number(mix.otherWeight, 'f', 3));
}

void FocusPanel::sizeKeyColumn()
{
    // As wide as the widest "j token" label; measured when the tokens change.
    const QFontMetrics fm(table_->font());
    const int pad =
        2 * fm.averageCharWidth() + 2 * table_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin);
    int widest = fm.horizontalAdvance(tr("key"));
    QFont bold = table_->font();
    bold.setBold(true);
    widest = std::max(widest, QFontMetrics(bold).horizontalAdvance(tr("sum")));
    const QStringList tokens = session_->published()->tokens();  // the key column's plain words
    TextWidths widths(table_->font());
    for (int j = 0; j < tokens.size(); ++j)
        widest =
            std::max(widest, widths.advance(QStringLiteral("%1 %2").arg(j + 1).arg(displayLabel(tokens[j]))));
    table_->horizontalHeader()->resizeSection(0, std::min(widest, fm.averageCharWidth() * 30) + pad);
}

void FocusPanel::sizeNumberColumns(const attn::AttentionResult& r, const std::vector<double>& weights, int i)
{
    // Numbers are as wide as their characters (digits share one width): the
    // widest text of a column comes from its extremes or from its smallest
    // non-zero magnitude (printed in scientific notation below 1e-3).
    // Columns grow at once but shrink only when far too wide, so that they
    // do not jitter while a slider moves.
    const QFontMetrics fm(table_->font());
    const int pad = fm.averageCharWidth() + 2 * table_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin);
    QFont bold = table_->font();
    bold.setBold(true);
    const int sum = QFontMetrics(bold).horizontalAdvance(formatForDisplay(1.0));
    const FocusExtremes e =
        focusExtremes(r.scores.data() + std::size_t(i) * r.tokens(), weights.data(), r.tokens());
    const double lo = e.lowScore, hi = e.highScore, tinyScore = e.tinyScore, tinyWeight = e.tinyWeight;
    auto widest = [&](std::initializer_list<double> values) {
        int w = sum;
        for (const double v : values) {
            if (std::isfinite(v))
                w = std::max(w, fm.horizontalAdvance(formatForDisplay(v)));
        }
        return w;
    };
    QHeaderView* header = table_->horizontalHeader();
    const QFontMetrics headerFm(header->font());
    const int widths[] = {
        widest({lo, hi, tinyScore}),
        std::max(widest({lo / r.divisor, hi / r.divisor, tinyScore / r.divisor}),
                 fm.horizontalAdvance(tr("masked"))),
        widest({tinyWeight, 1.0}),
    };
    for (int c = 1; c < FocusTableModel::kColumns; ++c) {
        const QString title = tableModel_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
        const int w = std::max(widths[c - 1], headerFm.horizontalAdvance(title)) + pad;
        if (w > numberColumnWidths_[c - 1] || numberColumnWidths_[c - 1] > 2 * w) {
            numberColumnWidths_[c - 1] = w;
            header->resizeSection(c, w);
        }
    }
}

void FocusPanel::stylePlot()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor grid = pal.color(QPalette::Mid);
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    const QColor scoreColor = colormap::rawCurve(dark);
    const QColor weightColor = colormap::scaledCurve(dark);
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

void FocusPanel::fitAxisLabels()
{
    const QFontMetrics fm(plot_->xAxis->labelFont());
    // A label is centred on its side of the axis rectangle (before the
    // first layout, on the plot's centre) and clipped by the plot's edges:
    // its room is twice the nearer edge's distance from that centre.
    const QRect rect = plot_->axisRect()->rect();
    const QPoint centre = rect.isEmpty() ? plot_->rect().center() : rect.center();
    const int width = 2 * std::min(centre.x(), plot_->width() - centre.x()) - fm.averageCharWidth();
    const int height = 2 * std::min(centre.y(), plot_->height() - centre.y()) - fm.averageCharWidth();
    // The first that fits, else the shortest (the last).
    const auto pick = [&fm](const QStringList& forms, int room) {
        for (const QString& form : forms) {
            if (fm.horizontalAdvance(form) <= room)
                return form;
        }
        return forms.back();
    };
    const QString x = pick(xLabels_, width);
    const QString left = pick({tr("q · k (red)"), tr("q·k")}, height);
    const QString right = pick({tr("weight (blue)"), tr("a_ij")}, height);
    if (x == plot_->xAxis->label() && left == plot_->yAxis->label() && right == plot_->yAxis2->label())
        return;
    plot_->xAxis->setLabel(x);
    plot_->yAxis->setLabel(left);
    plot_->yAxis2->setLabel(right);
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
    const double rotation = labelsWidth > axisWidth() ? 60 : 0;
    if (plot_->xAxis->tickLabelRotation() != rotation) {
        plot_->xAxis->setTickLabelRotation(rotation);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

int FocusPanel::axisWidth() const
{
    // About three quarters of the plot before its first layout; in a narrow
    // plot the axes' numbers take more.
    const int laidOut = plot_->axisRect()->width();
    return laidOut > 0 ? laidOut : plot_->width() * 3 / 4;
}

int FocusPanel::barsThatFit() const
{
    return std::clamp(axisWidth() / kPixelsPerKey, 16, kMaxFocusBars);
}

void FocusPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    updateTicks();
    fitAxisLabels();
    // A wider or narrower plot holds more or fewer bars.
    const int n = session_->shownResult()->tokens();
    if (n > 0 && focusBarGroup(n, barsThatFit()) != barGroup_)
        refresh();
}

void FocusPanel::updateTicks()
{
    // Every key is labelled while they are few; beyond, every step-th one:
    // at most kMaxKeyTicks, and no more than turned labels a line and a half
    // apart fit along the axis, so that they stay legible and cheap to lay
    // out.
    const int n = tickTokens_.size();
    const QFontMetrics fm(plot_->xAxis->tickLabelFont());
    const int fitting = std::max(2, int(axisWidth() / (1.5 * fm.height())));
    const int maxTicks = std::min(kMaxKeyTicks, fitting);
    const int step = n > maxTicks ? (n + maxTicks - 1) / maxTicks : 1;
    QVector<double> tickKeys;
    QVector<QString> labels;
    for (int j = 0; j < n; j += step) {
        tickKeys.append(j + 1);
        labels.append(shortLabel(fm, tickTokens_[j]));
    }
    const QStringList shown(labels.begin(), labels.end());
    if (shown != keyLabels_ || plot_->xAxis->ticker().isNull()) {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        ticker->setTicks(tickKeys, labels);
        plot_->xAxis->setTicker(ticker);
        keyLabels_ = shown;
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    updateTickRotation();
}

void FocusPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        stylePlot();
    if (event->type() == QEvent::FontChange) {
        // The children have the new font by now. The columns are measured
        // afresh for it: kept from a larger font (presentation mode), they
        // would hold the panel, and the window, wider than before.
        std::fill(std::begin(numberColumnWidths_), std::end(numberColumnWidths_), 0);
        table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
        tickTokens_.clear();
        refresh();
    }
    QWidget::changeEvent(event);
}

}  // namespace attnlab
