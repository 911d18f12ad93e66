// SPDX-License-Identifier: GPL-3.0-or-later
#include "parameterpanel.h"

#include "elidedlabel.h"
#include "dksteps.h"
#include "headscontrols.h"
#include "highlightframe.h"
#include "scaling_lab.h"
#include "session.h"
#include "size_limits.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>
#include <limits>
#include <vector>

namespace attnlab {

namespace {

QSpinBox* dimensionSpin(const QString& name, int maximum, QWidget* parent)
{
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(name);
    spin->setRange(1, maximum);
    spin->setAccelerated(true);
    spin->setKeyboardTracking(false);
    return spin;
}

}  // namespace

ParameterPanel::ParameterPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session)
{
    seed_ = new QSpinBox(this);
    seed_->setObjectName(QStringLiteral("seedSpin"));
    seed_->setAccessibleName(tr("Seed"));
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setKeyboardTracking(false);
    seed_->setToolTip(
        tr("torch.manual_seed(seed): fixes the random draw of the embeddings X "
           "and of W_q, W_k, W_v. Changing it redraws every matrix."));

    init_ = new QComboBox(this);
    init_->setObjectName(QStringLiteral("initCombo"));
    init_->setAccessibleName(tr("Initialisation"));
    init_->addItem(tr("Article (PyTorch)"), int(attn::InitMode::Article));
    init_->addItem(tr("Standard normal"), int(attn::InitMode::StandardNormal));
    init_->addItem(tr("Unit variance"), int(attn::InitMode::UnitVariance));
    init_->setToolTip(
        tr("How X and the weights are drawn. Article: exactly Raschka's PyTorch "
           "draws (X ~ N(0, 1), W ~ U[0, 1)). Standard normal: every entry N(0, 1). "
           "Unit variance: W entries N(0, 1/d_model), so that q and k entries have "
           "variance about 1, the assumption behind dividing by √d_k."));

    dModel_ = dimensionSpin(QStringLiteral("dModelSpin"), attn::kMaxDModel, this);
    dModel_->setAccessibleName(tr("d_model"));
    dModel_->setToolTip(
        tr("d_model: the width of each embedding x_i. X is n × d_model and "
           "W_q, W_k, W_v have d_model rows."));

    // The slider's positions are not d_k values: 0..kDkSliderPositions map
    // log-evenly onto 1..1024. A tenth of the travel is one octave.
    dKFrame_ = new HighlightFrame(2, 4, this);  // the lesson's experiment highlights it
    dKFrame_->setObjectName(QStringLiteral("dKFrame"));
    dKSlider_ = new QSlider(Qt::Horizontal, dKFrame_);
    dKSlider_->setObjectName(QStringLiteral("dKSlider"));
    dKSlider_->setAccessibleName(tr("d_k slider"));
    dKSlider_->setRange(0, attn::kDkSliderPositions);
    dKSlider_->setSingleStep(attn::kDkSliderPositions / 80);  // the wheel: 3/8 octave a notch
    dKSlider_->setPageStep(attn::kDkSliderPositions / 10);
    dK_ = dimensionSpin(QStringLiteral("dKSpin"), attn::kMaxDHead, dKFrame_);
    dK_->setAccessibleName(tr("d_k"));
    const QString dKTip =
        tr("d_k: the width of queries and keys. Q = X W_q and K = X W_k are "
           "n × d_k; each score q_i · k_j sums d_k products, so its spread "
           "grows with d_k, which is why the scores are divided by √d_k.");
    dKSlider_->setToolTip(dKTip
                          + tr("\nThe slider is logarithmic from 1 to 1024: arrow keys "
                               "step to the next d_k of the lab's grid, Page Up/Down by "
                               "a factor of 2. The spin box takes any value."));
    dK_->setToolTip(dKTip);

    dV_ = dimensionSpin(QStringLiteral("dVSpin"), attn::kMaxDHead, this);
    dV_->setAccessibleName(tr("d_v"));
    dV_->setToolTip(
        tr("d_v: the width of the values and of the context vectors. V = X W_v and "
           "Z = A V are n × d_v; d_v does not change the weights."));

    scale_ = new QComboBox(this);
    scale_->setObjectName(QStringLiteral("scaleCombo"));
    scale_->setAccessibleName(tr("Scale mode"));
    scale_->addItem(tr("÷ √d_k"), int(attn::ScaleMode::SqrtDk));
    scale_->addItem(tr("none (÷ 1)"), int(attn::ScaleMode::None));
    scale_->addItem(tr("÷ custom divisor"), int(attn::ScaleMode::Custom));
    scale_->setToolTip(
        tr("What the scores are divided by before the softmax: √d_k as in the "
           "transformer, nothing (watch the weights turn one-hot as d_k grows), "
           "or a divisor of your own."));

    divisor_ = new QDoubleSpinBox(this);
    divisor_->setObjectName(QStringLiteral("divisorSpin"));
    divisor_->setAccessibleName(tr("Custom divisor"));
    divisor_->setDecimals(3);
    divisor_->setRange(attn::kMinCustomDivisor, attn::kMaxCustomDivisor);
    divisor_->setKeyboardTracking(false);
    divisor_->setToolTip(
        tr("The custom divisor: scaled scores = Q Kᵀ / divisor. Larger "
           "divisors flatten the weights, smaller ones sharpen them."));

    causal_ = new QCheckBox(tr("C&ausal mask"), this);
    causal_->setObjectName(QStringLiteral("causalCheck"));
    causal_->setAccessibleName(tr("Causal mask"));
    causal_->setToolTip(
        tr("Keys after the query get the score −∞ before the softmax (weight 0), "
           "so token i attends only to tokens 1..i, as in a decoder."));

    // Which earlier keys the causal mask leaves (attention_mask.h).
    maskKind_ = new QComboBox(this);
    maskKind_->setObjectName(QStringLiteral("maskCombo"));
    maskKind_->setAccessibleName(tr("Mask"));
    maskKind_->addItem(tr("all earlier keys"), int(attn::AttentionMask::Kind::Causal));
    maskKind_->addItem(tr("sliding window"), int(attn::AttentionMask::Kind::Sliding));
    maskKind_->addItem(tr("sink + window"), int(attn::AttentionMask::Kind::SinkWindow));
    // As wide as the choice shown: the spin boxes beside it need the room.
    maskKind_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    maskKind_->setToolTip(
        tr("Which earlier keys a query sees under the causal mask: all of them; the last W "
           "(a sliding window, itself included: i − W < j ≤ i); or the first S tokens (attention "
           "sinks, as StreamingLLM keeps them) plus the last W. The others get −∞ (weight 0)."));
    maskWindow_ = new QSpinBox(this);
    maskWindow_->setObjectName(QStringLiteral("maskWindowSpin"));
    maskWindow_->setAccessibleName(tr("Mask window W"));
    maskWindow_->setRange(1, attn::kMaxTokens);
    maskWindow_->setValue(3);
    maskWindow_->setPrefix(tr("W "));
    maskWindow_->setKeyboardTracking(false);
    maskWindow_->setToolTip(tr("W: how many of the latest keys a query sees, itself included."));
    // No arrows (the wheel and the keys step it): with the sink's box and
    // the choice, the row fits a 1024-pixel window.
    maskWindow_->setButtonSymbols(QAbstractSpinBox::NoButtons);
    maskSink_ = new QSpinBox(this);
    maskSink_->setObjectName(QStringLiteral("maskSinkSpin"));
    maskSink_->setAccessibleName(tr("Mask sink S"));
    maskSink_->setRange(0, attn::kMaxTokens);
    maskSink_->setValue(1);
    maskSink_->setPrefix(tr("S "));
    maskSink_->setKeyboardTracking(false);
    maskSink_->setToolTip(tr("S: how many of the first tokens every query also sees (the sinks)."));
    maskSink_->setButtonSymbols(QAbstractSpinBox::NoButtons);

    regenerate_ = new QPushButton(tr("Regenerate"), this);
    regenerate_->setObjectName(QStringLiteral("regenerateButton"));
    regenerate_->setAccessibleName(tr("Regenerate from seed"));
    regenerate_->setToolTip(tr("Redraw X, W_q, W_k and W_v from the seed, dropping hand edits (Ctrl+R)."));

    initNote_ = new ElidedLabel(this);
    initNote_->setObjectName(QStringLiteral("initNoteLabel"));
    initNote_->setAccessibleName(tr("Initialisation note"));
    initNote_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Ends in "…" on a narrow window rather than widening it; the tooltip explains.
    initNote_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    initNote_->setMinimumWidth(56);  // "Article…": room for the mask's S and W at 1024 pixels

    scalingDemo_ = new QPushButton(tr("Scalin&g demo"), this);
    scalingDemo_->setObjectName(QStringLiteral("scalingDemoButton"));
    scalingDemo_->setAccessibleName(tr("Scaling demo"));
    scalingDemo_->setToolTip(
        tr("Switch to the unit-variance initialisation, the textbook "
           "setting of the √d_k argument, and show the unscaled and "
           "scaled softmax side by side. Then move d_k."));

    // Two rows under the sentence, so that the maps keep the window's width:
    // the model (what is drawn from the seed) and the attention (how the
    // scores become weights), with the buttons at the end of the second row,
    // whose note gives way. Both fit a 1024-pixel screen (tst_screens).
    auto labelled = [this](const QString& text, QWidget* buddy) {
        auto* label = new QLabel(text, this);
        label->setBuddy(buddy);
        label->setToolTip(buddy->toolTip());
        return label;
    };
    auto heading = [this](const QString& text) {
        auto* label = new QLabel(text, this);
        QFont bold = label->font();
        bold.setBold(true);
        label->setFont(bold);
        return label;
    };
    dKSlider_->setMinimumWidth(90);
    auto* model = new QHBoxLayout;
    model->addWidget(heading(tr("Model")));
    model->addSpacing(6);
    model->addWidget(labelled(tr("&Seed:"), seed_));
    model->addWidget(seed_);
    model->addSpacing(8);
    model->addWidget(labelled(tr("&Initialisation:"), init_));
    model->addWidget(init_);
    model->addSpacing(8);
    model->addWidget(labelled(tr("d_&model:"), dModel_));
    model->addWidget(dModel_);
    model->addSpacing(8);
    auto* dKLayout = new QHBoxLayout(dKFrame_);
    dKLayout->setContentsMargins(3, 1, 3, 1);
    dKLayout->addWidget(labelled(tr("d_&k:"), dK_));
    dKLayout->addWidget(dKSlider_, 1);
    dKLayout->addWidget(dK_);
    model->addWidget(dKFrame_, 1);
    model->addSpacing(8);
    model->addWidget(labelled(tr("&d_v:"), dV_));
    model->addWidget(dV_);

    auto* attention = new QHBoxLayout;
    attention->addWidget(heading(tr("Attention")));
    attention->addSpacing(6);
    attention->addWidget(labelled(tr("S&cale:"), scale_));
    attention->addWidget(scale_);
    attention->addSpacing(8);
    attention->addWidget(labelled(tr("Diviso&r:"), divisor_));
    attention->addWidget(divisor_);
    attention->addSpacing(8);
    attention->addWidget(causal_);
    attention->addWidget(maskKind_);
    attention->addWidget(maskSink_);
    attention->addWidget(maskWindow_);
    attention->addSpacing(8);
    attention->addWidget(initNote_, 1);
    attention->addSpacing(8);
    attention->addWidget(regenerate_);
    attention->addWidget(scalingDemo_);

    heads_ = new HeadsControls(session_, this);
    heads_->setObjectName(QStringLiteral("headsControls"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(1);  // three rows; the maps below need the lines on a short screen
    layout->addLayout(model);
    layout->addLayout(attention);
    layout->addWidget(heads_);

    // Tab follows the rows left to right, the model row first.
    QWidget* const order[] = {seed_,     init_,       dModel_,     dKSlider_,   dK_,
                              dV_,       scale_,      divisor_,    causal_,     maskKind_,
                              maskSink_, maskWindow_, regenerate_, scalingDemo_};
    for (size_t i = 1; i < std::size(order); ++i)
        QWidget::setTabOrder(order[i - 1], order[i]);

    connect(seed_, &QSpinBox::valueChanged, session_, [this](int seed) { session_->setSeed(quint64(seed)); });
    connect(init_, &QComboBox::currentIndexChanged, this,
            [this](int index) { session_->setInit(attn::InitMode(init_->itemData(index).toInt())); });
    connect(dModel_, &QSpinBox::valueChanged, session_, &Session::setDModel);
    connect(dKSlider_, &QSlider::valueChanged, session_,
            [this](int position) { session_->setDK(attn::dkFromSliderPosition(position)); });
    connect(dKSlider_, &QSlider::actionTriggered, this, &ParameterPanel::onDkSliderAction);
    connect(dK_, &QSpinBox::valueChanged, session_, &Session::setDK);
    dK_->installEventFilter(this);
    connect(dV_, &QSpinBox::valueChanged, session_, &Session::setDV);
    connect(scale_, &QComboBox::currentIndexChanged, this,
            [this](int index) { session_->setScaleMode(attn::ScaleMode(scale_->itemData(index).toInt())); });
    connect(divisor_, &QDoubleSpinBox::valueChanged, session_, &Session::setCustomDivisor);
    connect(causal_, &QCheckBox::toggled, this, &ParameterPanel::applyMask);
    connect(maskKind_, &QComboBox::currentIndexChanged, this, &ParameterPanel::applyMask);
    connect(maskWindow_, &QSpinBox::valueChanged, this, &ParameterPanel::applyMask);
    connect(maskSink_, &QSpinBox::valueChanged, this, &ParameterPanel::applyMask);
    connect(regenerate_, &QPushButton::clicked, session_, &Session::regenerate);
    connect(scalingDemo_, &QPushButton::clicked, this, &ParameterPanel::scalingDemoRequested);
    connect(session_, &Session::parametersChanged, this, &ParameterPanel::syncFromSession);
    syncFromSession();
}

void ParameterPanel::syncFromSession()
{
    const attn::ModelConfig& c = session_->inputs().config;
    const attn::AttentionOptions& o = session_->inputs().options;
    const QSignalBlocker b1(seed_), b2(init_), b3(dModel_), b4(dKSlider_), b5(dK_), b6(dV_), b7(scale_),
        b8(divisor_), b9(causal_), b10(maskKind_), b11(maskWindow_), b12(maskSink_);
    seed_->setValue(int(std::min<quint64>(c.seed, quint64(seed_->maximum()))));
    init_->setCurrentIndex(init_->findData(int(c.init)));
    dModel_->setValue(c.dModel);
    // A d_k between two slider positions (typed in the spin box) leaves the
    // slider at the nearest one.
    if (attn::dkFromSliderPosition(dKSlider_->value()) != c.dK)
        dKSlider_->setValue(attn::sliderPositionFromDk(c.dK));
    dK_->setValue(c.dK);
    dV_->setValue(c.dV);
    // The split layout's head_dim is d_model / h: d_k and d_v follow it.
    const bool split = session_->inputs().heads.layout == attn::HeadLayout::Split;
    dKSlider_->setEnabled(!split);
    dK_->setEnabled(!split);
    dV_->setEnabled(!split);
    scale_->setCurrentIndex(scale_->findData(int(o.scale)));
    divisor_->setValue(o.customDivisor);
    divisor_->setEnabled(o.scale == attn::ScaleMode::Custom);
    // The checkbox is on for every mask but none; the choice beside it
    // says which, its spin boxes keep their values for the next choice.
    const attn::AttentionMask mask = o.effectiveMask();
    causal_->setChecked(mask.kind != attn::AttentionMask::Kind::None);
    if (mask.kind != attn::AttentionMask::Kind::None)
        maskKind_->setCurrentIndex(maskKind_->findData(int(mask.kind)));
    if (mask.kind == attn::AttentionMask::Kind::Sliding || mask.kind == attn::AttentionMask::Kind::SinkWindow)
        maskWindow_->setValue(std::min(mask.window, maskWindow_->maximum()));
    if (mask.kind == attn::AttentionMask::Kind::SinkWindow)
        maskSink_->setValue(std::min(mask.sink, maskSink_->maximum()));
    const auto kind = attn::AttentionMask::Kind(maskKind_->currentData().toInt());
    maskKind_->setEnabled(causal_->isChecked());
    maskWindow_->setVisible(kind != attn::AttentionMask::Kind::Causal);
    maskSink_->setVisible(kind == attn::AttentionMask::Kind::SinkWindow);
    maskWindow_->setEnabled(causal_->isChecked());
    maskSink_->setEnabled(causal_->isChecked());
    updateInitNote();
}

void ParameterPanel::applyMask()
{
    attn::AttentionMask mask;
    if (causal_->isChecked()) {
        switch (attn::AttentionMask::Kind(maskKind_->currentData().toInt())) {
        case attn::AttentionMask::Kind::Sliding:
            mask = attn::AttentionMask::sliding(maskWindow_->value());
            break;
        case attn::AttentionMask::Kind::SinkWindow:
            mask = attn::AttentionMask::sinkWindow(maskSink_->value(), maskWindow_->value());
            break;
        default: mask = attn::AttentionMask::causal(); break;
        }
    }
    session_->setMask(mask);
    syncFromSession();  // the spin boxes shown for the choice, even when nothing changed
}

void ParameterPanel::onDkSliderAction(int action)
{
    // Called before the new position becomes the value. One position is too
    // fine for an arrow key (d_k 1 spans 59 of them) and above d_k ~ 140 not
    // every d_k has one: step to the neighbouring d_k of the lab's grid.
    // A page is an octave of the slider's travel, but from a d_k between
    // positions it would not land on twice that d_k: double or halve it.
    const bool page =
        action == QAbstractSlider::SliderPageStepAdd || action == QAbstractSlider::SliderPageStepSub;
    if (action != QAbstractSlider::SliderSingleStepAdd && action != QAbstractSlider::SliderSingleStepSub
        && !page)
        return;
    const int current = dK_->value();
    int target = current;
    if (page)
        target = std::min(DkSteps::page(current, action == QAbstractSlider::SliderPageStepAdd),
                          attn::dkFromSliderPosition(dKSlider_->maximum()));
    else if (action == QAbstractSlider::SliderSingleStepAdd)
        target = DkSteps::next(current);
    else
        target = DkSteps::previous(current);
    session_->setDK(target);
    // The session's echo has put the slider at the new d_k's position; the
    // action then sets the pending position as the value, so make it that one.
    dKSlider_->setSliderPosition(dKSlider_->value());
}

int ParameterPanel::pageStepDk(int dK, bool up)
{
    return DkSteps::page(dK, up);
}

bool ParameterPanel::eventFilter(QObject* watched, QEvent* event)
{
    // The spin box steps by ten on Page Up/Down; d_k doubles and halves as
    // on the slider.
    if (watched == dK_ && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_PageUp || key->key() == Qt::Key_PageDown) {
            session_->setDK(pageStepDk(dK_->value(), key->key() == Qt::Key_PageUp));
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ParameterPanel::updateInitNote()
{
    QString note;
    QString tip;
    if (session_->inputs().borrowed.active()) {
        // The seed and initialisation shown are the lab's own, not these matrices'.
        initNote_->setText(tr("GPT-2's trained weights, not a draw from the seed."));
        initNote_->setToolTip(
            tr("X, W_q, W_k and W_v are GPT-2 layer %1, head %2's (%3). Another seed, initialisation or "
               "dimension goes back to the lab's own matrices.")
                .arg(session_->inputs().borrowed.layer + 1)
                .arg(session_->inputs().borrowed.head + 1)
                .arg(session_->inputs().borrowed.model));
        return;
    }
    switch (session_->inputs().config.init) {
    case attn::InitMode::UnitVariance:
        note =
            tr("Unit variance: q and k entries have variance ≈ 1, as the 1/√d_k argument "
               "assumes.");
        tip =
            tr("W entries are N(0, 1/d_model), so each entry of q = x W_q and k = x W_k has "
               "mean 0 and variance about 1: the raw scores have variance about d_k and "
               "the scaled ones about 1.");
        break;
    case attn::InitMode::StandardNormal:
        note =
            tr("Standard normal: q and k entries have variance ≈ d_model, not the 1 the "
               "1/√d_k argument assumes.");
        tip =
            tr("X and W are N(0, 1), so each entry of q and k sums d_model products: its "
               "variance is about d_model. Choose Unit variance (or Scaling demo) for the "
               "textbook setting.");
        break;
    case attn::InitMode::Article:
        note =
            tr("Article: W ~ U[0, 1), so q and k are not centred; the 1/√d_k argument "
               "assumes unit variance.");
        tip =
            tr("The article's PyTorch draws: the weights are uniform in [0, 1), so q and k "
               "have a positive mean and the variance argument for √d_k does not hold "
               "exactly. Choose Unit variance (or Scaling demo) for the textbook setting.");
        break;
    }
    initNote_->setText(note);
    initNote_->setToolTip(tip);
}

void ParameterPanel::addDkControl(QWidget* control)
{
    QWidget* before = lastDkControl_ ? lastDkControl_ : dK_;
    dKFrame_->layout()->addWidget(control);
    QWidget::setTabOrder(before, control);
    lastDkControl_ = control;
}

void ParameterPanel::setDkHighlighted(bool highlighted)
{
    if (highlighted == dKHighlighted_)
        return;
    dKHighlighted_ = highlighted;
    dKFrame_->setHighlighted(highlighted);
}

}  // namespace attnlab
