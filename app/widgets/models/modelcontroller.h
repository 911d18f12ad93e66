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
// Until the user opens a folder, the Model tab's model is the demo model
// (demomodel.h): read the first time the Model or Head view tab is shown
// with no model open, without bringing the tab forward; when it is missing,
// the Model tab's message line says where it was looked for.

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
class ModelViewState;
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
    // The demo model, read unless the user has opened a model (and tried
    // once: a missing or unreadable demo is told once, not at every show).
    void openDemoModel();
    // Head (layer, head) of the model's pass into the lab session; a refusal
    // goes to the Model tab's message line. `showPipeline` makes the
    // pipeline's tab current.
    bool showHead(int layer, int head, bool showPipeline);

    // The head lab's ablation as part of the lab (AblationUndo): each
    // change one step on `stack`, saved in the lab's view object; the open
    // model and its what-ifs too (ModelViewState), reopened with the lab.
    void setUndoStack(QUndoStack* stack);
    void saveView(QJsonObject* view) const;
    void loadView(const QJsonObject& view);

signals:
    void message(const QString& text, int timeout);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

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
    bool userModel_ = false;    // the user (or --model) chose a model
    bool demoTried_ = false;    // the demo was looked for once
    bool demoOpening_ = false;  // the read in flight is the demo's
    bool labOpening_ = false;   // the read in flight is a lab's model
    AblationUndo* ablation_ = nullptr;
    ModelViewState* saved_ = nullptr;
};

}  // namespace attnlab
