// SPDX-License-Identifier: GPL-3.0-or-later
#include "qknormwhatifbox.h"

#include "modelsession.h"

#include <QSignalBlocker>

namespace attnlab {

QkNormWhatIfBox::QkNormWhatIfBox(ModelSession* session, QWidget* parent)
    : QCheckBox(tr("no QK-norm"), parent), session_(session)
{
    setObjectName(QStringLiteral("modelQkNormWhatIf"));
    setAccessibleName(tr("What if the model had no QK-norm"));
    setToolTip(
        tr("This model normalises q and k per head (RMSNorm with q_norm, k_norm) before the rotation: "
           "a second way, besides ÷√d_k, to keep the scores in range. Check to run it without them: "
           "watch the score variance, the largest weights and the next tokens change."));
    connect(this, &QCheckBox::toggled, this, [this](bool removed) {
        const attn::Status set = session_->setQkNormRemoved(removed);
        if (!set) {
            emit message(QString::fromStdString(set.error().message));
            sync();
        }
    });
    connect(session_, &ModelSession::modelOpened, this, &QkNormWhatIfBox::sync);
    sync();
}

void QkNormWhatIfBox::sync()
{
    const QSignalBlocker block(this);
    setVisible(session_->hasModel() && session_->config().qkNorm);
    setChecked(session_->qkNormRemoved());
}

}  // namespace attnlab
