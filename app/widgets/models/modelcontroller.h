// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's model part: File > Open model… (a folder dialog), the
// loading progress in the status bar, the "Model" tab (ModelPanel) and the
// "Head view" tab (HeadLinesView, the selected layer) over one ModelSession, and the window's sentence field
// feeding that session as it is typed. A tile clicked (or Enter on it) or
// the Model tab's "Show … in the pipeline" button makes that head the lab
// session's (modelHeadState: one undo step); while it is shown, every new
// pass of the model (a new sentence, a what-if divisor) shows the same
// layer and head of it, unless the user has edited its cells.

#include "modelfolder.h"

#include <QObject>
#include <QString>

#include <memory>

class QJsonObject;
class QMainWindow;
class QUndoStack;
class QMenu;
class QProgressBar;

namespace attnlab {

class AblationUndo;
class ModelSession;
class HeadLinesView;
class ModelExports;
class ModelFollower;
class ModelPanel;
class PipelineView;

class Session;

class ModelController : public QObject {
    Q_OBJECT
public:
    // The model follows `session`'s sentence and the borrowed head follows
    // the model's passes (ModelFollower).
    ModelController(QMainWindow* window, PipelineView* pipeline, Session* session);

    ModelSession* session() const { return session_; }
    ModelPanel* panel() const { return panel_; }
    // The three views' pictures and model_attention.json (ExportActions registers them).
    ModelExports* exports() const { return exports_; }

    void addFileActions(QMenu* file);
    // Starts reading `folder`; the Model tab is shown once it is open.
    void openModel(const QString& folder);
    // A folder the command line has read already.
    void showModel(std::shared_ptr<const ModelFolder> model);
    void chooseModel();
    // Head (layer, head) of the model's pass into the lab session; a refusal
    // goes to the Model tab's message line. `showPipeline` makes the
    // pipeline's tab current.
    bool showHead(int layer, int head, bool showPipeline);

    // The head lab's ablation as part of the lab (AblationUndo): each
    // change one step on `stack`, saved in the lab's view object.
    void setUndoStack(QUndoStack* stack);
    void saveView(QJsonObject* view) const;
    void loadView(const QJsonObject& view);

signals:
    void message(const QString& text, int timeout);

private:
    QMainWindow* window_;
    PipelineView* pipeline_;
    ModelSession* session_;
    Session* lab_;
    ModelFollower* follower_;
    ModelPanel* panel_;
    HeadLinesView* lines_;
    QProgressBar* progress_;
    ModelExports* exports_;
    AblationUndo* ablation_ = nullptr;
};

}  // namespace attnlab
