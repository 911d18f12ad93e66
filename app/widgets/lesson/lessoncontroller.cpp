// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessoncontroller.h"

#include "cinemalesson.h"
#include "copylesson.h"
#include "dksweep.h"
#include "dksweepbutton.h"
#include "dksweepframes.h"
#include "dksweepsource.h"
#include "modelsession.h"
#include "headlabpanel.h"
#include "modelpanel.h"
#include "headspanel.h"
#include "heatmapview.h"
#include "lessontraining.h"
#include "parameterpanel.h"
#include "pipelineview.h"
#include "scalingcompareview.h"
#include "scalinglabview.h"
#include "score_histogram.h"
#include "session.h"
#include "trainingview.h"
#include "undorecorder.h"
#include "viewdemand.h"
#include "viewexporter.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QEvent>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>

namespace attnlab {

LessonController::LessonController(Session* session, UndoRecorder* recorder, Views views, QMainWindow* window)
    : QObject(window), session_(session), recorder_(recorder), views_(views), window_(window)
{
    createLessonDock();
    connect(views_.parameters, &ParameterPanel::scalingDemoRequested, this,
            &LessonController::startScalingDemo);
    connect(session_, &Session::resultChanged, this, &LessonController::updateScalingViews);
    connect(session_, &Session::resultChanged, this, &LessonController::updateLessonHeads);
    views_.compare->installEventFilter(this);
    lesson_->installEventFilter(this);
    createDkSweep();
    updateScalingViews();
    if (views_.training) {
        training_ = new LessonTraining(views_.training, this);
        connect(training_, &LessonTraining::progress, lesson_, &LessonPanel::setLearningText);
        connect(training_, &LessonTraining::finished, lesson_, &LessonPanel::setLearningText);
        connect(lessonDock_, &QDockWidget::visibilityChanged, training_, [this](bool visible) {
            if (!visible && !lessonDock_->isVisible())
                training_->stop();
        });
    }
}

void LessonController::createLessonDock()
{
    lesson_ = new LessonPanel;
    lesson_->setObjectName(QStringLiteral("lessonPanel"));
    lessonDock_ = new QDockWidget(tr("Lesson"), window_);
    lessonDock_->setObjectName(QStringLiteral("lessonDock"));
    lessonDock_->setWidget(lesson_);
    // Below the maps, which need the window's width, as a tab beside the
    // focused query; raised when opened.
    window_->addDockWidget(Qt::BottomDockWidgetArea, lessonDock_);
    window_->tabifyDockWidget(views_.besideDock, lessonDock_);
    lessonDock_->hide();
    views_.besideDock->raise();
    QAction* lessonMode = lessonDock_->toggleViewAction();
    lessonMode->setObjectName(QStringLiteral("lessonModeAction"));
    lessonMode->setText(tr("&Lesson mode"));
    lessonMode->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    lessonMode->setStatusTip(
        tr("A guided walk through softmax(Q Kᵀ / √d_k) V, one highlighted "
           "map at a time, ending with an experiment on d_k."));
    // The action follows the dock's visibility, however it is opened or closed.
    connect(lessonMode, &QAction::toggled, this, [this](bool open) {
        if (open) {
            // Once the dock area has taken it back into its tabs.
            QMetaObject::invokeMethod(lessonDock_, &QWidget::raise, Qt::QueuedConnection);
            lesson_->restart();
        } else {
            clearLessonHighlight();
            leaveLessonHeads();
        }
    });
    connect(lesson_, &LessonPanel::stepChanged, this,
            [this](int, LessonPanel::Stage stage) { showLessonStage(stage); });
    connect(lesson_, &LessonPanel::headRequested, session_, &Session::selectHead);
    connect(lesson_, &LessonPanel::finished, lessonDock_, &QDockWidget::close);
    connect(session_, &Session::parametersChanged, lesson_,
            [this] { lesson_->setInitMode(session_->inputs().config.init); });
    lesson_->setInitMode(session_->inputs().config.init);
}

void LessonController::createDkSweep()
{
    auto* sweep = new DkSweep(session_, this);
    sweep->setObjectName(QStringLiteral("dkSweep"));
    // Each recording draws its frames from a lab of its own, a copy of this
    // one as the recording starts, stepped to each frame's d_k; the frames
    // look as the window's exports do (focus, colour ranges, weights scale).
    sweep->setFrameSource([this]() -> DkSweep::FrameMaker {
        const std::unique_ptr<ViewExporter> exporter = frameExporter_();
        DkSweepFrameStyle style;
        style.focusRow = exporter->focusQuery();
        style.options = exporter->options();
        style.weightsScale = exporter->weightsScaleMode();
        auto source = std::make_shared<DkSweepSource>(session_->inputs().state());
        return [source, style](int dK, int step, int steps, const QSize& size) {
            return dkSweepFramePng(*source, dK, step, steps, size.isEmpty() ? dkSweepFrameSize() : size,
                                   style);
        };
    });
    // The whole sweep is one undo step.
    connect(sweep, &DkSweep::started, recorder_, &UndoRecorder::beginGesture);
    connect(sweep, &DkSweep::finished, recorder_, &UndoRecorder::endGesture);
    auto* play = new DkSweepButton(sweep, views_.parameters);
    connect(play, &DkSweepButton::message, this, [this](const QString& text) { emit message(text, 10000); });
    views_.parameters->addDkControl(play);
}

void LessonController::setFrameExporter(std::function<std::unique_ptr<ViewExporter>()> exporter)
{
    frameExporter_ = std::move(exporter);
}

void LessonController::setHeadsPanel(HeadsPanel* heads)
{
    headsPanel_ = heads;
}

void LessonController::setModel(ModelSession* model, ModelPanel* modelPage)
{
    model_ = model;
    modelPage_ = modelPage;
    connect(model_, &ModelSession::modelOpened, this, [this] {
        updateLessonModel();
        // Opened during the step (the demo model is read when its tab is
        // first shown): the step's sentence to it.
        if (lessonDock_->isVisible() && lesson_->stage() == LessonPanel::Stage::ModelHeads)
            showModelStage();
        if (lessonDock_->isVisible() && lesson_->stage() == LessonPanel::Stage::HeadLab)
            showHeadLabStage();
    });
    connect(lesson_, &LessonPanel::inductionRemovalRequested, this, &LessonController::removeInductionHead);
    connect(model_, &ModelSession::resultChanged, this, &LessonController::updateLessonModel);
    updateLessonModel();
}

void LessonController::addViewActions(QMenu* view)
{
    QAction* scalingDemo = view->addAction(tr("Scaling &demo"), this, &LessonController::startScalingDemo);
    scalingDemo->setObjectName(QStringLiteral("scalingDemoAction"));
    scalingDemo->setStatusTip(views_.parameters->scalingDemoButton()->toolTip());
}

bool LessonController::eventFilter(QObject* watched, QEvent* event)
{
    if ((watched == views_.compare || watched == lesson_) && event->type() == QEvent::Show) {
        updateScalingViews();  // brought on screen: catch up with the results it skipped
        if (watched == lesson_)
            updateLessonHeads();
    }
    return QObject::eventFilter(watched, event);
}

void LessonController::updateScalingViews()
{
    if (!session_->published()->computed())
        return;
    views_.lab->setCurrentDk(session_->published()->dK());
    views_.compare->setInitMode(session_->inputs().config.init);
    // The comparison is the core's (two more n x n softmaxes, computed by
    // the session with the result, off the GUI thread when large); the views
    // only draw it.
    const ViewDemand::Comparison demand =
        ViewDemand::comparison(window_->isVisible(), session_->published()->tokenCount(),
                               views_.compare->isVisible(), lessonDock_->isVisible());
    session_->setComparisonWanted(demand.computeWithResult);
    if (!demand.updateCompareView && !demand.updateLesson)
        return;
    const std::shared_ptr<const attn::ScalingComparison> comparison = session_->published()->comparison();
    if (demand.updateCompareView && views_.compare->comparisonPointer() != comparison) {
        views_.compare->setData(comparison, session_->published()->labels());
        // Sampled above attn::kScoreHistogramMaxPairs: about a millisecond.
        views_.compare->setHistogram(attn::scoreHistogram(*session_->published()->shown()));
    }
    if (demand.updateLesson)
        lesson_->setLiveComparison(*comparison);
}

void LessonController::startScalingDemo()
{
    session_->setInit(attn::InitMode::UnitVariance);
    views_.pipeline->showPage(views_.compare);
    emit message(tr("Unit-variance initialisation: q and k entries have variance "
                    "about 1. Move d_k and compare the two softmax maps."),
                 10000);
}

void LessonController::showLessonStage(LessonPanel::Stage stage)
{
    using Stage = LessonPanel::Stage;
    PipelineView* pipeline = views_.pipeline;
    views_.parameters->setDkHighlighted(stage == Stage::DkExperiment);
    if (training_ && stage != Stage::LearningMatters)
        training_->stop();
    if (LessonPanel::isMultiHead(stage)) {
        showHeadsStage(stage);
        return;
    }
    leaveLessonHeads();
    switch (stage) {
    case Stage::Scores: pipeline->setHighlightedMap(pipeline->rawScoresMap()); break;
    case Stage::Scale: pipeline->setHighlightedMap(pipeline->scaledScoresMap()); break;
    case Stage::Softmax: pipeline->setHighlightedMap(pipeline->weightsMap()); break;
    case Stage::Context: pipeline->setHighlightedMap(pipeline->contextMap()); break;
    case Stage::DkExperiment:
        prepareLessonExperiment();
        pipeline->setHighlightedMap(nullptr);
        pipeline->showPage(views_.compare);
        views_.parameters->dKSlider()->setFocus(Qt::OtherFocusReason);
        break;
    case Stage::FlashTiles:
        pipeline->setHighlightedMap(nullptr);
        if (views_.flash)
            pipeline->showPage(views_.flash);
        break;
    case Stage::ModelHeads:
        pipeline->setHighlightedMap(nullptr);
        showModelStage();
        break;
    case Stage::HeadLab:
        pipeline->setHighlightedMap(nullptr);
        showHeadLabStage();
        break;
    case Stage::LearningMatters:
        pipeline->setHighlightedMap(nullptr);
        if (training_) {
            pipeline->showPage(views_.training);
            training_->run();
        }
        break;
    default: break;
    }
}

void LessonController::showModelStage()
{
    updateLessonModel();
    if (!model_ || !model_->hasModel())
        return;
    const QString sentence = CinemaLesson::sentence();
    if (QString::fromStdString(session_->inputs().config.sentence) != sentence)
        recorder_->recordAs(tr("The lesson's sentence for the model"),
                            [this, &sentence] { session_->setSentence(sentence); });
    if (modelPage_)
        views_.pipeline->showPage(modelPage_);
}

void LessonController::showHeadLabStage()
{
    updateLessonModel();
    if (modelPage_)
        views_.pipeline->showPage(modelPage_);  // reads the demo model when none is open
    if (!model_ || !model_->hasModel())
        return;
    const QString sentence = CopyLesson::sentence();
    if (QString::fromStdString(session_->inputs().config.sentence) != sentence)
        recorder_->recordAs(tr("The head lab's sentence for the lesson"),
                            [this, &sentence] { session_->setSentence(sentence); });
    if (model_->probe())
        model_->setProbe(std::nullopt);  // the scores of the sentence, not of the probe
    if (modelPage_)
        modelPage_->headLab()->showScorePage(attn::HeadScoreKind::Induction);
}

void LessonController::removeInductionHead(bool remove)
{
    if (!model_ || !model_->hasModel())
        return;
    const CopyLesson lesson(*model_);
    attn::Status status = attn::okStatus();
    if (!remove)
        status = model_->setAblation({}, attn::HeadAblation::Zero);
    else if (lesson.inductionHead())
        status = model_->setAblation({lesson.inductionHead()->index}, attn::HeadAblation::Zero);
    if (!status)
        emit message(QString::fromStdString(status.error().message), 10000);
}

void LessonController::updateLessonModel()
{
    if (!model_)
        return;
    const std::shared_ptr<const ModelFolder> folder = model_->model();
    // A model that says what it is (the demo model's label) is not a
    // language model: its heads say nothing about the cinema sentence.
    if (folder && !folder->label.isEmpty())
        lesson_->setLiveModel(true, tr("The model open is %1 (%2): it copies and does not predict words, "
                                       "so its weights on “cinema” and “watch” mean nothing. Open a GPT-2 "
                                       "folder with File > Open model… to see a trained model's heads; "
                                       "the next step is made for the demo model.")
                                        .arg(QFileInfo(folder->folder).fileName(), folder->label));
    else
        lesson_->setLiveModel(model_->hasModel(), CinemaLesson(*model_).lessonText());
    const CopyLesson copy(*model_);
    lesson_->setLiveCopy(copy.lessonText(), copy.inductionHead().has_value(),
                         !model_->ablatedHeads().empty());
}

void LessonController::showHeadsStage(LessonPanel::Stage stage)
{
    using Stage = LessonPanel::Stage;
    enterLessonHeads();
    PipelineView* pipeline = views_.pipeline;
    switch (stage) {
    case Stage::HeadQueries: pipeline->setHighlightedMap(pipeline->queryMap()); break;
    case Stage::HeadKeysValues: pipeline->setHighlightedMap(pipeline->keyMap()); break;
    case Stage::HeadsAttend:
        pipeline->setHighlightedMap(nullptr);
        if (headsPanel_) {
            headsPanel_->setKind(HeadMapKind::Weights);
            pipeline->showPage(headsPanel_);
        }
        break;
    case Stage::HeadsConcat:
        pipeline->setHighlightedMap(nullptr);
        if (!session_->inputs().heads.outputProjection)
            recorder_->recordAs(tr("Output projection W_o for the lesson"),
                                [this] { session_->setOutputProjection(true); });
        if (headsPanel_) {
            pipeline->showPage(headsPanel_);
            // The output map below the concatenation, once laid out.
            QMetaObject::invokeMethod(
                this,
                [this] {
                    // The page takes its new height on its layout request.
                    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
                    for (QWidget* w = headsPanel_->parentWidget(); w; w = w->parentWidget())
                        if (auto* scroll = qobject_cast<QScrollArea*>(w)) {
                            scroll->ensureWidgetVisible(headsPanel_->outputView(), 0, 0);
                            break;
                        }
                },
                Qt::QueuedConnection);
        }
        break;
    default: break;
    }
    updateLessonHeads();
}

void LessonController::enterLessonHeads()
{
    // Already on (the user's own changes of the heads kept), or set again
    // after an undo took them away.
    if (lessonHeads_ && session_->inputs().heads.multiHead())
        return;
    if (!lessonHeads_) {
        beforeHeads_.reset();
        if (session_->problem().isEmpty())
            beforeHeads_ = session_->inputs().state();
        beforeSwitched_ = lesson_->initSwitched();
    }
    lessonHeads_ = true;
    // The article's multi-head section: its sentence, seed 123, d_k 24 and
    // d_v 28 (the defaults), three independent heads drawn after W_value.
    attn::HeadsConfig heads;
    heads.heads = 3;
    recorder_->recordAs(tr("Three heads for the lesson"), [this, heads] {
        session_->setParameters(attn::ModelConfig(), attn::AttentionOptions(), heads);
    });
    emit focusQueryRequested(LessonPanel::kArticleQuery);
    emit message(tr("The lesson set three heads on the article's sentence (seed 123); "
                    "Edit > Undo goes back."),
                 10000);
}

namespace {

// The lab is still the article's as the lesson set it (heads aside): going
// back to the lab from before loses nothing of the user's.
bool stillTheLessonsLab(const Session& session)
{
    const attn::AttentionOptions& o = session.inputs().options;
    const attn::AttentionOptions d;
    return session.inputs().config == attn::ModelConfig() && o.scale == d.scale && o.causal == d.causal
           && o.mask == d.mask && session.inputs().editedCells == 0
           && session.inputs().heads.layout == attn::HeadLayout::Independent;
}

}  // namespace

void LessonController::leaveLessonHeads()
{
    if (!lessonHeads_)
        return;
    lessonHeads_ = false;
    const std::optional<LabState> before = std::move(beforeHeads_);
    beforeHeads_.reset();
    if (!session_->inputs().heads.multiHead())
        return;  // one head already (the user's choice, or an undo)
    // The lab from before the heads; after changes of the user's own (a
    // sentence, an edited cell, an opened lab), those kept with one head.
    const bool whole = before && stillTheLessonsLab(*session_);
    recorder_->recordAs(tr("One head again after the lesson's heads"), [this, whole, &before] {
        if (!whole || !session_->setState(*before))
            session_->setHeadsConfig(attn::HeadsConfig());
    });
    if (whole && beforeSwitched_ && session_->inputs().config.init == attn::InitMode::UnitVariance)
        lesson_->noteInitSwitched();
    emit message(tr("Back to one head, as before the lesson's multi-head steps; Edit > Undo "
                    "brings the heads back."),
                 10000);
}

void LessonController::updateLessonHeads()
{
    if (!lessonDock_->isVisible() && !lessonHeads_) {
        // Caught up when shown (eventFilter); no result kept alive meanwhile.
        if (lesson_->heads())
            lesson_->setLiveHeads(nullptr, QStringList(), 0, 0);
        return;
    }
    lesson_->setLiveHeads(session_->published()->heads(), session_->published()->labels(),
                          session_->inputs().config.dModel, session_->inputs().selectedHead);
}

void LessonController::prepareLessonExperiment()
{
    lesson_->noteBorrowedReleased(QString());
    // The experiment's statements need unit-variance q and k. A GPT-2 head
    // shown in the pipeline has q and k of its own spread (a tiny
    // checkpoint's: score variance 31.4 raw, 7.84 scaled at d_k 4): the lab's
    // own unit-variance matrices take its place (one undo step).
    if (session_->inputs().borrowed.active()) {
        const QString head = tr("GPT-2 layer %1, head %2")
                                 .arg(session_->inputs().borrowed.layer + 1)
                                 .arg(session_->inputs().borrowed.head + 1);
        // One undo step: the head let go, then unit variance if the lab's
        // own parameters had another initialisation.
        const QString step = tr("The lab's own matrices for the lesson's experiment");
        recorder_->beginGesture();
        recorder_->recordAs(step, [this] { session_->releaseBorrowed(); });
        if (session_->inputs().config.init != attn::InitMode::UnitVariance)
            recorder_->recordAs(step, [this] { session_->setInit(attn::InitMode::UnitVariance); });
        recorder_->endGesture();
        if (!session_->inputs().borrowed.active()
            && session_->inputs().config.init == attn::InitMode::UnitVariance) {
            lesson_->setInitMode(attn::InitMode::UnitVariance);
            lesson_->noteBorrowedReleased(head);
            emit message(tr("The lesson's experiment runs on the lab's own unit-variance matrices in place "
                            "of %1; Edit > Undo brings the head back.")
                             .arg(head),
                         10000);
        }
        return;
    }
    // Drawn matrices are redrawn so (one undo step); the user's own are kept,
    // and the panel says which of the two happened.
    if (session_->inputs().config.init == attn::InitMode::UnitVariance || session_->inputs().editedCells > 0)
        return;
    recorder_->recordAs(tr("Unit-variance initialisation for the lesson"),
                        [this] { session_->setInit(attn::InitMode::UnitVariance); });
    if (session_->inputs().config.init == attn::InitMode::UnitVariance)
        lesson_->noteInitSwitched();
}

void LessonController::clearLessonHighlight()
{
    views_.pipeline->setHighlightedMap(nullptr);
    views_.parameters->setDkHighlighted(false);
}

}  // namespace attnlab
