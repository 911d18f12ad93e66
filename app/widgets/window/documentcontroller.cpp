// SPDX-License-Identifier: GPL-3.0-or-later
#include "documentcontroller.h"
#include "headparams.h"

#include "importdialog.h"
#include "labdocument.h"
#include "labfile.h"
#include "mhastate.h"
#include "presets.h"
#include "undorecorder.h"
#include "undoshortcuts.h"
#include "lastfolder.h"

#include <QAbstractSlider>
#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QLocale>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QScrollBar>
#include <QUndoStack>

#include <algorithm>

namespace attnlab {

namespace {

QStringList warningList(const std::vector<std::string>& warnings)
{
    QStringList list;
    for (const std::string& w : warnings)
        list.append(QString::fromStdString(w));
    return list;
}

}  // namespace

DocumentController::DocumentController(Session* session, QMainWindow* window)
    : QObject(window),
      session_(session),
      window_(window),
      undoStack_(new QUndoStack(this)),
      recorder_(new UndoRecorder(session, undoStack_, this)),
      document_(new LabDocument(session, recorder_, this))
{
    undoStack_->setObjectName(QStringLiteral("undoStack"));
    setPrompts();
    connect(document_, &LabDocument::modifiedChanged, this, &DocumentController::updateWindowTitle);
    connect(document_, &LabDocument::filePathChanged, this, &DocumentController::updateWindowTitle);
    connect(document_, &LabDocument::autosaveFailed, this,
            [this](const QString& text) { emit message(text, 20000); });
    updateWindowTitle();
}

DocumentController::~DocumentController()
{
    // Deleting the undo stack emits cleanChanged, which the document forwards
    // to this object, by then no longer a DocumentController. Cut those first.
    undoStack_->disconnect();
    document_->disconnect();
}

void DocumentController::setPrompts()
{
    document_->setUnsavedPrompt([this](const QString& name) {
        const QMessageBox::StandardButton answer = QMessageBox::warning(
            window_, tr("Unsaved changes"),
            tr("The lab \"%1\" has changes that are not saved. Save them first?").arg(name),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        return answer == QMessageBox::Save      ? LabDocument::UnsavedAnswer::Save
               : answer == QMessageBox::Discard ? LabDocument::UnsavedAnswer::Discard
                                                : LabDocument::UnsavedAnswer::Cancel;
    });
    document_->setRecoveryPrompt([this](const QDateTime& savedAt) {
        return QMessageBox::question(window_, tr("Recover the last lab?"),
                                     tr("Attention Lab did not close normally. A copy of the lab saved "
                                        "automatically at %1 is there. Restore it?")
                                         .arg(QLocale().toString(savedAt, QLocale::ShortFormat)),
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes)
               == QMessageBox::Yes;
    });
    document_->setSavePathPrompt([this] {
        const QString path = QFileDialog::getSaveFileName(window_, tr("Save the lab"),
                                                          inLastFolder(FolderUse::Open, tr("lab.attnlab")),
                                                          tr("Attention labs (*.attnlab)"));
        rememberFile(FolderUse::Open, path);
        if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty())
            return path;
        return path + QStringLiteral(".attnlab");
    });
}

void DocumentController::connectUndoGestures(QWidget* root, QLineEdit* sentence)
{
    for (QAbstractSlider* slider : root->findChildren<QAbstractSlider*>()) {
        if (qobject_cast<QScrollBar*>(slider))
            continue;
        connect(slider, &QAbstractSlider::sliderPressed, recorder_, &UndoRecorder::beginGesture);
        connect(slider, &QAbstractSlider::sliderReleased, recorder_, &UndoRecorder::endGesture);
    }
    connect(sentence, &QLineEdit::editingFinished, recorder_, &UndoRecorder::breakMerge);
}

void DocumentController::addFileActions(QMenu* file)
{
    QAction* newLabAction = file->addAction(tr("&New lab"), this, &DocumentController::newLab);
    newLabAction->setObjectName(QStringLiteral("newLabAction"));
    newLabAction->setShortcut(QKeySequence::New);
    newLabAction->setStatusTip(tr("Start again from the article example, as a new unsaved lab."));
    QAction* open = file->addAction(tr("&Open lab…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(window_, tr("Open a lab"), startFolder(),
                                                          tr("Attention labs (*.attnlab);;All files (*)"));
        rememberFile(FolderUse::Open, path);
        if (!path.isEmpty())
            openLab(path);
    });
    open->setObjectName(QStringLiteral("openLabAction"));
    open->setShortcut(QKeySequence::Open);
    open->setStatusTip(tr("Open a saved lab with its matrices, hand edits included."));
    recentMenu_ = file->addMenu(tr("Open &recent"));
    recentMenu_->setObjectName(QStringLiteral("recentMenu"));
    connect(document_, &LabDocument::recentFilesChanged, this, &DocumentController::rebuildRecentMenu);
    rebuildRecentMenu();
    addPresetMenu(file);
    file->addSeparator();
    QAction* save = file->addAction(tr("&Save lab"), this, &DocumentController::saveLab);
    save->setObjectName(QStringLiteral("saveLabAction"));
    save->setShortcut(QKeySequence::Save);
    save->setStatusTip(tr("Save the parameters, every matrix and the view."));
    QAction* saveAs = file->addAction(tr("Save lab &as…"), this, &DocumentController::saveLabAs);
    saveAs->setObjectName(QStringLiteral("saveLabAsAction"));
    saveAs->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    QAction* import = file->addAction(tr("&Import a matrix…"), this, &DocumentController::showImportDialog);
    import->setObjectName(QStringLiteral("importMatrixAction"));
    import->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    import->setStatusTip(tr("Replace X, W_q, W_k or W_v with a .npy or .csv file of the same shape."));
    QAction* mha = file->addAction(tr("Import nn.&MultiheadAttention state…"), this,
                                   &DocumentController::chooseMhaState);
    mha->setObjectName(QStringLiteral("importMhaStateAction"));
    mha->setStatusTip(
        tr("Every head from a folder of in_proj_weight.npy, in_proj_bias.npy, out_proj.weight.npy "
           "and out_proj.bias.npy (a module's state_dict), over the current X."));
}

void DocumentController::addEditActions(QMenu* edit)
{
    QAction* undo = undoStack_->createUndoAction(window_, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undoAction"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = undoStack_->createRedoAction(window_, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redoAction"));
    // Both common keys. QKeySequence::Redo is Ctrl+Shift+Z on X11: listing it
    // beside Ctrl+Shift+Z registered that key twice, an ambiguous shortcut.
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    edit->addAction(undo);
    edit->addAction(redo);
    new UndoShortcuts(window_, undo, redo);
}

void DocumentController::addPresetMenu(QMenu* file)
{
    QMenu* presetMenu = file->addMenu(tr("&Presets"));
    presetMenu->setObjectName(QStringLiteral("presetsMenu"));
    const QStringList names = presets();
    for (int index = 0; index < names.size(); ++index) {
        const QString& path = names[index];
        attn::Expected<LabState> lab = readLabFile(path);
        const QString sentence =
            lab ? QString::fromStdString(lab.value().config.sentence) : QFileInfo(path).baseName();
        const QString title = lab ? lab.value().view.value(QStringLiteral("title")).toString() : QString();
        // Numbered for a mnemonic; an '&' of the title is shown as it is.
        QString label = title.isEmpty() ? sentence : title;
        label.replace(QLatin1Char('&'), QLatin1String("&&"));
        QAction* preset = presetMenu->addAction(tr("&%1 %2").arg(index + 1).arg(label), this,
                                                [this, path] { openPreset(path); });
        preset->setObjectName(QStringLiteral("preset_") + QFileInfo(path).baseName());
        if (lab)
            preset->setStatusTip(tr("\"%1\", seed %2, d_model %3, d_k %4, d_v %5, %6 initialisation")
                                     .arg(sentence)
                                     .arg(lab.value().config.seed)
                                     .arg(lab.value().config.dModel)
                                     .arg(lab.value().config.dK)
                                     .arg(lab.value().config.dV)
                                     .arg(QLatin1String(attn::initModeName(lab.value().config.init))));
    }
}

void DocumentController::startDocument(const WindowStart& start)
{
    if (start.haveLab) {
        const attn::Status loaded =
            start.labPath.empty() ? document_->load(start.lab)
                                  : document_->loadRead(start.lab, QString::fromStdString(start.labPath));
        const QStringList warnings = warningList(start.lab.warnings);
        if (!loaded)
            emit message(QString::fromStdString(loaded.error().message), 10000);
        else if (!warnings.isEmpty())
            emit message(warnings.join(QLatin1Char(' ')), 10000);
        return;
    }
    document_->startUntitled();
}

void DocumentController::offerRecovery()
{
    const LabDocument::Recovery recovery = document_->offerRecovery();
    if (recovery)
        emit message(tr("The automatically saved lab was restored; save it to keep it."), 10000);
    else if (!recovery.problem.isEmpty())
        emit message(recovery.problem, 20000);
}

void DocumentController::updateWindowTitle()
{
    window_->setWindowTitle(tr("%1[*] — Attention Lab").arg(document_->displayName()));
    window_->setWindowModified(document_->isModified());
}

void DocumentController::rebuildRecentMenu()
{
    recentMenu_->clear();
    const QStringList files = document_->recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        QAction* action =
            recentMenu_->addAction(tr("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName().replace(
                                       QLatin1Char('&'), QLatin1String("&&"))),
                                   this, [this, path] { openLab(path); });
        action->setStatusTip(QDir::toNativeSeparators(path));
    }
    if (!files.isEmpty()) {
        recentMenu_->addSeparator();
        recentMenu_->addAction(tr("&Clear the list"), document_, &LabDocument::clearRecentFiles);
    }
    recentMenu_->setEnabled(!files.isEmpty());
}

bool DocumentController::openLab(const QString& path)
{
    if (!document_->maybeDiscardChanges())
        return false;
    const attn::Expected<std::vector<std::string>> opened = document_->open(path);
    if (!opened) {
        emit message(QString::fromStdString(opened.error().message), 15000);
        if (window_->isVisible())
            QMessageBox::warning(window_, tr("Open a lab"), QString::fromStdString(opened.error().message));
        return false;
    }
    const QStringList warnings = warningList(opened.value());
    emit message(
        warnings.isEmpty() ? tr("Opened %1.").arg(document_->displayName()) : warnings.join(QLatin1Char(' ')),
        10000);
    return true;
}

bool DocumentController::saveLab()
{
    const attn::Status saved = document_->save();
    emit message(
        saved ? tr("Saved %1.").arg(document_->displayName()) : QString::fromStdString(saved.error().message),
        10000);
    return bool(saved);
}

bool DocumentController::saveLabAs()
{
    const QString old = document_->filePath();
    QString path =
        QFileDialog::getSaveFileName(window_, tr("Save the lab as"),
                                     old.isEmpty() ? inLastFolder(FolderUse::Open, tr("lab.attnlab")) : old,
                                     tr("Attention labs (*.attnlab)"));
    if (path.isEmpty())
        return false;
    rememberFile(FolderUse::Open, path);
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".attnlab");
    const attn::Status saved = document_->saveAs(path);
    emit message(
        saved ? tr("Saved %1.").arg(document_->displayName()) : QString::fromStdString(saved.error().message),
        10000);
    return bool(saved);
}

bool DocumentController::newLab()
{
    if (!document_->maybeDiscardChanges())
        return false;
    session_->setParameters(attn::ModelConfig(), attn::AttentionOptions());
    document_->startUntitled();
    emit articleExampleStarted();
    emit message(tr("A new lab: the article example."), 5000);
    return true;
}

void DocumentController::resetToArticleExample()
{
    // Asked as New asks; the reset is then one undo step of the same lab.
    if (!document_->maybeDiscardChanges())
        return;
    recorder_->recordAs(tr("Reset to the article example"),
                        [this] { session_->setParameters(attn::ModelConfig(), attn::AttentionOptions()); });
    emit articleExampleStarted();
    emit message(tr("Back to the article example."), 5000);
}

QStringList DocumentController::presets()
{
    QStringList paths;
    for (const PresetEntry& preset : presetEntries())
        paths.append(preset.path);
    return paths;
}

bool DocumentController::openPreset(const QString& path)
{
    if (!document_->maybeDiscardChanges())
        return false;
    attn::Expected<LabState> lab = readLabFile(path);
    const attn::Status loaded = lab ? document_->load(lab.value()) : attn::Status(lab.error());
    if (!loaded) {
        emit message(QString::fromStdString(loaded.error().message), 10000);
        return false;
    }
    emit message(tr("Preset: %1").arg(QString::fromStdString(lab.value().config.sentence)), 5000);
    return true;
}

attn::Status DocumentController::importMatrix(MatrixId which, const QString& path, bool transpose)
{
    const attn::Expected<attn::Matrix> m = ImportDialog::readMatrix(*session_, which, path, transpose);
    if (!m)
        return m.error();
    return applyImport(which, m.value(), path);
}

attn::Status DocumentController::applyImport(MatrixId which, const attn::Matrix& m, const QString& path)
{
    attn::Status imported = attn::okStatus();
    recorder_->recordAs(tr("Import %1 from %2").arg(matrixName(which), QFileInfo(path).fileName()),
                        [&] { imported = session_->setMatrix(which, m); });
    return imported;
}

void DocumentController::showImportDialog()
{
    ImportDialog dialog(session_, window_);
    if (dialog.exec() != QDialog::Accepted)
        return;
    // What the dialog read and checked, not a second read (a pipe is read once).
    const attn::Expected<attn::Matrix> m = dialog.matrix();
    const attn::Status imported =
        m ? applyImport(dialog.target(), m.value(), dialog.path()) : attn::Status(m.error());
    emit message(
        imported
            ? tr("Imported %1 from %2.").arg(matrixName(dialog.target()), QFileInfo(dialog.path()).fileName())
            : QString::fromStdString(imported.error().message),
        10000);
}

attn::Status DocumentController::importMhaState(const QString& dir)
{
    const int heads = session_->inputs().heads.heads;
    attn::Expected<attn::SplitHeads> split = readMhaState(dir, session_->inputs().config.dModel, heads);
    if (!split)
        return attn::Error{tr("%1: %2")
                               .arg(QFileInfo(dir).fileName(), QString::fromStdString(split.error().message))
                               .toStdString()};
    const LabState state = withSplitHeads(session_->inputs().state(), std::move(split).value());
    attn::Status imported = attn::okStatus();
    recorder_->recordAs(tr("Import nn.MultiheadAttention state from %1").arg(QFileInfo(dir).fileName()),
                        [&] { imported = session_->setState(state); });
    return imported;
}

void DocumentController::chooseMhaState()
{
    const QString dir = QFileDialog::getExistingDirectory(
        window_, tr("Import an nn.MultiheadAttention state: the folder of its .npy files"), startFolder());
    if (dir.isEmpty())
        return;
    rememberFolder(FolderUse::Open, dir);
    const attn::Status imported = importMhaState(dir);
    emit message(imported ? mhaImportedText(session_->inputs().heads.heads, session_->inputs().config.dModel,
                                            QFileInfo(dir).fileName())
                          : QString::fromStdString(imported.error().message),
                 10000);
}

QString DocumentController::startFolder() const
{
    // The open lab's folder, else the one last chosen (not the working directory).
    return document_->filePath().isEmpty() ? lastFolder(FolderUse::Open)
                                           : QFileInfo(document_->filePath()).absolutePath();
}

QString DocumentController::mhaImportedText(int heads, int dModel, const QString& folder)
{
    const int headDim = dModel / std::max(1, heads);
    return heads == 1 ? tr("Imported the module's one head (head_dim %1) from the folder “%2”.")
                            .arg(headDim)
                            .arg(folder)
                      : tr("Imported the module's %1 heads (head_dim %2 each) from the folder “%3”.")
                            .arg(heads)
                            .arg(headDim)
                            .arg(folder);
}

}  // namespace attnlab
