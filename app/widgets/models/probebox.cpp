// SPDX-License-Identifier: GPL-3.0-or-later
#include "probebox.h"

#include "modelsession.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace attnlab {

ProbeBox::ProbeBox(ModelSession* session, QWidget* parent) : QWidget(parent), session_(session)
{
    check_ = new QCheckBox(tr("Probe: R random tokens twice"), this);
    check_->setObjectName(QStringLiteral("modelProbeCheck"));
    check_->setToolTip(
        tr("Run the model on a span of R random tokens repeated twice instead of the sentence (kept: "
           "uncheck to return to it), as --probe repeat:R:SEED. An induction head copies the first "
           "repeat: the loss on the second drops."));
    span_ = new QSpinBox(this);
    span_->setObjectName(QStringLiteral("modelProbeSpan"));
    span_->setRange(2, 1 << 20);  // the model's half positions once one is open
    span_->setValue(attn::kDefaultRepeatSpan);
    span_->setPrefix(QStringLiteral("R "));
    span_->setAccessibleName(tr("Probe span R"));
    span_->setButtonSymbols(QAbstractSpinBox::NoButtons);
    seed_ = new QSpinBox(this);
    seed_->setObjectName(QStringLiteral("modelProbeSeed"));
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setValue(int(attn::kDefaultRepeatSeed));
    seed_->setPrefix(tr("seed "));
    seed_->setAccessibleName(tr("Probe seed"));
    seed_->setButtonSymbols(QAbstractSpinBox::NoButtons);
    // Room for a seed of a few digits (longer ones scroll), not for the largest.
    seed_->setMaximumWidth(seed_->fontMetrics().horizontalAdvance(tr("seed 0000000")) + 12);
    loss_ = new QLabel(this);
    loss_->setObjectName(QStringLiteral("modelProbeLoss"));
    loss_->setWordWrap(true);
    loss_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    loss_->setToolTip(
        tr("The mean loss −ln p(next token) over offsets 1 … R−1 of each repeat (nats): "
           "what the model has learnt in context shows as a lower second repeat."));
    loss_->hide();

    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(check_, 1);
    row->addWidget(span_);
    row->addWidget(seed_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(row);
    layout->addWidget(loss_);

    connect(check_, &QCheckBox::toggled, this, &ProbeBox::apply);
    connect(span_, &QSpinBox::editingFinished, this, [this] {
        if (check_->isChecked())
            apply();
    });
    connect(seed_, &QSpinBox::editingFinished, this, [this] {
        if (check_->isChecked())
            apply();
    });
    connect(session_, &ModelSession::modelOpened, this, &ProbeBox::sync);
    connect(session_, &ModelSession::resultChanged, this, &ProbeBox::sync);
    sync();
}

void ProbeBox::apply()
{
    std::optional<RepeatProbe> probe;
    if (check_->isChecked())
        probe = RepeatProbe{span_->value(), std::uint64_t(seed_->value())};
    const attn::Status set = session_->setProbe(probe);
    if (!set)
        emit message(QString::fromStdString(set.error().message));
    sync();
}

void ProbeBox::sync()
{
    const bool model = session_->hasModel();
    setEnabled(model);
    if (model)
        span_->setMaximum(std::max(2, session_->config().maxPositions / 2));
    const std::optional<RepeatProbe>& probe = session_->probe();
    {
        const QSignalBlocker block(check_);
        check_->setChecked(probe.has_value());
    }
    if (probe) {
        span_->setValue(probe->span);
        seed_->setValue(int(probe->seed));
    }
    const std::optional<attn::RepeatLoss>& loss = session_->probeLoss();
    if (!session_->resultProbe() || !loss) {
        loss_->hide();
        return;
    }
    const auto number = [](double v) { return QString::number(v, 'f', 3); };
    QString text = tr("Loss (nats): 1st repeat %1, 2nd %2").arg(number(loss->first), number(loss->second));
    if (const std::optional<attn::RepeatLoss>& ablated = session_->ablatedProbeLoss())
        text += tr("; ablated %1, %2").arg(number(ablated->first), number(ablated->second));
    loss_->setText(text);
    loss_->setProperty("first", loss->first);
    loss_->setProperty("second", loss->second);
    loss_->show();
}

}  // namespace attnlab
