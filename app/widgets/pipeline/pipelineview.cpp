// SPDX-License-Identifier: GPL-3.0-or-later
#include "pipelineview.h"

#include "compactmaps.h"
#include "elidedlabel.h"
#include "heatmapview.h"
#include "highlightframe.h"
#include "presentation.h"
#include "relativefont.h"
#include "resultcells.h"
#include "scoreranges.h"
#include "session.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QActionGroup>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QTabWidget>
#include <QVBoxLayout>

#include <iterator>

namespace attnlab {

namespace {

HeatmapView* makeMap(const QString& name, HeatmapView::ColorMap colorMap, QWidget* parent)
{
    auto* map = new HeatmapView(parent);
    map->setObjectName(name);
    map->setColorMap(colorMap);
    // Tab reaches the maps; Up/Down then move the focused query (MainWindow).
    map->setFocusPolicy(Qt::StrongFocus);
    return map;
}

QLabel* makeOperation(const QString& name, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setAlignment(Qt::AlignCenter);
    // In the maps' font, a word a line: the column stays narrow, so that
    // the maps keep their numbers on a projector (CompactMaps).
    setRelativeFont(label, 1.0);
    label->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    label->setContentsMargins(2, 0, 2, 0);
    return label;
}

}  // namespace

PipelineView::PipelineView(Session* session, QWidget* parent) : QWidget(parent), session_(session)
{
    raw_ = makeMap(QStringLiteral("rawScoresMap"), HeatmapView::ColorMap::Diverging, this);
    scaled_ = makeMap(QStringLiteral("scaledScoresMap"), HeatmapView::ColorMap::Diverging, this);
    weights_ = makeMap(QStringLiteral("weightsMap"), HeatmapView::ColorMap::Sequential, this);
    raw_->setToolTip(tr("Raw scores S = Q Kᵀ: row i, column j is q_i · k_j."));
    scaled_->setToolTip(tr("Scaled scores S / divisor; masked cells are −∞."));
    weights_->setToolTip(tr("Attention weights: the softmax of each row of the scaled scores."));
    compact_ = new CompactMaps({raw_, scaled_, weights_}, this);
    for (HeatmapView* map : {raw_, scaled_, weights_})
        map->setToolTipProvider([this](int row, int col) { return scoreCellToolTip(*session_, row, col); });
    scaleOp_ = makeOperation(QStringLiteral("scaleOperationLabel"), this);
    softmaxOp_ = makeOperation(QStringLiteral("softmaxOperationLabel"), this);
    softmaxOp_->setText(tr("softmax\n→"));
    softmaxOp_->setToolTip(
        tr("Each row is exponentiated and divided by its sum: the weights of "
           "one query are positive and sum to 1."));

    formula_ = new ElidedLabel(this);
    formula_->setObjectName(QStringLiteral("formulaLabel"));
    // One line: a word-wrapped label would make the scroll area below size
    // the page by its preferred height instead of its minimum.
    formula_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    independent_ = new QCheckBox(tr("Inde&pendent colour ranges"), this);
    independent_->setObjectName(QStringLiteral("independentRangesCheck"));
    independent_->setAccessibleName(tr("Independent colour ranges"));
    independent_->setToolTip(
        tr("Off: raw and scaled scores share one colour range, so the "
           "shrinking by the divisor shows as paler colours. On: each map "
           "uses its own range."));

    weightsScaleBox_ = new QComboBox(this);
    weightsScaleBox_->setObjectName(QStringLiteral("weightsScaleBox"));
    for (const WeightsScaleMode mode : weightsScaleModes())
        weightsScaleBox_->addItem(weightsScaleModeName(mode), int(mode));
    weightsScaleBox_->setAccessibleName(tr("Colour scale of the weights"));
    weightsScaleBox_->setToolTip(tr("How the weights map colours its cells. Automatic: linear 0 … 1 "
                                    "up to %1 tokens, logarithmic above, where most weights are "
                                    "near 1/n and a linear scale draws them white. Per row: each "
                                    "row from 0 to its own largest weight.")
                                     .arg(kLinearWeightsTokens));
    auto* scaleLabel = new QLabel(tr("Weights colour:"), this);
    scaleLabel->setBuddy(weightsScaleBox_);

    // Said when a shared range leaves the scaled map nearly white, with the
    // switch to independent ranges at hand.
    rangeNote_ = new QLabel(this);
    rangeNote_->setObjectName(QStringLiteral("scaledRangeNoteLabel"));
    rangeNote_->setAccessibleName(tr("Colour range note"));
    rangeNote_->setWordWrap(true);
    rangeNote_->setTextFormat(Qt::RichText);
    rangeNote_->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    rangeNote_->hide();
    connect(rangeNote_, &QLabel::linkActivated, this, [this] { setIndependentRanges(true); });

    auto* header = new QHBoxLayout;
    header->addWidget(formula_, 1);
    header->addWidget(scaleLabel);
    header->addWidget(weightsScaleBox_);
    header->addWidget(independent_);
    auto* row = new QHBoxLayout;
    // The operations keep their own margins; the maps have the width.
    row->setSpacing(0);
    row->addWidget(framed(raw_), 1);
    row->addWidget(scaleOp_);
    row->addWidget(framed(scaled_), 1);
    row->addWidget(softmaxOp_);
    row->addWidget(framed(weights_), 1);
    auto* pipeline = new QWidget(this);
    pipeline->setObjectName(QStringLiteral("pipelinePage"));
    auto* pipelineLayout = new QVBoxLayout(pipeline);
    pipelineLayout->addLayout(header);
    pipelineLayout->addWidget(rangeNote_);
    pipelineLayout->addLayout(row, 1);

    q_ = makeMap(QStringLiteral("queryMap"), HeatmapView::ColorMap::Diverging, this);
    k_ = makeMap(QStringLiteral("keyMap"), HeatmapView::ColorMap::Diverging, this);
    v_ = makeMap(QStringLiteral("valueMap"), HeatmapView::ColorMap::Diverging, this);
    z_ = makeMap(QStringLiteral("contextMap"), HeatmapView::ColorMap::Diverging, this);
    q_->setToolTip(tr("Queries Q = X W_q: one row per token, d_k columns."));
    k_->setToolTip(tr("Keys K = X W_k: one row per token, d_k columns."));
    v_->setToolTip(tr("Values V = X W_v: one row per token, d_v columns."));
    z_->setToolTip(
        tr("Context vectors Z = A V: row i mixes the value rows with query i's "
           "weights."));
    // Four maps share the height of the three above, so they may be smaller.
    for (HeatmapView* map : {q_, k_, v_, z_})
        map->setMinimumSize(200, 130);
    auto* projections = new QWidget(this);
    projections->setObjectName(QStringLiteral("projectionsPage"));
    auto* grid = new QGridLayout(projections);
    grid->addWidget(framed(q_), 0, 0);
    grid->addWidget(framed(k_), 0, 1);
    grid->addWidget(framed(v_), 1, 0);
    grid->addWidget(framed(z_), 1, 1);

    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("mapsTabs"));
    tabs_->setAccessibleName(tr("Maps"));
    addPage(pipeline, tr("Scores → &weights"));
    addPage(projections, tr("&Q, K, V and context Z"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs_);
    // Tab goes from the page tabs to the check box and the maps in reading order.
    QWidget* const order[] = {tabs_, weightsScaleBox_, independent_, raw_, scaled_, weights_, q_, k_, v_, z_};
    for (size_t i = 1; i < std::size(order); ++i)
        QWidget::setTabOrder(order[i - 1], order[i]);

    for (HeatmapView* map : maps())
        connect(map, &HeatmapView::rowClicked, this, &PipelineView::queryClicked);
    connect(independent_, &QCheckBox::toggled, this, [this](bool on) {
        applyRanges();
        emit independentRangesChanged(on);
    });
    connect(weightsScaleBox_, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this](int index) {
        setWeightsScaleMode(WeightsScaleMode(weightsScaleBox_->itemData(index).toInt()));
    });
    connect(session_, &Session::resultChanged, this, &PipelineView::refresh);
    connect(session_, &Session::previewChanged, this, &PipelineView::refresh);
    refresh();
}

void PipelineView::setWeightsScaleMode(WeightsScaleMode mode)
{
    const int index = weightsScaleBox_->findData(int(mode));
    if (index >= 0 && weightsScaleBox_->currentIndex() != index)
        weightsScaleBox_->setCurrentIndex(index);  // comes back here
    if (mode == weightsScaleMode_)
        return;
    weightsScaleMode_ = mode;
    applyWeightsScale(weights_, weightsScale());
    compact_->refit();
    emit weightsScaleModeChanged(mode);
}

QMenu* PipelineView::createWeightsScaleMenu(QWidget* parent)
{
    auto* menu = new QMenu(tr("Weights &colour scale"), parent);
    menu->setObjectName(QStringLiteral("weightsScaleMenu"));
    auto* group = new QActionGroup(menu);
    const struct {
        WeightsScaleMode mode;
        QString text;
    } entries[] = {{WeightsScaleMode::Automatic, tr("&Automatic")},
                   {WeightsScaleMode::Linear, tr("&Linear 0 … 1")},
                   {WeightsScaleMode::PerRow, tr("&Per row (0 … row max)")},
                   {WeightsScaleMode::Log, tr("L&ogarithmic")}};
    for (const auto& e : entries) {
        QAction* action = menu->addAction(e.text);
        action->setCheckable(true);
        action->setChecked(e.mode == weightsScaleMode_);
        group->addAction(action);
        const WeightsScaleMode mode = e.mode;
        connect(action, &QAction::triggered, this, [this, mode] { setWeightsScaleMode(mode); });
        connect(this, &PipelineView::weightsScaleModeChanged, action,
                [action, mode](WeightsScaleMode now) { action->setChecked(now == mode); });
    }
    return menu;
}

WeightsScale PipelineView::weightsScale() const
{
    return chooseWeightsScale(weightsScaleMode_, session_->shownResult()->tokens());
}

QList<HeatmapView*> PipelineView::maps() const
{
    return {raw_, scaled_, weights_, q_, k_, v_, z_};
}

QWidget* PipelineView::framed(HeatmapView* map)
{
    // Three pixels of highlight, transparent when off, so that the map does
    // not move when framed.
    auto* frame = new HighlightFrame(3, 5, this);
    frame->setObjectName(map->objectName() + QStringLiteral("Frame"));
    auto* layout = new QVBoxLayout(frame);
    layout->setContentsMargins(1, 1, 1, 1);
    layout->addWidget(map);
    frames_.insert(map, frame);
    return frame;
}

void PipelineView::addPage(QWidget* page, const QString& title)
{
    // In scroll areas, so that a small window scrolls the maps rather than
    // clipping them or growing past the screen. Not widgetResizable: that
    // sizes a page holding word-wrapped text by its preferred height, which
    // scrolls even when the page would fit. fitPage sizes it instead.
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(page->objectName() + QStringLiteral("Scroll"));
    // Tab goes to the controls and maps inside, which scroll into view.
    scroll->setFocusPolicy(Qt::NoFocus);
    scroll->setWidget(page);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->viewport()->installEventFilter(this);
    page->installEventFilter(this);
    tabs_->addTab(scroll, title);
}

void PipelineView::fitPage(int index)
{
    auto* scroll = qobject_cast<QScrollArea*>(tabs_->widget(index));
    if (!scroll || !scroll->widget())
        return;
    QWidget* page = scroll->widget();
    const QSize size = scroll->viewport()
                           ->size()
                           .expandedTo(page->minimumSizeHint())
                           .expandedTo(page->minimumSize())
                           .boundedTo(page->maximumSize());
    if (page->size() != size)
        page->resize(size);
}

bool PipelineView::eventFilter(QObject* watched, QEvent* event)
{
    // The viewport resized, or a page's minimum may have changed.
    if (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest) {
        for (int i = 0; i < tabs_->count(); ++i) {
            auto* scroll = qobject_cast<QScrollArea*>(tabs_->widget(i));
            if (scroll && (watched == scroll->viewport() || watched == scroll->widget())) {
                fitPage(i);
                break;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

void PipelineView::showPage(QWidget* page)
{
    for (int i = 0; i < tabs_->count(); ++i) {
        QWidget* candidate = pageAt(i);
        if (candidate && (candidate == page || candidate->isAncestorOf(page))) {
            tabs_->setCurrentIndex(i);
            return;
        }
    }
}

QWidget* PipelineView::pageAt(int index) const
{
    QWidget* tab = tabs_->widget(index);
    auto* scroll = qobject_cast<QScrollArea*>(tab);
    return scroll ? scroll->widget() : tab;
}

QWidget* PipelineView::currentPage() const
{
    return pageAt(tabs_->currentIndex());
}

void PipelineView::setHighlightedMap(HeatmapView* map)
{
    if (map && !maps().contains(map))
        map = nullptr;
    if (highlighted_ != map) {
        if (highlighted_)
            frames_.value(highlighted_)->setHighlighted(false);
        highlighted_ = map;
        if (highlighted_)
            frames_.value(highlighted_)->setHighlighted(true);
    }
    if (highlighted_)
        showPage(highlighted_);
}

bool PipelineView::independentRanges() const
{
    return independent_->isChecked();
}

void PipelineView::setIndependentRanges(bool independent)
{
    independent_->setChecked(independent);
}

void PipelineView::setFocusQuery(int query)
{
    for (HeatmapView* map : {raw_, scaled_, weights_, q_, z_})
        map->setFocusRow(query);
}

void PipelineView::applyRanges()
{
    const ScoreRanges ranges = ScoreRanges::of(*session_->shownResult(), independentRanges());
    raw_->setDecimals(ranges.rawDecimals);
    scaled_->setDecimals(ranges.scaledDecimals);
    raw_->setRange(-ranges.raw, ranges.raw);
    scaled_->setRange(-ranges.scaled, ranges.scaled);
    const QString note = ranges.washedOutNote();
    if (!note.isEmpty())
        rangeNote_->setText(QStringLiteral("%1 <a href=\"independent\">%2</a>")
                                .arg(note.toHtmlEscaped(), tr("Give each map its own range")));
    rangeNote_->setVisible(!note.isEmpty());
    compact_->refit();
}

void PipelineView::refresh()
{
    // The selected head's newest numbers: a preview of the request in
    // flight (Session::preview) or the result.
    const std::shared_ptr<const attn::AttentionResult> shared = session_->shownResult();
    const attn::AttentionResult& r = *shared;
    const QStringList tokens = session_->published()->labels();
    const QString divisor = divisorText(*session_);
    const int dK = int(r.Q.cols());
    const int dV = int(r.V.cols());

    raw_->setTitle(tr("Raw scores Q Kᵀ"));
    scaled_->setTitle(tr("Scaled Q Kᵀ ÷ %1").arg(divisor));
    weights_->setTitle(tr("Weights A (rows sum to 1)"));
    // The maps read the session's result itself (no n x n copies).
    // The worker's samples of this result where it took them, so that the
    // maps read no scattered cells and take no exponentials here.
    // The maps sample into the session's cache: the worker samples the next
    // result at the same pictures.
    const std::shared_ptr<ResultSampleCache> samples = session_->shownSampleCache();
    // The result that follows a preview is that preview: its maps stand.
    if (shared != shown_ || samples != samples_ || tokens != shownTokens_) {
        shown_ = shared;
        shownTokens_ = tokens;
        samples_ = samples;
        raw_->setCells(resultCells(shared, ResultMap::Scores, samples_), tokens, tokens);
        scaled_->setCells(resultCells(shared, ResultMap::Scaled, samples_), tokens, tokens);
        weights_->setCells(resultCells(shared, ResultMap::Weights, samples_), tokens, tokens);
    }
    weights_->setRange(0.0, 1.0);
    applyWeightsScale(weights_, weightsScale());
    applyRanges();
    // The mask under the division: what it hides, in the label's few characters.
    QString maskLine, maskTip, maskFormula;
    switch (r.appliedMask().kind) {
    case attn::AttentionMask::Kind::None: break;
    case attn::AttentionMask::Kind::Causal:
        maskLine = tr("mask\nj > i\n");
        maskTip = tr("; keys after the query are set to −∞");
        maskFormula = tr(" with a causal mask");
        break;
    case attn::AttentionMask::Kind::Sliding:
        maskLine = tr("mask\nW %1\n").arg(r.appliedMask().window);
        maskTip = tr("; keys after the query and before its window of %1 are set to −∞")
                      .arg(r.appliedMask().window);
        maskFormula = tr(" with a sliding window of %1").arg(r.appliedMask().window);
        break;
    case attn::AttentionMask::Kind::SinkWindow:
        maskLine = tr("mask\nS %1\nW %2\n").arg(r.appliedMask().sink).arg(r.appliedMask().window);
        maskTip = tr("; keys after the query, and those between the first %1 and its window of %2, are "
                     "set to −∞")
                      .arg(r.appliedMask().sink)
                      .arg(r.appliedMask().window);
        maskFormula = tr(" with %1 sink tokens and a window of %2")
                          .arg(r.appliedMask().sink)
                          .arg(r.appliedMask().window);
        break;
    }
    scaleOp_->setText(tr("÷\n%1\n%2→").arg(divisor, maskLine));
    scaleOp_->setToolTip(tr("Every score is divided by %1%2.").arg(divisor, maskTip));
    formula_->setText(tr("A = softmax(Q Kᵀ ÷ %1)%2; rows: queries, columns: keys. Hover a cell "
                         "for its numbers, click a row to focus that query.")
                          .arg(divisor, maskFormula));
    formula_->setToolTip(formula_->text());

    q_->setTitle(tr("Q = X W_q  (%1 × %2)").arg(r.tokens()).arg(dK));
    k_->setTitle(tr("K = X W_k  (%1 × %2)").arg(r.tokens()).arg(dK));
    v_->setTitle(tr("V = X W_v  (%1 × %2)").arg(r.tokens()).arg(dV));
    z_->setTitle(tr("Z = A V  (%1 × %2)").arg(r.tokens()).arg(dV));
    const QStringList kDims = dimensionLabels(dK);
    const QStringList vDims = dimensionLabels(dV);
    const double qkRange = symmetricRange(r.Q, r.K);
    q_->setDecimals(decimalsForRange(qkRange));
    k_->setDecimals(decimalsForRange(qkRange));
    q_->setData(r.Q, tokens, kDims);
    k_->setData(r.K, tokens, kDims);
    q_->setRange(-qkRange, qkRange);
    k_->setRange(-qkRange, qkRange);
    const double vRange = symmetricRange(r.V, r.context);
    v_->setDecimals(decimalsForRange(vRange));
    z_->setDecimals(decimalsForRange(vRange));
    v_->setData(r.V, tokens, vDims);
    z_->setData(r.context, tokens, vDims);
    v_->setRange(-vRange, vRange);
    z_->setRange(-vRange, vRange);
}

}  // namespace attnlab
