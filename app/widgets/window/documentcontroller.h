// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's lab as a document: the undo stack and its recorder, the
// LabDocument with the window's questions (unsaved changes, recovery, where
// to save), New, Open, Open recent, the presets, Save, Save As, Reset to the
// article example and Import a matrix; the window title follows the file
// name and the modified mark. Each gesture ends in message() for the status
// bar.

#include "windowstart.h"
#include "expected.h"
#include "session.h"

#include <QObject>
#include <QString>
#include <QStringList>

class QLineEdit;
class QMainWindow;
class QMenu;
class QUndoStack;

namespace attnlab {

class LabDocument;
class UndoRecorder;

class DocumentController : public QObject {
    Q_OBJECT
public:
    DocumentController(Session* session, QMainWindow* window);
    ~DocumentController() override;

    QUndoStack* undoStack() const { return undoStack_; }
    UndoRecorder* recorder() const { return recorder_; }
    LabDocument* document() const { return document_; }

    // File menu: New … Save As, then Import.
    void addFileActions(QMenu* file);
    // Edit menu: Undo and Redo, reaching the lab from any widget (UndoShortcuts).
    void addEditActions(QMenu* edit);
    // A slider held down is one undo step, and so is typing in `sentence`
    // until the field is left: for every slider under `root`.
    void connectUndoGestures(QWidget* root, QLineEdit* sentence);

    // The command line's lab, or a new untitled one.
    void startDocument(const WindowStart& start);
    void offerRecovery();

    // Each asks about unsaved changes first; false when cancelled or failed.
    bool openLab(const QString& path);
    bool saveLab();
    bool saveLabAs();
    bool newLab();
    bool openPreset(const QString& path);
    void resetToArticleExample();  // one undo step of the same lab
    static QStringList presets();  // ":/presets/NAME.attnlab"
    // "Imported the module's 4 heads (head_dim 2 each) from the folder “mha”."
    static QString mhaImportedText(int heads, int dModel, const QString& folder);
    // Where the open and import dialogs start.
    QString startFolder() const;

    attn::Status importMatrix(MatrixId which, const QString& path, bool transpose);
    void showImportDialog();
    // A torch.nn.MultiheadAttention's state_dict saved as .npy files
    // (mhastate.h): the split layout with the current number of heads over
    // the current X, one undo step.
    attn::Status importMhaState(const QString& dir);
    void chooseMhaState();

signals:
    void message(const QString& text, int timeout);
    // New lab or Reset: the article example is shown, its query "is" focused.
    void articleExampleStarted();

private:
    // `m`, read from `path` and checked, replaces `which` as one undo step.
    attn::Status applyImport(MatrixId which, const attn::Matrix& m, const QString& path);
    void setPrompts();
    void addPresetMenu(QMenu* file);
    void rebuildRecentMenu();
    void updateWindowTitle();

    Session* session_;
    QMainWindow* window_;
    QUndoStack* undoStack_;
    UndoRecorder* recorder_;
    LabDocument* document_;
    QMenu* recentMenu_ = nullptr;
};

}  // namespace attnlab
