// SPDX-License-Identifier: GPL-3.0-or-later
#include "dksweepbutton.h"

#include "dksweep.h"
#include "lastfolder.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

namespace attnlab {

DkSweepButton::DkSweepButton(DkSweep* sweep, QWidget* parent) : QToolButton(parent), sweep_(sweep)
{
    setObjectName(QStringLiteral("dkPlayButton"));
    setAccessibleName(tr("Play d_k"));
    setToolButtonStyle(Qt::ToolButtonTextOnly);
    setPopupMode(QToolButton::MenuButtonPopup);
    auto* menu = new QMenu(this);
    QAction* record = menu->addAction(tr("Play and &save the frames as PNG…"), this, &DkSweepButton::record);
    record->setObjectName(QStringLiteral("dkRecordAction"));
    setMenu(menu);
    folderPrompt_ = [this] {
        return QFileDialog::getExistingDirectory(window(), tr("Save the d_k frames into"),
                                                 lastFolder(FolderUse::Export));
    };
    replacePrompt_ = [this](const QString& folder) {
        return QMessageBox::question(window(), tr("Replace the frames?"),
                                     tr("\"%1\" already holds frames of a d_k sweep. Replace them?")
                                         .arg(QDir::toNativeSeparators(folder)),
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
               == QMessageBox::Yes;
    };
    dropPrompt_ = [this](int cells) {
        return QMessageBox::question(
                   window(), tr("Play d_k?"),
                   tr("The sweep passes d_k = 1, where W_q and W_k have a single column: %n of "
                      "your own cells in their other columns would be dropped on the way. "
                      "Edit > Undo after the sweep brings them back. Play anyway?",
                      nullptr, cells),
                   QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
               == QMessageBox::Yes;
    };
    connect(this, &QToolButton::clicked, this, &DkSweepButton::toggle);
    connect(sweep_, &DkSweep::started, this, &DkSweepButton::updateLook);
    connect(sweep_, &DkSweep::finished, this, [this](bool completed) {
        updateLook();
        if (sweep_->frameDirectory().isEmpty())
            return;
        if (completed || sweep_->framesWritten() > 0)
            emit message(tr("Wrote %n frame(s) to %1.", nullptr, sweep_->framesWritten())
                             .arg(QDir::toNativeSeparators(sweep_->frameDirectory())));
    });
    connect(sweep_, &DkSweep::failed, this,
            [this](const QString& text) { emit message(tr("The d_k sweep stopped: %1").arg(text)); });
    updateLook();
}

void DkSweepButton::toggle()
{
    if (sweep_->isRunning())
        sweep_->stop();
    else if (mayDropUserCells())
        sweep_->start();
}

bool DkSweepButton::mayDropUserCells()
{
    const int cells = sweep_->userCellsDroppedAtDkOne();
    return cells == 0 || dropPrompt_(cells);
}

void DkSweepButton::record()
{
    if (sweep_->isRunning())
        sweep_->stop();
    const QString folder = folderPrompt_();
    if (folder.isEmpty())
        return;
    rememberFolder(FolderUse::Export, folder);
    if (QFileInfo::exists(QDir(folder).filePath(DkSweep::frameFileName(1))) && !replacePrompt_(folder))
        return;
    if (!mayDropUserCells())
        return;
    const attn::Status started = sweep_->startRecording(folder);
    if (!started)
        emit message(QString::fromStdString(started.error().message));
}

void DkSweepButton::updateLook()
{
    const bool running = sweep_->isRunning();
    setText(running ? tr("■ Stop") : tr("▶ Play"));
    setToolTip(running ? tr("Stop the d_k sweep here.")
                       : tr("Sweep d_k from 1 to 1024 and back on the slider's steps, "
                            "animating every view. The arrow beside it also saves each "
                            "step as a numbered PNG, for slides or a GIF."));
}

}  // namespace attnlab
