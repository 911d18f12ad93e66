// SPDX-License-Identifier: GPL-3.0-or-later
#include "dksweep.h"

#include "scaling_lab.h"
#include "session.h"
#include "stagedwrite.h"
#include "usercells.h"

#include <QDir>
#include <QFileInfo>

namespace attnlab {

DkSweep::DkSweep(Session* session, QObject* parent) : QObject(parent), session_(session)
{
    timer_.setSingleShot(true);
    connect(&timer_, &QTimer::timeout, this, &DkSweep::applyStep);
    connect(session_, &Session::resultChanged, this, &DkSweep::onResultChanged);
}

std::vector<int> DkSweep::sequence()
{
    const std::vector<int> up = attn::defaultScalingLabDks();
    std::vector<int> steps = up;
    steps.insert(steps.end(), up.rbegin() + 1, up.rend());
    return steps;
}

QString DkSweep::frameFileName(int frame)
{
    return QStringLiteral("frame_%1.png").arg(frame, 4, 10, QLatin1Char('0'));
}

int DkSweep::userCellsDroppedAtDkOne() const
{
    const UserCells& cells = session_->inputs().userCells;
    int dropped = 0;
    for (const MatrixId which : {MatrixId::Wq, MatrixId::Wk}) {
        const CellMask& mask = cells.mask[int(which)];
        if (mask.cols() > 1)
            dropped += int(mask.rightCols(mask.cols() - 1).count());
    }
    return dropped;
}

void DkSweep::start()
{
    if (!running_)
        begin(QString());
}

attn::Status DkSweep::startRecording(const QString& directory)
{
    if (running_)
        return attn::Error{tr("The d_k sweep is already running.").toStdString()};
    if (!frameSource_)
        return attn::Error{tr("There is nothing to draw the frames from.").toStdString()};
    if (directory.isEmpty())
        return attn::Error{tr("No folder was given for the frames.").toStdString()};
    QFileInfo info(directory);
    if (info.exists() && !info.isDir())
        return attn::Error{
            tr("\"%1\" is a file, not a folder.").arg(QDir::toNativeSeparators(directory)).toStdString()};
    if (!info.exists() && !QDir().mkpath(directory))
        return attn::Error{
            tr("The folder \"%1\" cannot be made.").arg(QDir::toNativeSeparators(directory)).toStdString()};
    info.refresh();
    if (!info.isWritable())
        return attn::Error{tr("The folder \"%1\" cannot be written to.")
                               .arg(QDir::toNativeSeparators(directory))
                               .toStdString()};
    frameMaker_ = frameSource_();
    if (!frameMaker_)
        return attn::Error{tr("There is nothing to draw the frames from.").toStdString()};
    begin(info.absoluteFilePath());
    return attn::okStatus();
}

void DkSweep::begin(const QString& directory)
{
    sequence_ = sequence();
    directory_ = directory;
    if (directory_.isEmpty())
        frameMaker_ = nullptr;
    startDk_ = session_->inputs().config.dK;
    index_ = 0;
    framesWritten_ = 0;
    running_ = true;
    emit started();
    applyStep();
}

void DkSweep::stop()
{
    if (running_)
        finish(false);
}

void DkSweep::applyStep()
{
    if (!running_)
        return;
    waiting_ = true;
    appliedDk_ = sequence_[std::size_t(index_)];
    session_->setDK(appliedDk_);
    // Computed at once (lesson sizes), or unchanged: no result to wait for.
    if (running_ && waiting_ && !session_->isComputing()) {
        waiting_ = false;
        showStep();
    }
}

void DkSweep::onResultChanged()
{
    if (!running_ || session_->isComputing())
        return;
    if (!waiting_) {
        // A d_k the sweep did not ask for: the user took over (slider, spin
        // box, undo); the sweep leaves it there.
        if (session_->published()->dK() != appliedDk_)
            stop();
        return;
    }
    if (session_->published()->dK() != sequence_[std::size_t(index_)])
        return;
    waiting_ = false;
    // Out of setDK's call chain, so that every view has taken the result.
    QMetaObject::invokeMethod(this, &DkSweep::showStep, Qt::QueuedConnection);
}

void DkSweep::showStep()
{
    if (!running_)
        return;
    const int dK = sequence_[std::size_t(index_)];
    if (!directory_.isEmpty()) {
        const attn::Expected<QByteArray> frame =
            frameMaker_(dK, index_ + 1, int(sequence_.size()), frameSize_);
        attn::Status written = frame ? attn::okStatus() : attn::Status(frame.error());
        if (frame)
            written =
                writeFileAtomically(QDir(directory_).filePath(frameFileName(index_ + 1)), frame.value());
        if (!written) {
            const QString message = QString::fromStdString(written.error().message);
            finish(false);
            emit failed(message);
            return;
        }
        ++framesWritten_;
    }
    emit stepped(index_, dK);
    if (!running_)
        return;
    ++index_;
    if (index_ == int(sequence_.size())) {
        finish(true);
        return;
    }
    timer_.start(interval_);
}

void DkSweep::finish(bool completed)
{
    timer_.stop();
    running_ = false;
    waiting_ = false;
    frameMaker_ = nullptr;  // and the lab it holds
    // Back where the teacher started (within the sweep's undo step).
    if (completed && session_->inputs().config.dK != startDk_)
        session_->setDK(startDk_);
    emit finished(completed);
}

}  // namespace attnlab
