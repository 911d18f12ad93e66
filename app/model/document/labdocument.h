// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The lab as a document: the file it was opened from or saved to, whether it
// has unsaved changes (the undo stack is not at its clean index), Open, Save
// and Save As through the .attnlab format (saved atomically), the recent
// files (QSettings "recentFiles"), and a periodic autosave that is offered
// back after a crash.
//
// Autosave: while the lab is modified, every autosaveInterval() the state is
// written to this window's own file in the autosave folder (AppDataLocation/
// autosave/lab-UUID.attnlab), beside a lock (QLockFile, "….lock") the window
// holds while it lives. A clean exit or a lab without unsaved changes
// removes the file. So an autosave whose lock nobody holds belongs to a run
// that ended without closing, and offerRecovery() asks about it; another
// window's live autosave is never offered, and never removed. An autosave
// that cannot be read is kept (renamed "….damaged") and the user is told
// where; a write that fails is told once (autosaveFailed) until one works.
// The timer's autosave takes the state on the GUI thread and writes it on a
// thread of its own (a Queue JobLane, scheduler.h; a large lab's text takes a few hundred milliseconds to
// format); whatever touches the file next (a save, a close, autosave())
// waits for that write first.
//
// The questions (unsaved changes, recovery, where to save) go through
// replaceable functions, so that tests answer them without modal dialogs;
// the window installs dialog-based ones.

#include "labfile.h"

#include <QDateTime>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <future>
#include <memory>

class QLockFile;
class QTimer;
class QUndoStack;

namespace attnlab {

class JobLane;

class Session;
class UndoRecorder;

class LabDocument : public QObject {
    Q_OBJECT
public:
    enum class UnsavedAnswer { Save, Discard, Cancel };
    // Asked before changes would be lost; the argument is displayName().
    using UnsavedPrompt = std::function<UnsavedAnswer(const QString& name)>;
    // Asked at start for each autosave left by a run that did not close; true
    // restores it.
    using RecoveryPrompt = std::function<bool(const QDateTime& savedAt)>;
    // Where to save a lab that has no file yet; empty cancels.
    using SavePathPrompt = std::function<QString()>;

    static constexpr int kMaxRecentFiles = 8;

    LabDocument(Session* session, UndoRecorder* recorder, QObject* parent = nullptr);
    ~LabDocument() override;  // releases the autosave's lock (the file stays: as after a crash)

    // The window's own state (focus row, colour ranges, ...) stored in "view".
    void setViewAccess(std::function<QJsonObject()> get, std::function<void(const QJsonObject&)> set);

    void setUnsavedPrompt(UnsavedPrompt prompt) { unsavedPrompt_ = std::move(prompt); }
    void setRecoveryPrompt(RecoveryPrompt prompt) { recoveryPrompt_ = std::move(prompt); }
    void setSavePathPrompt(SavePathPrompt prompt) { savePathPrompt_ = std::move(prompt); }

    QString filePath() const { return filePath_; }
    QString displayName() const;  // file name, or "Untitled"
    bool isModified() const;

    // The session and view as a lab; an error while the parameters have a problem.
    attn::Expected<LabState> currentState() const;

    // Reads the file and replaces the lab (no prompt: see maybeDiscardChanges).
    // The undo history starts afresh; the file goes to the top of the recent
    // files. The returned warnings come from the reader (newer versions).
    attn::Expected<std::vector<std::string>> open(const QString& path);
    // Makes `state` the lab (a preset, a new lab): no file, no history.
    attn::Status load(const LabState& state, bool asUntitled = true);
    // The same for a lab already read from `path` (the command line's): the
    // lab has that file, as if open() had read it.
    attn::Status loadRead(const LabState& state, const QString& path);
    // The start of a new untitled lab from whatever the session shows now.
    void startUntitled();
    attn::Status save();  // Save As when there is no file yet
    attn::Status saveAs(const QString& path);

    // True when the caller may go on: nothing unsaved, or the user chose
    // Discard, or chose Save and the save succeeded.
    bool maybeDiscardChanges();

    QStringList recentFiles() const;
    void clearRecentFiles();

    // Where this window's autosave goes, and where recovery looks (before the
    // first autosave: it moves nothing already written).
    void setAutosaveFolder(const QString& folder);
    QString autosavePath() const { return autosavePath_; }  // this window's own file
    int autosaveInterval() const;                           // milliseconds
    void setAutosaveInterval(int ms);
    // Writes the autosave now if the lab is modified, else removes it.
    attn::Status autosave();
    // The timer's autosave: the same, the state taken here and written on
    // the autosave thread; skipped while a write is still in flight.
    // autosaveWritten() tells when it ended, and whether the file is on
    // disk (a failure is told by autosaveFailed, once, as autosave() tells it).
    void autosaveInBackground();
    bool autosaveInFlight() const { return pendingWrite_.valid(); }
    bool hasAutosave() const;  // this window's own
    // The autosaves of runs that ended without closing (no live lock),
    // newest first.
    QStringList orphanedAutosaves() const;

    struct Recovery {
        bool restored = false;
        QString problem;  // what went wrong with a restore the user asked for
        explicit operator bool() const { return restored; }
    };
    // Asks about each orphaned autosave, newest first: restores the first
    // one the user wants (untitled, modified) and removes those declined.
    // One that cannot be read is kept as "….damaged" and `problem` says so.
    Recovery offerRecovery();
    // The window closes normally: no autosave stays behind.
    void closeCleanly();

signals:
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);
    void recentFilesChanged();
    // open(), load() or recovery replaced the lab.
    void labLoaded();
    // An autosave could not be written; said once until a write succeeds.
    void autosaveFailed(const QString& message);
    // A background autosave ended; `ok`: the file was written.
    void autosaveWritten(bool ok);

private:
    void setFilePath(const QString& path);
    void addRecentFile(const QString& path);
    attn::Status applyState(const LabState& state);
    // The folder and this window's lock, for a write to autosavePath_.
    attn::Status prepareAutosave();
    void reportAutosave(const attn::Status& written);
    void waitForAutosave();  // the background write in flight, if any, ended

    Session* session_;
    UndoRecorder* recorder_;
    QUndoStack* stack_;
    QTimer* autosaveTimer_;
    QString filePath_;
    QString autosaveFolder_;
    QString autosavePath_;
    QString legacyAutosave_;  // the single autosave.attnlab of older versions
    std::unique_ptr<QLockFile> autosaveLock_;
    bool autosaveFailing_ = false;
    std::function<QJsonObject()> getView_;
    std::function<void(const QJsonObject&)> setView_;
    UnsavedPrompt unsavedPrompt_;
    RecoveryPrompt recoveryPrompt_;
    SavePathPrompt savePathPrompt_;
    std::future<attn::Status> pendingWrite_;  // the background write's status
    std::unique_ptr<JobLane> writer_;         // last: the write in flight ends first
};

}  // namespace attnlab
