// SPDX-License-Identifier: GPL-3.0-or-later
#include "headscontrols.h"

#include "elidedlabel.h"
#include "multihead.h"
#include "session.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

namespace attnlab {

HeadsControls::HeadsControls(Session* session, QWidget* parent) : QWidget(parent), session_(session)
{
    heads_ = new QSpinBox(this);
    heads_->setObjectName(QStringLiteral("headsSpin"));
    heads_->setAccessibleName(tr("Number of heads"));
    heads_->setRange(1, attn::kMaxHeads);
    heads_->setKeyboardTracking(false);
    heads_->setToolTip(
        tr("h: how many scaled dot-product attentions run side by side, each with "
           "its own W_q, W_k, W_v. 1 is the single head of the lesson."));

    layout_ = new QComboBox(this);
    layout_->setObjectName(QStringLiteral("headLayoutCombo"));
    layout_->setAccessibleName(tr("Head layout"));
    layout_->addItem(tr("Independent (article)"), int(attn::HeadLayout::Independent));
    layout_->addItem(tr("Split (nn.MultiheadAttention)"), int(attn::HeadLayout::Split));
    layout_->setToolTip(
        tr("Independent: each head has W_q, W_k (d_model × d_k) and W_v (d_model × d_v) "
           "of its own, as in Raschka's article; the contexts are concatenated.\n"
           "Split: torch.nn.MultiheadAttention. Its in_proj_weight (3E × E) is cut into "
           "h heads of head_dim = E / h (E = d_model), with biases, and out_proj (E × E) "
           "follows the concatenation."));

    outputProjection_ = new QCheckBox(tr("Output pro&jection W_o"), this);
    outputProjection_->setObjectName(QStringLiteral("outputProjectionCheck"));
    outputProjection_->setAccessibleName(tr("Output projection"));
    outputProjection_->setToolTip(
        tr("output = concat · W_o, with W_o (h d_v × d_model): the layer after the "
           "heads that mixes their contexts. The split layout always has it (out_proj)."));

    torchInit_ = new QCheckBox(tr("Module's own init"), this);
    torchInit_->setObjectName(QStringLiteral("torchInitCheck"));
    torchInit_->setAccessibleName(tr("nn.MultiheadAttention initialisation"));
    torchInit_->setToolTip(
        tr("Draw the parameters as nn.MultiheadAttention(E, h) does after "
           "torch.manual_seed(seed): xavier_uniform_ in_proj_weight, zero biases, "
           "out_proj as nn.Linear. Off: the heads are drawn as in the article."));

    selected_ = new QSpinBox(this);
    selected_->setObjectName(QStringLiteral("selectedHeadSpin"));
    selected_->setAccessibleName(tr("Head shown"));
    selected_->setRange(1, 1);
    selected_->setToolTip(
        tr("The head that the pipeline, the focus panel, the Q/K/V tab and the d_k views "
           "show, and whose W_q, W_k, W_v the matrix editors edit. Clicking a head in the "
           "Heads tab chooses it too."));

    note_ = new ElidedLabel(this);
    note_->setObjectName(QStringLiteral("headsNote"));
    note_->setAccessibleName(tr("Heads note"));
    note_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    note_->setMinimumWidth(80);

    auto labelled = [this](const QString& text, QWidget* buddy) {
        auto* label = new QLabel(text, this);
        label->setBuddy(buddy);
        label->setToolTip(buddy->toolTip());
        return label;
    };
    auto* heading = new QLabel(tr("Heads"), this);
    QFont bold = heading->font();
    bold.setBold(true);
    heading->setFont(bold);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(heading);
    row->addSpacing(6);
    row->addWidget(labelled(tr("h:"), heads_));
    row->addWidget(heads_);
    row->addSpacing(8);
    row->addWidget(labelled(tr("Layout:"), layout_));
    row->addWidget(layout_);
    row->addSpacing(8);
    row->addWidget(outputProjection_);
    row->addWidget(torchInit_);
    row->addSpacing(8);
    row->addWidget(labelled(tr("Show head:"), selected_));
    row->addWidget(selected_);
    row->addSpacing(16);
    row->addWidget(note_, 1);

    connect(heads_, &QSpinBox::valueChanged, session_, &Session::setHeadCount);
    connect(layout_, &QComboBox::currentIndexChanged, this, [this](int index) {
        session_->setHeadLayout(attn::HeadLayout(layout_->itemData(index).toInt()));
    });
    connect(outputProjection_, &QCheckBox::toggled, session_, &Session::setOutputProjection);
    connect(torchInit_, &QCheckBox::toggled, session_, &Session::setTorchInit);
    connect(selected_, &QSpinBox::valueChanged, session_,
            [this](int head) { session_->selectHead(head - 1); });
    connect(session_, &Session::parametersChanged, this, &HeadsControls::syncFromSession);
    connect(session_, &Session::resultChanged, this, &HeadsControls::syncFromSession);
    connect(session_, &Session::headSelected, this, &HeadsControls::syncFromSession);
    syncFromSession();
}

void HeadsControls::syncFromSession()
{
    const attn::HeadsConfig& h = session_->inputs().heads;
    const attn::ModelConfig& c = session_->inputs().config;
    const bool split = h.layout == attn::HeadLayout::Split;
    const QSignalBlocker b1(heads_), b2(layout_), b3(outputProjection_), b4(torchInit_), b5(selected_);
    heads_->setValue(h.heads);
    layout_->setCurrentIndex(layout_->findData(int(h.layout)));
    outputProjection_->setChecked(split || h.outputProjection);
    outputProjection_->setEnabled(!split);
    torchInit_->setChecked(h.torchInit);
    torchInit_->setVisible(split);
    const int shown = session_->published()->headCount();
    selected_->setRange(1, shown);
    selected_->setValue(session_->inputs().selectedHead + 1);
    selected_->setEnabled(shown > 1);
    QString note;
    if (split && c.dModel % h.heads != 0)
        note = tr("h = %1 does not divide d_model = %2: choose a divisor of it.").arg(h.heads).arg(c.dModel);
    else if (split)
        note = tr("head_dim = d_k = d_v = d_model / h = %1 / %2 = %3")
                   .arg(c.dModel)
                   .arg(h.heads)
                   .arg(c.dModel / h.heads);
    else if (h.multiHead())
        note = tr("each head: d_k %1, d_v %2; concat %3 × %2 = %4")
                   .arg(c.dK)
                   .arg(c.dV)
                   .arg(h.heads)
                   .arg(h.heads * c.dV);
    else
        note = tr("one head: the lesson's scaled dot-product attention");
    note_->setText(note);
    note_->setToolTip(note);
}

}  // namespace attnlab
