// SPDX-License-Identifier: GPL-3.0-or-later
#include "headlabpanel.h"

#include "head_scores.h"
#include "tokenitemdelegate.h"
#include "modelgridrenderer.h"
#include "modelsession.h"
#include "probebox.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab {

namespace {

QTableWidget* makeTable(const QStringList& headers, const QString& name, QWidget* parent)
{
    auto* table = new QTableWidget(0, int(headers.size()), parent);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(headers);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
    return table;
}

// The number in the cell's text (`decimals`), and whole in Qt::UserRole.
QTableWidgetItem* numberItem(double value, int decimals)
{
    const QString text = QString::number(value, 'f', decimals);
    auto* item = new QTableWidgetItem(text);
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

// A probability (or a change of one) as a percentage, 3 decimals: the
// next-token bars' unit; the probability whole in Qt::UserRole.
QTableWidgetItem* percentItem(double probability, bool sign = false)
{
    QString text = QString::number(100.0 * probability, 'f', 3) + QStringLiteral(" %");
    if (sign && probability >= 0.0)
        text.prepend(QLatin1Char('+'));
    auto* item = new QTableWidgetItem(text);
    item->setData(Qt::UserRole, probability);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString headText(int layer, int head)
{
    return HeadLabPanel::tr("L%1 H%2").arg(layer + 1).arg(head + 1);
}

// Why a score is empty for every head of the sentence.
QString emptyReason(attn::HeadScoreKind kind)
{
    switch (kind) {
    case attn::HeadScoreKind::DuplicateToken:
        return HeadLabPanel::tr("empty: no token of the sentence repeats an earlier one");
    case attn::HeadScoreKind::Induction:
        return HeadLabPanel::tr("empty: no token repeats one that has a token after it earlier");
    default: return HeadLabPanel::tr("empty: the sentence has one token");
    }
}

}  // namespace

HeadLabPanel::HeadLabPanel(ModelSession* session, QWidget* parent) : QTabWidget(parent), session_(session)
{
    scoresPage_ = new QWidget(this);
    ablationPage_ = new QWidget(this);
    score_ = new QComboBox(scoresPage_);
    score_->setObjectName(QStringLiteral("modelScoreBox"));
    score_->setAccessibleName(tr("Head score"));
    score_->addItem(tr("none"), -1);
    score_->addItem(tr("previous token"), int(attn::HeadScoreKind::PreviousToken));
    score_->addItem(tr("duplicate token"), int(attn::HeadScoreKind::DuplicateToken));
    score_->addItem(tr("induction"), int(attn::HeadScoreKind::Induction));
    score_->addItem(tr("first token (sink)"), int(attn::HeadScoreKind::FirstToken));
    // How the model keeps scores in range: the d_k lab's readouts on every head.
    score_->insertSeparator(score_->count());
    score_->addItem(tr("score variance"), kScoreRangeChoice + int(attn::ScoreRangeKind::ScoreVariance));
    score_->addItem(tr("scaled score variance"),
                    kScoreRangeChoice + int(attn::ScoreRangeKind::ScaledScoreVariance));
    score_->addItem(tr("largest weight (mean)"),
                    kScoreRangeChoice + int(attn::ScoreRangeKind::MeanMaxWeight));
    score_->addItem(tr("entropy (mean, nats)"), kScoreRangeChoice + int(attn::ScoreRangeKind::MeanEntropy));
    score_->setToolTip(
        tr("What each head does on this sentence, from its weights A (rows i, keys j, from 0):\n"
           "previous token: mean over i ≥ 1 of A[i, i−1];\n"
           "duplicate token: mean over the rows whose token appeared before of the weight on those "
           "earlier copies;\n"
           "induction: mean over those rows of the weight on the token after each earlier copy;\n"
           "first token: mean over i ≥ 1 of A[i, 0] (the attention sink).\n"
           "A score no row defines is empty.\n"
           "How the model keeps scores in range (the d_k lab's readouts):\n"
           "score variance: variance of the raw scores q·k (after RoPE) over the keys each query sees;\n"
           "scaled score variance: the same of the scores ÷ the divisor;\n"
           "largest weight: mean over the rows of the row's largest weight (1: one-hot);\n"
           "entropy: mean over the rows of −Σ a ln a (0: one-hot; ln n: uniform).\n"
           "Try the what-if “1 (no scaling)” and watch them change."));
    probe_ = new ProbeBox(session_, scoresPage_);
    probe_->setObjectName(QStringLiteral("modelProbeBox"));
    connect(probe_, &ProbeBox::message, this, &HeadLabPanel::message);
    scoreNote_ = new QLabel(scoresPage_);
    scoreNote_->setObjectName(QStringLiteral("modelScoreNote"));
    scoreNote_->setWordWrap(true);
    scoreNote_->hide();
    ranked_ = makeTable({tr("head"), tr("score")}, QStringLiteral("modelScoreTable"), scoresPage_);
    ranked_->setAccessibleName(tr("Heads ranked by the chosen score"));
    ranked_->setToolTip(tr("Every head by the chosen score, largest first; click one to select it."));

    mode_ = new QComboBox(ablationPage_);
    mode_->setObjectName(QStringLiteral("modelAblationModeBox"));
    mode_->setAccessibleName(tr("Ablation"));
    mode_->addItem(tr("zero"), int(attn::HeadAblation::Zero));
    mode_->addItem(tr("mean"), int(attn::HeadAblation::Mean));
    mode_->setToolTip(
        tr("zero: the head's context is set to 0 before the output projection; mean: each of its "
           "columns is replaced by its mean over the positions. Everything after it is recomputed."));
    selected_ = new QPushButton(ablationPage_);
    selected_->setObjectName(QStringLiteral("modelAblateSelectedButton"));
    selected_->setToolTip(
        tr("Ablate the selected head, or stop ablating it (Ctrl+click a head does "
           "the same)."));
    topK_ = new QSpinBox(ablationPage_);
    topK_->setObjectName(QStringLiteral("modelAblateTopSpin"));
    topK_->setRange(1, 1);
    topK_->setValue(1);
    topK_->setAccessibleName(tr("How many heads to ablate"));
    top_ = new QPushButton(tr("highest by score"), ablationPage_);
    top_->setObjectName(QStringLiteral("modelAblateTopButton"));
    top_->setToolTip(tr("Ablate the k heads with the largest chosen score (and no others)."));
    clear_ = new QPushButton(tr("None"), ablationPage_);
    clear_->setObjectName(QStringLiteral("modelAblationClearButton"));
    clear_->setToolTip(tr("Ablate no head: the intact model."));
    ablated_ = new QLabel(ablationPage_);
    ablated_->setObjectName(QStringLiteral("modelAblationLabel"));
    ablated_->setWordWrap(true);

    // "token", not "next token": the column is what is left beside the numbers.
    comparison_ = makeTable({tr("token"), tr("intact"), tr("ablated"), tr("change")},
                            QStringLiteral("modelAblationTable"), parent ? parent : this);
    comparison_->setAccessibleName(tr("Next tokens, intact and ablated"));
    comparison_->setItemDelegateForColumn(0, new TokenItemDelegate(comparison_));
    QHeaderView* columns = comparison_->horizontalHeader();
    columns->setStretchLastSection(false);
    columns->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int column = 1; column < 4; ++column)
        columns->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    columns->setMinimumSectionSize(4 * comparison_->fontMetrics().averageCharWidth());
    columns->setTextElideMode(Qt::ElideRight);
    comparison_->horizontalHeaderItem(0)->setToolTip(tr("The next token"));
    comparison_->setTextElideMode(Qt::ElideRight);
    comparison_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    comparison_->setToolTip(
        tr("The most likely next tokens of either pass, by the intact "
           "probability: softmax(logits / T) with and without the ablated heads."));
    comparison_->hide();

    tokenA_ = new QLineEdit(QStringLiteral(" film"), ablationPage_);
    tokenA_->setObjectName(QStringLiteral("modelLogitTokenA"));
    tokenA_->setAccessibleName(tr("First token of the logit difference"));
    tokenB_ = new QLineEdit(QStringLiteral(" book"), ablationPage_);
    tokenB_->setObjectName(QStringLiteral("modelLogitTokenB"));
    tokenB_->setAccessibleName(tr("Second token of the logit difference"));
    for (QLineEdit* edit : {tokenA_, tokenB_}) {
        edit->setToolTip(tr("A token of the model, its leading space included (“ film”)."));
        edit->setMaximumWidth(10 * fontMetrics().averageCharWidth());
    }
    difference_ = new QLabel(ablationPage_);
    difference_->setObjectName(QStringLiteral("modelLogitDifference"));
    difference_->setWordWrap(true);
    difference_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    difference_->setToolTip(
        tr("logit(first) − logit(second) at the last position: how much more the "
           "model favours the first token, intact and with the ablated heads."));

    auto* scoreRow = new QHBoxLayout;
    scoreRow->addWidget(new QLabel(tr("Score:"), scoresPage_));
    scoreRow->addWidget(score_, 1);
    auto* ablateRow = new QHBoxLayout;
    ablateRow->addWidget(new QLabel(tr("Ablate:"), ablationPage_));
    ablateRow->addWidget(mode_);
    ablateRow->addWidget(selected_, 1);
    auto* topRow = new QHBoxLayout;
    topRow->addWidget(topK_);
    topRow->addWidget(top_, 1);
    topRow->addWidget(clear_);
    auto* scores = new QVBoxLayout(scoresPage_);
    scores->setContentsMargins(2, 2, 2, 2);
    scores->setSpacing(2);
    scores->addLayout(scoreRow);
    scores->addWidget(probe_);
    scores->addWidget(scoreNote_);
    scores->addWidget(ranked_, 1);
    auto* layout = new QVBoxLayout(ablationPage_);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(ablateRow);
    layout->addLayout(topRow);
    layout->addWidget(ablated_);
    auto* differenceRow = new QHBoxLayout;
    differenceRow->addWidget(new QLabel(tr("Logit"), ablationPage_));
    differenceRow->addWidget(tokenA_);
    differenceRow->addWidget(new QLabel(QStringLiteral("−"), ablationPage_));
    differenceRow->addWidget(tokenB_);
    differenceRow->addWidget(difference_, 1);
    layout->addLayout(differenceRow);
    layout->addStretch(1);
    addTab(scoresPage_, tr("Scores"));
    addTab(ablationPage_, tr("Ablation"));
    connect(tokenA_, &QLineEdit::textChanged, this, &HeadLabPanel::showLogitDifference);
    connect(tokenB_, &QLineEdit::textChanged, this, &HeadLabPanel::showLogitDifference);

    connect(score_, &QComboBox::currentIndexChanged, this, [this] {
        showScores();
        showAblation();
        emit scoreChosen(scoreKind());
    });
    connect(ranked_, &QTableWidget::cellClicked, this, [this](int row, int) {
        const QTableWidgetItem* item = ranked_->item(row, 0);
        if (item && item->data(Qt::UserRole).isValid()) {
            const int tile = item->data(Qt::UserRole).toInt();
            session_->selectHead(tile / session_->config().heads, tile % session_->config().heads);
        }
    });
    const auto report = [this](const attn::Status& status) {
        if (!status)
            emit message(QString::fromStdString(status.error().message));
    };
    connect(mode_, &QComboBox::activated, this, [this, report] {
        report(session_->setAblation(session_->ablatedHeads(),
                                     attn::HeadAblation(mode_->currentData().toInt())));
        showAblation();
    });
    connect(selected_, &QPushButton::clicked, this,
            [this] { toggle(session_->selectedLayer(), session_->selectedHead()); });
    connect(top_, &QPushButton::clicked, this, &HeadLabPanel::ablateTop);
    connect(clear_, &QPushButton::clicked, this, [this, report] {
        report(session_->setAblation({}, session_->ablation()));
        showAblation();
    });
    connect(session_, &ModelSession::modelOpened, this, &HeadLabPanel::showResult);
    connect(session_, &ModelSession::resultChanged, this, &HeadLabPanel::showResult);
    connect(session_, &ModelSession::selectionChanged, this, &HeadLabPanel::showSelection);
    // An undo or an opened lab sets the ablation: the page and the grid follow at once.
    connect(session_, &ModelSession::ablationChanged, this, &HeadLabPanel::showAblation);
    showResult();
}

int HeadLabPanel::scoreKind() const
{
    return score_->currentData().toInt();
}

void HeadLabPanel::setScoreKind(int kind)
{
    const int at = score_->findData(kind);
    if (at >= 0)
        score_->setCurrentIndex(at);
}

void HeadLabPanel::showScorePage(attn::HeadScoreKind kind)
{
    setCurrentWidget(scoresPage_);
    setScoreKind(int(kind));
}

QString HeadLabPanel::scoreCaption() const
{
    if (scoreKind() >= kScoreRangeChoice)
        return score_->currentText();
    return scoreKind() < 0 ? QString() : tr("%1 score").arg(score_->currentText());
}

attn::Matrix HeadLabPanel::chosenScores() const
{
    const int kind = scoreKind();
    if (kind >= kScoreRangeChoice)
        return session_->scoreRangeMatrix(attn::ScoreRangeKind(kind - kScoreRangeChoice));
    return kind < 0 ? attn::Matrix() : session_->headScoreMatrix(attn::HeadScoreKind(kind));
}

bool HeadLabPanel::chosenScoresAreWeights() const
{
    const int kind = scoreKind();
    return kind < kScoreRangeChoice || kind == kScoreRangeChoice + int(attn::ScoreRangeKind::MeanMaxWeight);
}

std::vector<attn::HeadIndex> HeadLabPanel::chosenRanking() const
{
    const int kind = scoreKind();
    if (kind >= kScoreRangeChoice)
        return session_->rankedHeads(attn::ScoreRangeKind(kind - kScoreRangeChoice));
    return kind < 0 ? std::vector<attn::HeadIndex>() : session_->rankedHeads(attn::HeadScoreKind(kind));
}

void HeadLabPanel::showResult()
{
    const bool model = session_->hasModel();
    setEnabled(model);
    if (model)
        topK_->setRange(1, session_->config().layers * session_->config().heads);
    showScores();
    showAblation();
    showSelection();
    showLogitDifference();
}

void HeadLabPanel::showLogitDifference()
{
    if (!session_->result()) {
        difference_->clear();
        return;
    }
    const attn::Expected<ModelSession::LogitDifference> d =
        session_->logitDifference(tokenA_->text(), tokenB_->text());
    if (!d) {
        difference_->setText(QString::fromStdString(d.error().message));
        difference_->setProperty("intact", QVariant());
        difference_->setProperty("ablated", QVariant());
        return;
    }
    difference_->setProperty("intact", d->intact);
    difference_->setProperty("ablated", d->ablated ? QVariant(*d->ablated) : QVariant());
    difference_->setText(
        d->ablated ? tr("= %1 intact, %2 ablated")
                         .arg(QString::number(d->intact, 'f', 3), QString::number(*d->ablated, 'f', 3))
                   : tr("= %1").arg(QString::number(d->intact, 'f', 3)));
}

void HeadLabPanel::showSelection()
{
    const int layer = session_->selectedLayer();
    const int head = session_->selectedHead();
    selected_->setText(session_->isAblated(layer, head) ? tr("restore %1").arg(headText(layer, head))
                                                        : tr("ablate %1").arg(headText(layer, head)));
    selected_->setEnabled(session_->hasModel());
}

void HeadLabPanel::showScores()
{
    const int kind = scoreKind();
    ranked_->setRowCount(0);
    scoreNote_->hide();
    top_->setEnabled(kind >= 0 && session_->hasModel());
    if (kind >= kScoreRangeChoice) {
        showScoreRanges();
        return;
    }
    if (kind < 0 || session_->headScores().values.empty())
        return;
    const auto k = attn::HeadScoreKind(kind);
    const std::vector<attn::HeadIndex> order = session_->rankedHeads(k);
    const attn::HeadScoreTable& table = session_->headScores();
    if (order.empty()) {
        // The score is the sentence's to define: empty for every head, shown empty.
        scoreNote_->setText(emptyReason(k));
        scoreNote_->show();
        ranked_->setRowCount(1);
        ranked_->setItem(0, 0, new QTableWidgetItem(tr("every head")));
        ranked_->setItem(0, 1, new QTableWidgetItem(QString()));
        top_->setEnabled(false);
        return;
    }
    ranked_->setRowCount(int(order.size()));
    for (int row = 0; row < int(order.size()); ++row) {
        const attn::HeadIndex& h = order[std::size_t(row)];
        auto* name = new QTableWidgetItem(headText(h.layer, h.head));
        name->setData(Qt::UserRole, h.layer * table.heads + h.head);
        ranked_->setItem(row, 0, name);
        ranked_->setItem(row, 1, numberItem(*table.at(h.layer, h.head)[k], 4));
    }
    ranked_->resizeColumnsToContents();
}

void HeadLabPanel::showScoreRanges()
{
    const std::vector<attn::HeadIndex> order = chosenRanking();
    const attn::Matrix values = chosenScores();
    const bool weights = chosenScoresAreWeights();
    ranked_->setRowCount(int(order.size()));
    for (int row = 0; row < int(order.size()); ++row) {
        const attn::HeadIndex& h = order[std::size_t(row)];
        auto* name = new QTableWidgetItem(headText(h.layer, h.head));
        name->setData(Qt::UserRole, h.layer * int(values.cols()) + h.head);
        ranked_->setItem(row, 0, name);
        // A variance spans decades: four significant digits; a weight or an entropy four decimals.
        const double v = values(h.layer, h.head);
        auto* item = numberItem(v, 4);
        if (!weights && scoreKind() != kScoreRangeChoice + int(attn::ScoreRangeKind::MeanEntropy))
            item->setText(QString::number(v, 'g', 4));
        ranked_->setItem(row, 1, item);
    }
    ranked_->resizeColumnsToContents();
}

void HeadLabPanel::showAblation()
{
    const std::vector<attn::HeadIndex>& heads = session_->ablatedHeads();
    mode_->setCurrentIndex(mode_->findData(int(session_->ablation())));
    clear_->setEnabled(!heads.empty());
    if (heads.empty()) {
        ablated_->setText(tr("No head ablated (Ctrl+click a head to ablate it)."));
    } else {
        QStringList names;
        for (const attn::HeadIndex& h : heads)
            names << headText(h.layer, h.head);
        ablated_->setText(tr("Ablated (%1): %2").arg(mode_->currentText(), names.join(QStringLiteral(", "))));
    }
    showSelection();
    const std::vector<attn::NextTokenChange>& changes = session_->nextTokenChanges();
    comparison_->setVisible(!changes.empty());
    comparison_->setRowCount(int(changes.size()));
    for (int row = 0; row < int(changes.size()); ++row) {
        const attn::NextTokenChange& c = changes[std::size_t(row)];
        auto* token = new QTableWidgetItem(session_->vocabularyToken(c.id).display);
        token->setData(Qt::UserRole, c.id);
        comparison_->setItem(row, 0, token);
        comparison_->setItem(row, 1, percentItem(c.intactProbability));
        comparison_->setItem(row, 2, percentItem(c.ablatedProbability));
        comparison_->setItem(row, 3, percentItem(c.change(), true));
    }
    // The numbers take their whole width and the token the rest, elided
    // (its whole text in the tooltip): at 1024 x 700 the side beside the
    // grid is about 280 pixels, and the last column ("change") was cut off.
    for (int row = 0; row < comparison_->rowCount(); ++row)
        comparison_->item(row, 0)->setToolTip(comparison_->item(row, 0)->text());
    emit ablationShown();
}

void HeadLabPanel::toggle(int layer, int head)
{
    setCurrentWidget(ablationPage_);
    const attn::Status set = session_->toggleAblated(layer, head);
    if (!set)
        emit message(QString::fromStdString(set.error().message));
    showAblation();
}

void HeadLabPanel::ablateTop()
{
    if (scoreKind() < 0)
        return;
    std::vector<attn::HeadIndex> heads = chosenRanking();
    heads.resize(std::min(heads.size(), std::size_t(topK_->value())));
    const attn::Status set =
        session_->setAblation(std::move(heads), attn::HeadAblation(mode_->currentData().toInt()));
    if (!set)
        emit message(QString::fromStdString(set.error().message));
    showAblation();
}

}  // namespace attnlab
