// SPDX-License-Identifier: GPL-3.0-or-later
#include "rotaryselection.h"

#include "modelsession.h"

#include <QCoreApplication>
#include <QStringList>

namespace attnlab {

namespace {

struct Rotary {
    Q_DECLARE_TR_FUNCTIONS(Rotary)
};

}  // namespace

attn::Expected<attn::RotaryHead> selectedRotaryHead(const ModelSession& session)
{
    if (!session.hasModel())
        return attn::Error{
            Rotary::tr("Open a model (File > Open model…) to see its rotary positions.").toStdString()};
    const ModelFolder& model = *session.model();
    if (model.decoder->rotaryFrequencies().empty())
        return attn::Error{Rotary::tr("%1 has learned positions: a position embedding is added to each token "
                                      "before the first layer, and q and k are not rotated (no RoPE).")
                               .arg(model.familyName)
                               .toStdString()};
    if (!session.result())
        return attn::Error{
            Rotary::tr("Type a sentence: the rotation is shown for the selected head of its pass.")
                .toStdString()};
    return model.decoder->rotaryHead(*session.result(), session.selectedLayer(), session.selectedHead());
}

QString rotaryFrequencyText(const ModelSession& session, const attn::RotaryHead& head)
{
    return rotaryFrequencyText(session.config(), head);
}

QString rotaryFrequencyText(const attn::DecoderConfig& c, const attn::RotaryHead& head)
{
    QStringList values;
    for (const double f : head.frequencies)
        values << QString::number(f, 'g', 4);
    QString text = Rotary::tr("θ_i = %1^(−2i/%2), i = 0…%3: %4")
                       .arg(c.ropeTheta, 0, 'g', 8)
                       .arg(c.headDim)
                       .arg(head.frequencies.size() - 1)
                       .arg(values.join(QStringLiteral(", ")));
    if (!c.ropeScaling.empty())
        text += Rotary::tr(" (rescaled by rope_scaling %1, as the model does)")
                    .arg(QString::fromStdString(c.ropeScaling));
    return text;
}

}  // namespace attnlab
