// SPDX-License-Identifier: GPL-3.0-or-later
#include "dksweepsource.h"

#include "session.h"

#include <QCoreApplication>

namespace attnlab {

namespace {
struct DkSweepText {
    Q_DECLARE_TR_FUNCTIONS(DkSweepSource)
};
}  // namespace

DkSweepSource::DkSweepSource(const LabState& start)
    : session_(std::make_unique<Session>()), status_(attn::okStatus())
{
    status_ = session_->setState(start);
    if (status_)
        session_->waitForResult();
    if (status_ && !session_->problem().isEmpty())
        status_ = attn::Error{session_->problem().toStdString()};
}

DkSweepSource::~DkSweepSource() = default;

attn::Expected<AttentionSnapshot> DkSweepSource::at(int dK)
{
    if (!status_)
        return status_.error();
    session_->setDK(dK);
    session_->waitForResult();
    if (!session_->problem().isEmpty() || session_->published()->dK() != dK)
        return attn::Error{
            DkSweepText::tr("d_k %1 does not compute: %2").arg(dK).arg(session_->problem()).toStdString()};
    return sessionSnapshot(*session_);
}

QString DkSweepSource::title(int dK)
{
    return DkSweepText::tr("d_k = %1").arg(dK);
}

AttentionSnapshot sessionSnapshot(const Session& session)
{
    // With a problem the config is the refused request: the snapshot
    // describes what is shown.
    return singleHeadSnapshot(session.inputs().config, session.inputs().options, session.inputs().model,
                              *session.published()->shown(), session.published()->stats());
}

}  // namespace attnlab
