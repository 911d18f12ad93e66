// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessonpanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab {

LessonPanel::LessonPanel(QWidget* parent) : QWidget(parent)
{
    indicator_ = new QLabel(this);
    indicator_->setAccessibleName(tr("Lesson step"));
    title_ = new QLabel(this);
    QFont titleFont = title_->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    title_->setFont(titleFont);
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

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(indicator_);
    buttons->addStretch(1);
    buttons->addWidget(back_);
    buttons->addWidget(next_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(text_, 1);
    layout->addWidget(notice_);
    layout->addWidget(live_);
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
    default: return Stage::DkExperiment;
    }
}

QString LessonPanel::title(int step) const
{
    switch (stageOfStep(step)) {
    case Stage::Scores: return tr("Scores: how well does each query match each key?");
    case Stage::Scale: return tr("Scale: divide by √d_k");
    case Stage::Softmax: return tr("Softmax: turn each row of scores into weights");
    case Stage::Context: return tr("Weighted sum: mix the values");
    case Stage::DkExperiment: return tr("Experiment: move d_k and watch the softmax saturate");
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
    }
    return QString();
}

QString LessonPanel::stepIndicator() const
{
    return tr("Step %1 of %2").arg(step_ + 1).arg(kStepCount);
}

QString LessonPanel::liveText() const
{
    const attn::ScalingComparison& c = comparison_;
    if (c.dK < 1)
        return QString();
    const QLocale locale;
    return tr("Now, d_k = %1. Score variance: %2 unscaled, %3 scaled. Largest weight on "
              "average: %4 unscaled, %5 scaled. Entropy: %6 unscaled, %7 scaled. Jacobian "
              "norm: %8 unscaled, %9 scaled.")
        .arg(c.dK)
        .arg(locale.toString(c.varRaw, 'g', 3), locale.toString(c.varScaled, 'g', 3),
             locale.toString(c.meanMaxRaw, 'f', 2), locale.toString(c.meanMaxScaled, 'f', 2),
             locale.toString(c.meanEntropyRaw, 'f', 2), locale.toString(c.meanEntropyScaled, 'f', 2),
             locale.toString(c.meanGradRaw, 'g', 2), locale.toString(c.meanGradScaled, 'g', 2));
}

QString LessonPanel::initNotice() const
{
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
    if (mode != attn::InitMode::UnitVariance)
        initSwitched_ = false;
    init_ = mode;
    showStep();
}

void LessonPanel::noteInitSwitched()
{
    init_ = attn::InitMode::UnitVariance;
    initSwitched_ = true;
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
    live_->setText(experiment ? liveText() : QString());
    live_->setVisible(experiment && !live_->text().isEmpty());
    notice_->setText(experiment ? initNotice() : QString());
    notice_->setVisible(experiment && !notice_->text().isEmpty());
    back_->setEnabled(step_ > 0);
    next_->setText(step_ == kStepCount - 1 ? tr("Fi&nish") : tr("&Next"));
}

}  // namespace attnlab
