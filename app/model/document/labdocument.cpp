// SPDX-License-Identifier: GPL-3.0-or-later
#include "labdocument.h"

#include "scheduler.h"
#include "session.h"
#include "undorecorder.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>
#include <QUuid>

#include <algorithm>

namespace attnlab {

namespace {

const QString kRecentKey = QStringLiteral("recentFiles");
constexpr const char* kAutosaveSuffix = ".attnlab";
constexpr const char* kLockSuffix = ".lock";

}  // namespace

LabDocument::LabDocument(Session* session, UndoRecorder* recorder, QObject* parent)
    : QObject(parent),
      session_(session),
      recorder_(recorder),
      stack_(recorder->stack()),
      autosaveTimer_(new QTimer(this))
{
    const QDir data(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation));
    setAutosaveFolder(data.filePath(QStringLiteral("autosave")));
    legacyAutosave_ = data.filePath(QStringLiteral("autosave.attnlab"));
    autosaveTimer_->setInterval(60 * 1000);
    connect(autosaveTimer_, &QTimer::timeout, this, &LabDocument::autosaveInBackground);
    autosaveTimer_->start();
    connect(stack_, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

LabDocument::~LabDocument() = default;

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
    LabState state = session_->inputs().state();
    if (state.borrowed.active())  // refused, with the reason (and autosave keeps the last lab)
        return validateLabState(state).error();
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
    waitForAutosave();  // which would write the file again
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

void LabDocument::setAutosaveFolder(const QString& folder)
{
    waitForAutosave();
    autosaveLock_.reset();
    autosaveFolder_ = folder;
    autosavePath_ = QDir(folder).filePath(
        QStringLiteral("lab-%1%2")
            .arg(QUuid::createUuid().toString(QUuid::WithoutBraces), QLatin1String(kAutosaveSuffix)));
    legacyAutosave_.clear();
}

attn::Status LabDocument::prepareAutosave()
{
    if (!QDir().mkpath(autosaveFolder_))
        return attn::Error{
            tr("cannot create the folder '%1'").arg(QDir::toNativeSeparators(autosaveFolder_)).toStdString()};
    if (!autosaveLock_) {
        autosaveLock_ = std::make_unique<QLockFile>(autosavePath_ + QLatin1String(kLockSuffix));
        autosaveLock_->setStaleLockTime(0);  // stale only once this process is gone
        autosaveLock_->tryLock(0);
    }
    return attn::okStatus();
}

void LabDocument::reportAutosave(const attn::Status& written)
{
    if (!written && !autosaveFailing_)
        emit autosaveFailed(tr("The lab could not be saved automatically (%1); save it yourself to keep "
                               "your changes.")
                                .arg(QString::fromStdString(written.error().message)));
    autosaveFailing_ = !written;
}

void LabDocument::waitForAutosave()
{
    if (!pendingWrite_.valid())
        return;
    const attn::Status written = pendingWrite_.get();
    reportAutosave(written);  // its queued report finds nothing in flight and says nothing
    emit autosaveWritten(bool(written));
}

attn::Status LabDocument::autosave()
{
    waitForAutosave();
    if (!isModified()) {
        QFile::remove(autosavePath_);
        return attn::okStatus();
    }
    attn::Expected<LabState> state = currentState();
    if (!state)
        return state.error();  // keep the last good autosave
    attn::Status written = prepareAutosave();
    if (written)
        written = saveLabFile(autosavePath_, state.value());
    reportAutosave(written);
    return written;
}

void LabDocument::autosaveInBackground()
{
    if (pendingWrite_.valid())
        return;  // the next tick writes what changed meanwhile
    if (!isModified()) {
        QFile::remove(autosavePath_);
        return;
    }
    attn::Expected<LabState> state = currentState();
    if (!state)
        return;  // keep the last good autosave
    if (attn::Status prepared = prepareAutosave(); !prepared) {
        reportAutosave(prepared);
        emit autosaveWritten(false);
        return;
    }
    // The state is a copy (matrices and implicitly shared Qt values), the
    // thread's own; its report comes back through this object's event
    // queue, and is dropped with the object (whose end waits for the write).
    if (!writer_)
        writer_ = std::make_unique<JobLane>(JobLane::Policy::Queue, "autosave");
    auto written = std::make_shared<std::promise<attn::Status>>();
    pendingWrite_ = written->get_future();
    // Every write runs, at shutdown too (the flag is not read).
    writer_->post(
        [this, written, path = autosavePath_, lab = std::move(state.value())](const std::atomic<bool>&) {
            written->set_value(saveLabFile(path, lab));
            // (Delivered at most moments after this function returns, so the
            // wait there is short; a save or close may have taken it already.)
            QMetaObject::invokeMethod(
                this, [this] { waitForAutosave(); }, Qt::QueuedConnection);
        });
}

bool LabDocument::hasAutosave() const
{
    return QFileInfo::exists(autosavePath_);
}

QStringList LabDocument::orphanedAutosaves() const
{
    QFileInfoList candidates = QDir(autosaveFolder_)
                                   .entryInfoList({QLatin1Char('*') + QLatin1String(kAutosaveSuffix)},
                                                  QDir::Files | QDir::Hidden, QDir::Time);
    if (!legacyAutosave_.isEmpty() && QFileInfo::exists(legacyAutosave_))
        candidates.append(QFileInfo(legacyAutosave_));
    std::stable_sort(candidates.begin(), candidates.end(), [](const QFileInfo& a, const QFileInfo& b) {
        return a.lastModified() > b.lastModified();
    });
    QStringList orphans;
    for (const QFileInfo& file : candidates) {
        const QString path = file.absoluteFilePath();
        if (path == QFileInfo(autosavePath_).absoluteFilePath())
            continue;
        QLockFile lock(path + QLatin1String(kLockSuffix));
        lock.setStaleLockTime(0);
        if (lock.tryLock(0))  // nobody's: its run is gone (the lock goes again with `lock`)
            orphans.append(path);
    }
    return orphans;
}

LabDocument::Recovery LabDocument::offerRecovery()
{
    Recovery recovery;
    for (const QString& path : orphanedAutosaves()) {
        QLockFile lock(path + QLatin1String(kLockSuffix));
        lock.setStaleLockTime(0);
        if (!lock.tryLock(0))
            continue;  // another window took it meanwhile
        const QDateTime savedAt = QFileInfo(path).lastModified();
        if (!(recoveryPrompt_ && recoveryPrompt_(savedAt))) {
            QFile::remove(path);
            continue;
        }
        attn::Expected<LabState> read = readLabFile(path);
        attn::Status applied = read ? applyState(read.value()) : attn::Status(read.error());
        if (!applied) {
            const QString kept = path + QStringLiteral(".damaged");
            QFile::remove(kept);
            QFile::rename(path, kept);
            recovery.problem =
                tr("The automatically saved lab could not be restored: %1. It is kept as '%2'.")
                    .arg(QString::fromStdString(applied.error().message), QDir::toNativeSeparators(kept));
            return recovery;
        }
        setFilePath(QString());
        // Modified: the recovered lab is not saved anywhere yet.
        stack_->resetClean();
        emit labLoaded();
        // The lab is this window's now: its own autosave takes over, and the
        // old file goes once that is written.
        if (autosave())
            QFile::remove(path);
        recovery.restored = true;
        return recovery;
    }
    return recovery;
}

void LabDocument::closeCleanly()
{
    autosaveTimer_->stop();
    waitForAutosave();
    QFile::remove(autosavePath_);
    autosaveLock_.reset();
}

}  // namespace attnlab
