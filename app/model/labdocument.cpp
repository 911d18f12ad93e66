// SPDX-License-Identifier: GPL-3.0-or-later
#include "labdocument.h"

#include "session.h"
#include "undorecorder.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>

namespace attnlab {

namespace {

const QString kRecentKey = QStringLiteral("recentFiles");

}  // namespace

LabDocument::LabDocument(Session* session, UndoRecorder* recorder, QObject* parent)
    : QObject(parent),
      session_(session),
      recorder_(recorder),
      stack_(recorder->stack()),
      autosaveTimer_(new QTimer(this))
{
    autosavePath_ = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                        .filePath(QStringLiteral("autosave.attnlab"));
    autosaveTimer_->setInterval(60 * 1000);
    connect(autosaveTimer_, &QTimer::timeout, this, [this] { autosave(); });
    autosaveTimer_->start();
    connect(stack_, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

void LabDocument::setViewAccess(std::function<QJsonObject()> get, std::function<void(const QJsonObject&)> set)
{
    getView_ = std::move(get);
    setView_ = std::move(set);
}

QString LabDocument::displayName() const
{
    return filePath_.isEmpty() ? tr("Untitled") : QFileInfo(filePath_).fileName();
}

bool LabDocument::isModified() const
{
    return !stack_->isClean();
}

attn::Expected<LabState> LabDocument::currentState() const
{
    if (!session_->problem().isEmpty())
        return attn::Error{tr("The lab cannot be saved while its parameters give no result: %1")
                               .arg(session_->problem())
                               .toStdString()};
    LabState state = session_->state();
    if (getView_)
        state.view = getView_();
    return state;
}

attn::Status LabDocument::applyState(const LabState& state)
{
    const attn::Status applied = session_->setState(state);
    if (!applied)
        return applied;
    if (setView_)
        setView_(state.view);
    recorder_->resync();
    stack_->clear();
    return attn::okStatus();
}

attn::Expected<std::vector<std::string>> LabDocument::open(const QString& path)
{
    attn::Expected<LabState> read = readLabFile(path);
    if (!read)
        return read.error();
    const attn::Status applied = applyState(read.value());
    if (!applied)
        return attn::Error{QFileInfo(path).fileName().toStdString() + ": " + applied.error().message};
    setFilePath(QFileInfo(path).absoluteFilePath());
    addRecentFile(filePath_);
    emit labLoaded();
    return read.value().warnings;
}

attn::Status LabDocument::load(const LabState& state, bool asUntitled)
{
    const attn::Status applied = applyState(state);
    if (!applied)
        return applied;
    if (asUntitled)
        setFilePath(QString());
    emit labLoaded();
    return attn::okStatus();
}

attn::Status LabDocument::loadRead(const LabState& state, const QString& path)
{
    const attn::Status applied = applyState(state);
    if (!applied)
        return applied;
    setFilePath(QFileInfo(path).absoluteFilePath());
    addRecentFile(filePath_);
    emit labLoaded();
    return attn::okStatus();
}

void LabDocument::startUntitled()
{
    recorder_->resync();
    stack_->clear();
    setFilePath(QString());
}

attn::Status LabDocument::save()
{
    if (filePath_.isEmpty()) {
        const QString path = savePathPrompt_ ? savePathPrompt_() : QString();
        if (path.isEmpty())
            return attn::Error{tr("Not saved: no file was chosen.").toStdString()};
        return saveAs(path);
    }
    return saveAs(filePath_);
}

attn::Status LabDocument::saveAs(const QString& path)
{
    attn::Expected<LabState> state = currentState();
    if (!state)
        return state.error();
    const attn::Status saved = saveLabFile(path, state.value());
    if (!saved)
        return saved;
    setFilePath(QFileInfo(path).absoluteFilePath());
    stack_->setClean();
    addRecentFile(filePath_);
    QFile::remove(autosavePath_);
    return attn::okStatus();
}

bool LabDocument::maybeDiscardChanges()
{
    if (!isModified())
        return true;
    const UnsavedAnswer answer = unsavedPrompt_ ? unsavedPrompt_(displayName()) : UnsavedAnswer::Cancel;
    switch (answer) {
    case UnsavedAnswer::Discard: return true;
    case UnsavedAnswer::Cancel: return false;
    case UnsavedAnswer::Save: return bool(save());
    }
    return false;
}

QStringList LabDocument::recentFiles() const
{
    QStringList files = QSettings().value(kRecentKey).toStringList();
    files.removeAll(QString());
    return files;
}

void LabDocument::clearRecentFiles()
{
    QSettings().remove(kRecentKey);
    emit recentFilesChanged();
}

void LabDocument::addRecentFile(const QString& path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings().setValue(kRecentKey, files);
    emit recentFilesChanged();
}

void LabDocument::setFilePath(const QString& path)
{
    if (path == filePath_)
        return;
    filePath_ = path;
    emit filePathChanged(path);
}

int LabDocument::autosaveInterval() const
{
    return autosaveTimer_->interval();
}

void LabDocument::setAutosaveInterval(int ms)
{
    autosaveTimer_->start(ms);
}

attn::Status LabDocument::autosave()
{
    if (!isModified()) {
        QFile::remove(autosavePath_);
        return attn::okStatus();
    }
    attn::Expected<LabState> state = currentState();
    if (!state)
        return state.error();  // keep the last good autosave
    QDir().mkpath(QFileInfo(autosavePath_).absolutePath());
    return saveLabFile(autosavePath_, state.value());
}

bool LabDocument::hasAutosave() const
{
    return QFileInfo::exists(autosavePath_);
}

bool LabDocument::offerRecovery()
{
    if (!hasAutosave())
        return false;
    const QDateTime savedAt = QFileInfo(autosavePath_).lastModified();
    const bool wanted = recoveryPrompt_ && recoveryPrompt_(savedAt);
    bool restored = false;
    if (wanted) {
        attn::Expected<LabState> read = readLabFile(autosavePath_);
        if (read && applyState(read.value())) {
            setFilePath(QString());
            // Modified: the recovered lab is not saved anywhere yet.
            stack_->resetClean();
            emit labLoaded();
            restored = true;
        }
    }
    // A restored lab keeps its autosave until the next one replaces it.
    if (!restored)
        QFile::remove(autosavePath_);
    return restored;
}

void LabDocument::closeCleanly()
{
    autosaveTimer_->stop();
    QFile::remove(autosavePath_);
}

}  // namespace attnlab
