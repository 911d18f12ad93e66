// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The teaching of d_k in the window: lesson mode (the Lesson dock, its
// steps shown as highlighted maps, the switch to unit variance for the d_k
// experiment and its notice), the scaling demo, the d_k play button's sweep,
// and the comparison tab and lesson kept current by the rule of ViewDemand.
//
// The lesson's multi-head steps set the article's three heads (its sentence,
// seed 123, d_k 24, d_v 28; one undo step) and show the Q, K, V tab and the
// Heads tab; the last one turns W_o on. Stepping back before them, or
// leaving the lesson, puts back the lab as it was before them (one undo
// step), or, when the user changed it meanwhile, keeps that with one head.

#include "labfile.h"
#include "lessonpanel.h"

#include <QObject>

#include <functional>
#include <memory>
#include <optional>

class QDockWidget;
class QMainWindow;
class QMenu;

namespace attnlab {

class ModelPanel;
class ModelSession;
class HeadsPanel;
class ParameterPanel;
class PipelineView;
class ScalingCompareView;
class ScalingLabView;
class LessonTraining;
class TrainingView;
class Session;
class UndoRecorder;
class ViewExporter;

class LessonController : public QObject {
    Q_OBJECT
public:
    struct Views {
        PipelineView* pipeline = nullptr;
        ParameterPanel* parameters = nullptr;
        ScalingCompareView* compare = nullptr;
        ScalingLabView* lab = nullptr;
        QDockWidget* besideDock = nullptr;  // the lesson dock is a tab beside it
        TrainingView* training = nullptr;   // "why it matters for learning" runs it
        QWidget* flash = nullptr;           // the Flash tiles tab, for its step
    };
    LessonController(Session* session, UndoRecorder* recorder, Views views, QMainWindow* window);

    // The sweep's frames: the pipeline figure of `exporter`.
    void setFrameExporter(std::function<std::unique_ptr<ViewExporter>()> exporter);
    // The Heads tab, a page of the pipeline view (the multi-head steps show it).
    void setHeadsPanel(HeadsPanel* heads);
    // The opened model and its tab, for the last two steps (the cinema
    // sentence's heads; the head lab's copying heads).
    void setModel(ModelSession* model, ModelPanel* modelPage);
    void addViewActions(QMenu* view);  // Scaling demo
    // Unit-variance initialisation (an ordinary parameter change) and the
    // unscaled vs scaled tab.
    void startScalingDemo();

signals:
    void message(const QString& text, int timeout);
    // The multi-head steps focus the article's x_2.
    void focusQueryRequested(int query);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // shown: catch up

private:
    void createLessonDock();
    void createDkSweep();
    void updateScalingViews();  // on every result
    void showLessonStage(LessonPanel::Stage stage);
    void prepareLessonExperiment();  // unit variance, see LessonPanel
    void clearLessonHighlight();
    void showHeadsStage(LessonPanel::Stage stage);
    void enterLessonHeads();   // the article's three heads, the lab before them kept
    void leaveLessonHeads();   // that lab back, when the heads are still on
    void updateLessonHeads();  // the panel's numbers, on every result
    void showModelStage();
    void showHeadLabStage();
    void removeInductionHead(bool remove);  // the head-lab step's button
    void updateLessonModel();               // on every GPT-2 pass

    Session* session_;
    UndoRecorder* recorder_;
    Views views_;
    QMainWindow* window_;
    LessonPanel* lesson_ = nullptr;
    QDockWidget* lessonDock_ = nullptr;
    std::function<std::unique_ptr<ViewExporter>()> frameExporter_;
    HeadsPanel* headsPanel_ = nullptr;
    ModelSession* model_ = nullptr;
    ModelPanel* modelPage_ = nullptr;
    LessonTraining* training_ = nullptr;   // with views_.training
    bool lessonHeads_ = false;             // within the multi-head steps
    std::optional<LabState> beforeHeads_;  // the lab before them
    bool beforeSwitched_ = false;          // ... on the experiment's unit variance
};

}  // namespace attnlab
