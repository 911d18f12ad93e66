// SPDX-License-Identifier: GPL-3.0-or-later
#include "maskwhatifbox.h"

#include "modelsession.h"
#include "size_limits.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

namespace attnlab {

namespace {

// The combo's data for the model's own mask (the kinds are 0 and up).
constexpr int kOwnMask = -1;

}  // namespace

MaskWhatIfBox::MaskWhatIfBox(ModelSession* session, QWidget* parent) : QWidget(parent), session_(session)
{
    kind_ = new QComboBox(this);
    kind_->setObjectName(QStringLiteral("modelMaskCombo"));
    kind_->setAccessibleName(tr("What-if mask"));
    kind_->addItem(tr("as trained"), kOwnMask);
    kind_->addItem(tr("all earlier keys"), int(attn::AttentionMask::Kind::Causal));
    kind_->addItem(tr("sliding window"), int(attn::AttentionMask::Kind::Sliding));
    kind_->addItem(tr("sink + window"), int(attn::AttentionMask::Kind::SinkWindow));
    kind_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    kind_->setToolTip(
        tr("Which earlier keys every head of every layer sees: the model's own mask (causal, or its "
           "sliding window); all of them; the last W (i − W < j ≤ i); or the first S tokens (attention "
           "sinks, as StreamingLLM keeps them) plus the last W. The model runs again; the maps hatch "
           "what is hidden."));
    sink_ = new QSpinBox(this);
    sink_->setObjectName(QStringLiteral("modelMaskSinkSpin"));
    sink_->setAccessibleName(tr("What-if mask sink S"));
    sink_->setRange(0, attn::kMaxTokens);
    sink_->setValue(1);
    sink_->setPrefix(tr("S "));
    sink_->setKeyboardTracking(false);
    sink_->setButtonSymbols(QAbstractSpinBox::NoButtons);  // the wheel and the keys step it
    sink_->setToolTip(tr("S: how many of the first tokens every query also sees (the sinks)."));
    window_ = new QSpinBox(this);
    window_->setObjectName(QStringLiteral("modelMaskWindowSpin"));
    window_->setAccessibleName(tr("What-if mask window W"));
    window_->setRange(1, attn::kMaxTokens);
    window_->setValue(8);
    window_->setPrefix(tr("W "));
    window_->setKeyboardTracking(false);
    window_->setButtonSymbols(QAbstractSpinBox::NoButtons);
    window_->setToolTip(tr("W: how many of the latest keys a query sees, itself included."));

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(tr("Mask:"), this);
    label->setBuddy(kind_);
    layout->addWidget(label);
    layout->addWidget(kind_);
    layout->addWidget(sink_);
    layout->addWidget(window_);

    connect(kind_, &QComboBox::activated, this, &MaskWhatIfBox::apply);
    connect(sink_, &QSpinBox::valueChanged, this, &MaskWhatIfBox::apply);
    connect(window_, &QSpinBox::valueChanged, this, &MaskWhatIfBox::apply);
    sync();
}

std::optional<attn::AttentionMask> MaskWhatIfBox::chosenMask() const
{
    switch (kind_->currentData().toInt()) {
    case int(attn::AttentionMask::Kind::Causal): return attn::AttentionMask::causal();
    case int(attn::AttentionMask::Kind::Sliding): return attn::AttentionMask::sliding(window_->value());
    case int(attn::AttentionMask::Kind::SinkWindow):
        return attn::AttentionMask::sinkWindow(sink_->value(), window_->value());
    default: return std::nullopt;
    }
}

void MaskWhatIfBox::sync()
{
    const QSignalBlocker b1(kind_), b2(sink_), b3(window_);
    const std::optional<attn::AttentionMask>& mask = session_->maskWhatIf();
    kind_->setCurrentIndex(kind_->findData(mask ? int(mask->kind) : kOwnMask));
    if (mask && mask->kind != attn::AttentionMask::Kind::Causal)
        window_->setValue(mask->window);
    if (mask && mask->kind == attn::AttentionMask::Kind::SinkWindow)
        sink_->setValue(mask->sink);
    // "as trained" names the model's own mask.
    const QString own = session_->hasModel() && session_->config().slidingWindow > 0
                            ? tr("as trained (window %1)").arg(session_->config().slidingWindow)
                            : tr("as trained");
    kind_->setItemText(kind_->findData(kOwnMask), own);
    setEnabled(session_->hasModel());
    showSpins();
}

void MaskWhatIfBox::showSpins()
{
    const int kind = kind_->currentData().toInt();
    window_->setVisible(kind == int(attn::AttentionMask::Kind::Sliding)
                        || kind == int(attn::AttentionMask::Kind::SinkWindow));
    sink_->setVisible(kind == int(attn::AttentionMask::Kind::SinkWindow));
}

void MaskWhatIfBox::apply()
{
    showSpins();
    const attn::Status set = session_->setMaskWhatIf(chosenMask());
    if (!set)
        emit message(QString::fromStdString(set.error().message));
}

}  // namespace attnlab
