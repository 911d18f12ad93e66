// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessonpanel.h"

#include "cinemalesson.h"
#include "copylesson.h"
#include "relativefont.h"
#include "sharetext.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab {

LessonPanel::LessonPanel(QWidget* parent) : QWidget(parent)
{
    indicator_ = new QLabel(this);
    indicator_->setAccessibleName(tr("Lesson step"));
    title_ = new QLabel(this);
    setRelativeFont(title_, 1.15, true);
    title_->setWordWrap(true);
    text_ = new QLabel(this);
    text_->setAccessibleName(tr("Lesson text"));
    text_->setWordWrap(true);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    notice_ = new QLabel(this);
    notice_->setObjectName(QStringLiteral("lessonInitNotice"));
    notice_->setAccessibleName(tr("Initialisation of the experiment"));
    notice_->setWordWrap(true);
    notice_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notice_->setFrameShape(QFrame::StyledPanel);
    notice_->setMargin(4);
    live_ = new QLabel(this);
    live_->setObjectName(QStringLiteral("lessonLiveText"));
    live_->setWordWrap(true);
    live_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    back_ = new QPushButton(tr("&Back"), this);
    back_->setObjectName(QStringLiteral("lessonBackButton"));
    back_->setAccessibleName(tr("Previous step"));
    back_->setToolTip(tr("Go to the previous step of the lesson."));
    next_ = new QPushButton(this);
    next_->setObjectName(QStringLiteral("lessonNextButton"));
    next_->setAccessibleName(tr("Next step"));
    next_->setToolTip(tr("Go to the next step of the lesson."));
    next_->setDefault(true);

    live_->setToolTipDuration(60000);

    removeHead_ = new QPushButton(this);
    removeHead_->setObjectName(QStringLiteral("lessonRemoveHeadButton"));
    connect(removeHead_, &QPushButton::clicked, this,
            [this] { emit inductionRemovalRequested(!headRemoved_); });

    headsLabel_ = new QLabel(tr("Head:"), this);
    headGroup_ = new QButtonGroup(this);
    headGroup_->setExclusive(true);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(indicator_);
    buttons->addStretch(1);
    buttons->addWidget(headsLabel_);
    for (int i = 0; i < kMaxHeadButtons; ++i) {
        auto* head = new QToolButton(this);
        head->setObjectName(QStringLiteral("lessonHeadButton%1").arg(i + 1));
        head->setText(QString::number(i + 1));
        head->setCheckable(true);
        head->setAccessibleName(tr("Head %1").arg(i + 1));
        head->setToolTip(tr("Show head %1 in the maps, the focused query and the matrices.").arg(i + 1));
        headGroup_->addButton(head, i);
        headButtons_ << head;
        buttons->addWidget(head);
    }
    buttons->addWidget(removeHead_);
    buttons->addSpacing(8);
    buttons->addWidget(back_);
    buttons->addWidget(next_);
    connect(headGroup_, &QButtonGroup::idClicked, this, &LessonPanel::headRequested);

    // The text scrolls rather than pushing the buttons out of a short dock.
    auto* body = new QWidget;
    body->setObjectName(QStringLiteral("lessonBody"));
    auto* bodyLayout = new QVBoxLayout(body);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    bodyLayout->setSpacing(2);
    bodyLayout->addWidget(text_);
    bodyLayout->addWidget(notice_);
    bodyLayout->addWidget(live_);
    bodyLayout->addStretch(1);
    text_->setParent(body);
    notice_->setParent(body);
    live_->setParent(body);
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("lessonBodyScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(body);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(scroll, 1);
    layout->addLayout(buttons);

    connect(back_, &QPushButton::clicked, this, &LessonPanel::back);
    connect(next_, &QPushButton::clicked, this, &LessonPanel::next);
    showStep();
}

LessonPanel::Stage LessonPanel::stageOfStep(int step)
{
    switch (std::clamp(step, 0, kStepCount - 1)) {
    case 0: return Stage::Scores;
    case 1: return Stage::Scale;
    case 2: return Stage::Softmax;
    case 3: return Stage::Context;
    case 4: return Stage::DkExperiment;
    case 5: return Stage::LearningMatters;
    case 6: return Stage::FlashTiles;
    case 7: return Stage::HeadQueries;
    case 8: return Stage::HeadKeysValues;
    case 9: return Stage::HeadsAttend;
    case 10: return Stage::HeadsConcat;
    case 11: return Stage::ModelHeads;
    default: return Stage::HeadLab;
    }
}

int LessonPanel::stepOf(Stage stage)
{
    for (int s = 0; s < kStepCount; ++s)
        if (stageOfStep(s) == stage)
            return s;
    return 0;
}

bool LessonPanel::isMultiHead(Stage stage)
{
    return stepOf(stage) >= stepOf(Stage::HeadQueries) && stepOf(stage) <= stepOf(Stage::HeadsConcat);
}

QString LessonPanel::title(int step) const
{
    switch (stageOfStep(step)) {
    case Stage::Scores: return tr("Scores: how well does each query match each key?");
    case Stage::Scale: return tr("Scale: divide by √d_k");
    case Stage::Softmax: return tr("Softmax: turn each row of scores into weights");
    case Stage::Context: return tr("Weighted sum: mix the values");
    case Stage::DkExperiment: return tr("Experiment: move d_k and watch the softmax saturate");
    case Stage::LearningMatters: return tr("Why it matters for learning");
    case Stage::FlashTiles: return tr("Inside the computation: the same weights, tile by tile");
    case Stage::HeadQueries: return tr("Multi-head attention: several heads in parallel");
    case Stage::HeadKeysValues: return tr("Each head has its own keys and values");
    case Stage::HeadsAttend: return tr("Each head attends differently");
    case Stage::HeadsConcat: return tr("Concatenate the heads, then project with W_o");
    case Stage::ModelHeads: return tr("A trained model: which heads look at “cinema” and “watch”?");
    case Stage::HeadLab: return tr("What a head does: find the copying heads, then remove one");
    }
    return QString();
}

QString LessonPanel::explanation(int step) const
{
    switch (stageOfStep(step)) {
    case Stage::Scores:
        return tr(
            "Every token asks a question (its query q) and offers a label (its key k). "
            "The score of query i for key j is the dot product q_i · k_j: large when "
            "the two vectors point the same way. The highlighted map Q Kᵀ has one row "
            "per query and one column per key; its numbers can be of any size.");
    case Stage::Scale:
        return tr(
            "A dot product adds up d_k products. If the entries of q and k have mean 0 "
            "and variance 1, each product has variance 1, so the sum has variance d_k: "
            "the wider the vectors, the wider the spread of the scores. Dividing every "
            "score by √d_k brings the variance back to 1, whatever d_k is.");
    case Stage::Softmax:
        return tr(
            "Each row of scaled scores becomes a row of weights: take the exponential "
            "of every score and divide by the row's total. The weights are positive, "
            "add up to 1 and favour the larger scores. Only the gaps between the "
            "scores matter, and a gap of a few units already gives almost all the "
            "weight to one key.");
    case Stage::Context:
        return tr(
            "Each token's output is a blend of all the value vectors, mixed in the "
            "proportions of its row of weights: z_i = Σ_j a_ij v_j. A row that spreads "
            "its weight gathers information from many tokens; a row with one weight "
            "near 1 simply copies that token's value.");
    case Stage::DkExperiment:
        return tr(
            "Now move the d_k slider (or press ▶ Play beside it) and compare the two softmax "
            "maps and the histogram of the scores beside them. Without the scaling the "
            "score variance grows with d_k and the rows turn almost one-hot: the "
            "largest weight nears 1, the entropy falls towards 0, and the softmax "
            "Jacobian, the gradient that reaches the scores during training, fades "
            "away, so learning stalls. With the scaling the score variance stays near "
            "1 and the rows keep about the same spread at every d_k.");
    case Stage::LearningMatters:
        return tr(
            "Does a saturated softmax really stall learning? The Training tab trains one attention head "
            "to recall a key's label, once with the scores divided by √d_k and once without, from the "
            "same weights on the same batches. The lesson runs it at d_k 16 and then at d_k 256; the "
            "line below says what the curves measured.");
    case Stage::FlashTiles:
        return tr(
            "Real systems never hold the whole n × n matrix of scores. FlashAttention walks it in "
            "tiles of B_r queries × B_c keys, keeping for each query row a running maximum m, a "
            "running sum l of the exponentials and an unnormalised output O. When a tile brings a "
            "larger score, the old l and O are first multiplied by the rescale factor "
            "exp(m_old − m_new). Step through the Flash tiles tab: at the end O / l is the "
            "pipeline's context to the last digit, and only one tile of scores was held at a "
            "time. With the causal mask, the tiles above the diagonal are skipped entirely.");
    case Stage::HeadQueries:
        return tr(
            "Multi-head attention runs the scaled dot-product attention several times in "
            "parallel, each head with its own W_q, W_k and W_v: here the article's three heads.");
    case Stage::HeadKeysValues:
        return tr(
            "Each head also projects every token with its own W_k and W_v; the article "
            "stacks the inputs once per head and multiplies them head by head (torch.bmm). "
            "Choose a head to see its queries, keys and values on this tab.");
    case Stage::HeadsAttend:
        return tr(
            "The heads read the same tokens, yet their own projections give each its own "
            "weights: one looks at one token, another elsewhere or everywhere. The grid "
            "shows each head's weights and their average; click a head to show it in the "
            "other views.");
    case Stage::HeadsConcat:
        return tr(
            "Each head gives every token a context vector of d_v numbers; side by side they "
            "make one long vector per token, the concatenation [Z_1 | … | Z_h]. The output "
            "projection W_o, now on, mixes it into one output per token: output = concat W_o.");
    case Stage::ModelHeads:
        if (modelOpen_)
            return tr("This step gave the model the lesson's sentence up to its blank, “%1” (Edit > "
                      "Undo goes back). The Model tab shows every layer's and head's weights; click a "
                      "key in the selected head's row to rank the heads by it.")
                .arg(CinemaLesson::sentence());
        return tr(
            "To fill the blank of “Jane is going to the cinema to watch a new ____”, a model "
            "should look at “cinema” and “watch”. This lab's matrices are drawn at random and "
            "cannot show that; a trained model can. Open a GPT-2 folder with File > Open "
            "model… (the README's “Real GPT-2 models” says where to get gpt2, distilgpt2 or "
            "gpt2-medium, fetched once; nothing is downloaded here): this step then shows the "
            "heads whose weight from the last token on “cinema” and on “watch” is largest, "
            "and the words the model predicts.");
    case Stage::HeadLab:
        if (modelOpen_)
            return tr("To continue “%1”, a model can copy the word that followed the earlier “the”. A "
                      "previous-token head lets each token look at the one before it, so “mat” learns that "
                      "“the” preceded it; an induction head then lets the last “the” look at the token whose "
                      "predecessor was “the”, and copies “mat”. This step chose the induction score on the "
                      "head lab's Scores page, and the grid colours every head by it. Remove the induction "
                      "head below and every later layer is recomputed without it; watch the copied word's "
                      "probability. The demo model was set by hand to do this; GPT-2 learned such heads in "
                      "training (Edit > Undo goes back).")
                .arg(CopyLesson::sentence());
        return tr(
            "This step needs a model: the Model tab opens the demo model, a 2-layer model set by "
            "hand to copy repeated spans, or open a GPT-2 folder with File > Open model….");
    }
    return QString();
}

QString LessonPanel::stepIndicator() const
{
    return tr("Step %1 of %2").arg(step_ + 1).arg(kStepCount);
}

void LessonPanel::setLearningText(const QString& text)
{
    learning_ = text;
    showStep();
}

QString LessonPanel::liveText() const
{
    if (isMultiHead(stage()))
        return headsLiveText();
    if (stage() == Stage::ModelHeads)
        return modelOpen_ ? modelFindings_ : QString();
    if (stage() == Stage::HeadLab)
        return modelOpen_ ? copyFindings_ : QString();
    if (stage() == Stage::LearningMatters)
        return learning_;
    const attn::ScalingComparison& c = comparison_;
    if (c.dK < 1)
        return QString();
    const QLocale locale;
    return tr("Now, d_k = %1. Score variance: %2 unscaled, %3 scaled. Largest weight on "
              "average: %4 unscaled, %5 scaled. Entropy: %6 unscaled, %7 scaled. Jacobian "
              "norm: %8 unscaled, %9 scaled.")
        .arg(c.dK)
        .arg(locale.toString(c.varRaw, 'g', 3), locale.toString(c.varScaled, 'g', 3), shareText(c.meanMaxRaw),
             shareText(c.meanMaxScaled), locale.toString(c.meanEntropyRaw, 'f', 2),
             locale.toString(c.meanEntropyScaled, 'f', 2), locale.toString(c.meanGradRaw, 'g', 2),
             locale.toString(c.meanGradScaled, 'g', 2));
}

QString LessonPanel::initNotice() const
{
    if (init_ == attn::InitMode::UnitVariance && !releasedHead_.isEmpty())
        return tr("For this experiment the lesson put the lab's own unit-variance matrices "
                  "(W ~ N(0, 1/d_model)) in place of %1: q and k then have the mean 0 and "
                  "variance 1 that step 2 assumes, which a trained head's do not. Edit > Undo "
                  "brings the head back.")
            .arg(releasedHead_);
    if (init_ == attn::InitMode::UnitVariance)
        return initSwitched_ ? tr(
                   "For this experiment the lesson switched to the unit-variance "
                   "initialisation (W ~ N(0, 1/d_model)): q and k then have the mean 0 and "
                   "variance 1 that step 2 assumes. With the article's weights, uniform in "
                   "[0, 1) and not centred, dividing by √d_k changes little. Edit > Undo "
                   "goes back to them.")
                             : QString();
    return tr("The experiment runs on the current matrices (%1 initialisation), not on "
              "unit-variance ones: the statements above assume q and k of mean 0 and "
              "variance 1 and may not hold here. Choose Unit variance under Initialisation "
              "to see them hold (it redraws the matrices).")
        .arg(QLatin1String(attn::initModeName(init_)));
}

void LessonPanel::setInitMode(attn::InitMode mode)
{
    if (mode != attn::InitMode::UnitVariance) {
        initSwitched_ = false;
        releasedHead_.clear();
    }
    init_ = mode;
    showStep();
}

void LessonPanel::noteBorrowedReleased(const QString& head)
{
    releasedHead_ = head;
    showStep();
}

void LessonPanel::noteInitSwitched()
{
    init_ = attn::InitMode::UnitVariance;
    initSwitched_ = true;
    showStep();
}

namespace {

// "[2.7004, 0.5483, -2.4544, …]": the first `count` entries of `row`.
QString leadingEntries(const attn::Matrix& m, int row, int count)
{
    const QLocale locale;
    QStringList entries;
    const int shown = std::min(count, int(m.cols()));
    for (int j = 0; j < shown; ++j)
        entries << locale.toString(m(row, j), 'f', 4);
    if (shown < m.cols())
        entries << QStringLiteral("…");
    return QLatin1Char('[') + entries.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString shape(long long a, long long b)
{
    return LessonPanel::tr("%1 × %2").arg(a).arg(b);
}

QString shape(long long a, long long b, long long c)
{
    return LessonPanel::tr("%1 × %2 × %3").arg(a).arg(b).arg(c);
}

}  // namespace

QString LessonPanel::headsLiveText() const
{
    const attn::MultiHeadResult* r = heads_.get();
    if (!r || r->headCount() == 0 || r->heads.front().Q.rows() == 0)
        return QString();
    const int h = r->headCount();
    const attn::AttentionResult& first = r->heads.front();
    const int n = int(first.Q.rows());
    const int dK = int(first.Q.cols());
    const int dV = int(first.V.cols());
    const int query = std::min(kArticleQuery, n - 1);
    const QString token = query < tokenLabels_.size() ? tokenLabels_[query] : QString::number(query + 1);
    const int listed = std::min(h, 4);
    const QLocale locale;
    QStringList perHead;
    switch (stage()) {
    case Stage::HeadQueries:
        for (int i = 0; i < listed; ++i)
            perHead << tr("head %1 %2").arg(i + 1).arg(leadingEntries(r->heads[std::size_t(i)].Q, query, 2));
        if (listed < h)
            perHead << QStringLiteral("…");
        return tr("Stacked W_query, W_key %1, W_value %2, inputs %3. query_%4 (%5): %6.")
            .arg(shape(h, dK, dModel_), shape(h, dV, dModel_), shape(h, dModel_, n))
            .arg(query + 1)
            .arg(shape(h, dK), perHead.join(QStringLiteral(", ")));
    case Stage::HeadKeysValues: {
        const int s = std::clamp(selectedHead_, 0, h - 1);
        const attn::AttentionResult& head = r->heads[std::size_t(s)];
        return tr("Keys %1, values %2 after the permute. Head %3 shown: key_%4 %5, value_%4 %6.")
            .arg(shape(h, n, dK), shape(h, n, dV))
            .arg(s + 1)
            .arg(query + 1)
            .arg(leadingEntries(head.K, query, 3), leadingEntries(head.V, query, 3));
    }
    case Stage::HeadsAttend:
        for (int i = 0; i < listed; ++i) {
            const attn::RowStats& row = r->stats[std::size_t(i)].rows[std::size_t(query)];
            const QString key =
                row.argMax < tokenLabels_.size() ? tokenLabels_[row.argMax] : QString::number(row.argMax + 1);
            perHead << tr("head %1 on “%2” (%3)").arg(i + 1).arg(key, locale.toString(row.maxWeight, 'f', 2));
        }
        if (listed < h)
            perHead << QStringLiteral("…");
        return tr("Largest weight of “%1” (x_%2): %3.")
            .arg(token)
            .arg(query + 1)
            .arg(perHead.join(QStringLiteral(", ")));
    case Stage::HeadsConcat: {
        QString text = tr("concat: %2 (%1 heads × d_v %3).")
                           .arg(h)
                           .arg(shape(r->concat.rows(), r->concat.cols()))
                           .arg(dV);
        if (r->hasOutput())
            text += QLatin1Char(' ')
                    + tr("W_o: %1; output = concat W_o: %2.")
                          .arg(shape(r->concat.cols(), r->output.cols()),
                               shape(r->output.rows(), r->output.cols()));
        return text;
    }
    default: return QString();
    }
}

QString LessonPanel::headsToolTip() const
{
    const attn::MultiHeadResult* r = heads_.get();
    if (!r || stage() != Stage::HeadQueries || r->headCount() == 0 || r->heads.front().Q.rows() == 0)
        return QString();
    const int query = std::min(kArticleQuery, int(r->heads.front().Q.rows()) - 1);
    const QLocale locale;
    QStringList lines;
    for (int i = 0; i < std::min(r->headCount(), kMaxHeadButtons); ++i) {
        const attn::Matrix& Q = r->heads[std::size_t(i)].Q;
        QStringList entries;
        for (int j = 0; j < Q.cols(); ++j)
            entries << locale.toString(Q(query, j), 'f', 4);
        lines
            << tr("head %1, query_%2: %3").arg(i + 1).arg(query + 1).arg(entries.join(QStringLiteral(", ")));
    }
    return lines.join(QLatin1Char('\n'));
}

void LessonPanel::showHeadButtons()
{
    const bool shown = isMultiHead(stage()) && heads_ && heads_->headCount() > 1;
    const int h = shown ? heads_->headCount() : 0;
    headsLabel_->setVisible(shown);
    for (int i = 0; i < kMaxHeadButtons; ++i) {
        QToolButton* button = headButtons_[i];
        button->setVisible(i < h);
        button->setChecked(i < h && i == selectedHead_);
    }
}

void LessonPanel::setLiveHeads(std::shared_ptr<const attn::MultiHeadResult> heads,
                               const QStringList& tokenLabels, int dModel, int selectedHead)
{
    heads_ = std::move(heads);
    tokenLabels_ = tokenLabels;
    dModel_ = dModel;
    selectedHead_ = selectedHead;
    showStep();
}

void LessonPanel::setLiveModel(bool modelOpen, const QString& findings)
{
    modelOpen_ = modelOpen;
    modelFindings_ = findings;
    showStep();
}

void LessonPanel::setLiveCopy(const QString& findings, bool canRemove, bool removed)
{
    copyFindings_ = findings;
    canRemoveHead_ = canRemove;
    headRemoved_ = removed;
    showStep();
}

void LessonPanel::setStep(int step)
{
    const int s = std::clamp(step, 0, kStepCount - 1);
    if (s == step_)
        return;
    step_ = s;
    showStep();
    emit stepChanged(step_, stage());
}

void LessonPanel::next()
{
    if (step_ == kStepCount - 1) {
        emit finished();
        return;
    }
    setStep(step_ + 1);
}

void LessonPanel::back()
{
    setStep(step_ - 1);
}

void LessonPanel::restart()
{
    step_ = 0;
    showStep();
    emit stepChanged(step_, stage());
}

void LessonPanel::setLiveComparison(const attn::ScalingComparison& comparison)
{
    // The numbers only; the two maps stay with the session.
    attn::ScalingComparison& c = comparison_;
    c.dK = comparison.dK;
    c.divisor = comparison.divisor;
    c.varRaw = comparison.varRaw;
    c.varScaled = comparison.varScaled;
    c.meanMaxRaw = comparison.meanMaxRaw;
    c.meanMaxScaled = comparison.meanMaxScaled;
    c.meanEntropyRaw = comparison.meanEntropyRaw;
    c.meanEntropyScaled = comparison.meanEntropyScaled;
    c.meanGradRaw = comparison.meanGradRaw;
    c.meanGradScaled = comparison.meanGradScaled;
    showStep();
}

void LessonPanel::showStep()
{
    indicator_->setText(stepIndicator());
    title_->setText(title(step_));
    text_->setText(explanation(step_));
    const bool experiment = stage() == Stage::DkExperiment;
    const bool live = experiment || stage() == Stage::LearningMatters || isMultiHead(stage())
                      || stage() == Stage::ModelHeads || stage() == Stage::HeadLab;
    live_->setText(live ? liveText() : QString());
    live_->setToolTip(isMultiHead(stage()) ? headsToolTip() : QString());
    live_->setVisible(live && !live_->text().isEmpty());
    notice_->setText(experiment ? initNotice() : QString());
    notice_->setVisible(experiment && !notice_->text().isEmpty());
    showHeadButtons();
    removeHead_->setText(headRemoved_ ? tr("&Put the head back") : tr("&Remove the induction head"));
    removeHead_->setToolTip(headRemoved_
                                ? tr("Run the model with every head again (the head lab's ablation "
                                     "cleared).")
                                : tr("Ablate the head ranked first by the induction score: its output "
                                     "set to zero and every later layer recomputed."));
    removeHead_->setVisible(stage() == Stage::HeadLab && modelOpen_ && (canRemoveHead_ || headRemoved_));
    back_->setEnabled(step_ > 0);
    next_->setText(step_ == kStepCount - 1 ? tr("Fi&nish") : tr("&Next"));
}

}  // namespace attnlab
