// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelcontroller.h"
#include "session.h"

#include "demomodel.h"
#include "ablationundo.h"
#include "modelheadstate.h"
#include "heatmapview.h"
#include "modelfamilies.h"
#include "modelsession.h"
#include "modelviewstate.h"
#include "headlinesview.h"
#include "lenspanel.h"
#include "modelexports.h"
#include "modelfollower.h"
#include "modelgridview.h"
#include "modelpanel.h"
#include "rotarypanel.h"
#include "pipelineview.h"
#include "lastfolder.h"

#include <QAction>
#include <QEvent>
#include <QJsonObject>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QProgressBar>
#include <QStatusBar>

#include <utility>

namespace attnlab {

ModelController::ModelController(QMainWindow* window, PipelineView* pipeline, Session* session)
    : QObject(window), window_(window), pipeline_(pipeline), session_(new ModelSession(this)), lab_(session)
{
    panel_ = new ModelPanel(session_);
    panel_->setObjectName(QStringLiteral("modelPanel"));
    pipeline_->addPage(panel_, tr("Model"));
    lines_ = new HeadLinesView;
    lines_->setObjectName(QStringLiteral("modelHeadLines"));
    pipeline_->addPage(lines_, tr("Head view"));
    connect(session_, &ModelSession::resultChanged, lines_, [this] {
        QStringList labels;
        for (const ModelToken& t : session_->resultTokens())
            labels << t.display;
        lines_->setResult(session_->result(), labels);
        lines_->setLayer(session_->selectedLayer());
    });
    connect(session_, &ModelSession::selectionChanged, lines_,
            [this](int layer, int) { lines_->setLayer(layer); });
    ModelExports::Views exported;
    exported.grid = panel_->grid();
    exported.lines = lines_;
    exported.next = panel_->nextTokenView();
    exported.rotary = panel_->rotaryPanel()->view();
    exported.rollout = panel_->lensPanel()->rolloutView();
    exported.difference = panel_->lensPanel()->differenceView();
    exported.readings = panel_->readings();
    exported.comparison = panel_->comparison();
    exports_ = new ModelExports(session_, exported, window_);

    progress_ = new QProgressBar(window_);
    progress_->setObjectName(QStringLiteral("modelProgress"));
    progress_->setMaximumWidth(160);
    progress_->setAccessibleName(tr("Reading the model"));
    // No taller than a line of the status bar's text: the maps' rows at
    // 1024 x 700 have no pixel to spare (tst_screens).
    progress_->setMaximumHeight(window_->statusBar()->fontMetrics().height());
    progress_->setTextVisible(false);
    window_->statusBar()->addPermanentWidget(progress_);
    progress_->hide();

    connect(session_, &ModelSession::loadProgress, this, [this](int step, int steps, const QString& what) {
        // The readers report per folder, not per byte: a busy bar until done.
        progress_->setRange(0, step < steps ? 0 : steps);
        progress_->setValue(step);
        progress_->setVisible(step < steps);
        emit message(what, step < steps ? 0 : 5000);
    });
    connect(session_, &ModelSession::loadFailed, this, [this](const QString& text) {
        progress_->hide();
        if (demoOpening_) {
            demoOpening_ = false;
            panel_->showMessage(tr("The demo model was not opened: %1").arg(text));
            return;
        }
        if (std::exchange(labOpening_, false))
            return;  // ModelViewState says it on the Model tab's message line
        emit message(tr("The model was not opened: %1").arg(text), 15000);
    });
    connect(session_, &ModelSession::modelOpened, this, [this] {
        // The demo and a lab's model stand in quietly (the lab's view says
        // which tab is in front); a model the user opened comes forward.
        const bool lab = std::exchange(labOpening_, false);
        if (!std::exchange(demoOpening_, false) && !lab)
            pipeline_->showPage(panel_);
    });
    panel_->installEventFilter(this);
    lines_->installEventFilter(this);
    follower_ = new ModelFollower(session_, lab_, this);
    connect(panel_->grid(), &ModelGridView::headShown, this,
            [this](int layer, int head) { showHead(layer, head, false); });
    connect(panel_, &ModelPanel::showInPipeline, this,
            [this] { showHead(session_->selectedLayer(), session_->selectedHead(), true); });
}

bool ModelController::showHead(int layer, int head, bool showPipeline)
{
    const attn::Expected<LabState> state = modelHeadState(*session_, layer, head, *lab_);
    const attn::Status set = state ? lab_->setState(*state) : attn::Status(state.error());
    if (!set) {
        panel_->showMessage(QString::fromStdString(set.error().message));
        return false;
    }
    panel_->showMessage(QString());
    if (showPipeline)
        pipeline_->showPage(pipeline_->rawScoresMap());
    else
        emit message(tr("%1 layer %2, head %3 is in the pipeline, the focus panel and the Q/K/V tab.")
                         .arg(session_->model()->familyName)
                         .arg(layer + 1)
                         .arg(head + 1),
                     5000);
    return true;
}

void ModelController::addFileActions(QMenu* file)
{
    QAction* open = file->addAction(tr("Open mo&del…"), this, &ModelController::chooseModel);
    open->setObjectName(QStringLiteral("openModelAction"));
    open->setStatusTip(
        tr("Read a Hugging Face model folder (config.json, its weights and tokenizer; families: %1) "
           "and show its attention for the sentence.")
            .arg(supportedFamilyNames()));
}

void ModelController::chooseModel()
{
    const QString folder = QFileDialog::getExistingDirectory(
        window_, tr("Open a model folder"),
        session_->modelFolder().isEmpty() ? lastFolder(FolderUse::Open) : session_->modelFolder());
    rememberFile(FolderUse::Open, folder);  // its parent: where the next one is looked for
    if (!folder.isEmpty())
        openModel(folder);
}

void ModelController::openModel(const QString& folder)
{
    userModel_ = true;
    demoOpening_ = false;
    labOpening_ = false;
    session_->openModel(folder);
}

void ModelController::showModel(std::shared_ptr<const ModelFolder> model)
{
    userModel_ = true;
    demoOpening_ = false;
    labOpening_ = false;
    session_->adoptModel(std::move(model));
}

void ModelController::openDemoModel()
{
    if (userModel_ || demoTried_ || session_->hasModel() || session_->isLoading())
        return;
    demoTried_ = true;
    const attn::Expected<QString> folder = demoModelFolder();
    if (!folder) {
        QString why = QString::fromStdString(folder.error().message);
        why[0] = why[0].toUpper();
        panel_->showMessage(tr("%1: File > Open model… reads a model folder.").arg(why));
        return;
    }
    demoOpening_ = true;
    session_->openModel(folder.value());
}

bool ModelController::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Show && (watched == panel_ || watched == lines_))
        openDemoModel();
    return QObject::eventFilter(watched, event);
}

void ModelController::setUndoStack(QUndoStack* stack)
{
    delete saved_;
    delete ablation_;
    ablation_ = new AblationUndo(session_, stack, this);
    connect(ablation_, &AblationUndo::message, panel_, &ModelPanel::showMessage);
    // After AblationUndo: on modelOpened the what-ifs are set before the ablation.
    saved_ = new ModelViewState(session_, ablation_, this);
    connect(saved_, &ModelViewState::message, panel_, &ModelPanel::showMessage);
    connect(saved_, &ModelViewState::restored, panel_, &ModelPanel::syncWhatIfs);
    connect(saved_, &ModelViewState::openingModel, this, [this] {
        userModel_ = true;
        demoOpening_ = false;
        labOpening_ = true;
    });
}

void ModelController::saveView(QJsonObject* view) const
{
    if (saved_)
        saved_->saveTo(view);
}

void ModelController::loadView(const QJsonObject& view)
{
    if (saved_)
        saved_->loadFrom(view);
}

}  // namespace attnlab
