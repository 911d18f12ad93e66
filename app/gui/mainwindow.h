#pragma once
// The Attention Lab window: lays out the views over one Session and wires
// them. The sentence and tokens sit on top, the pipeline maps in the centre,
// parameters (left), statistics (right), the focused query and the matrix
// editors (bottom) in dock widgets the user can rearrange.

#include "commandline.h"
#include "lessonpanel.h"
#include "session.h"

#include <QMainWindow>

class QAction;
class QDockWidget;
class QMenu;
class QTableView;

namespace attnlab {

class FocusPanel;
class InputPanel;
class MatrixTableModel;
class ParameterPanel;
class PipelineView;
class ScalingCompareView;
class ScalingLabView;
class StatisticsPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    // The start state: the command line's parameters if it gave any, else the
    // parameters saved by the last run, else the article example. Restores
    // the saved window layout.
    void restoreSettings(const CommandLineOutcome& start = CommandLineOutcome());
    void saveSettings() const;

    Session* session() const { return session_; }
    PipelineView* pipelineView() const { return pipeline_; }
    FocusPanel* focusPanel() const { return focus_; }
    InputPanel* inputPanel() const { return input_; }
    MatrixTableModel* matrixModel(MatrixId which) const;

    int focusQuery() const { return focusQuery_; }
    // Clamped to the tokens. The choice is kept while the sentence is too
    // short for it (e.g. while typing) and shown again once it fits.
    void setFocusQuery(int query);
    void resetToArticleExample();

    // The d_k lab: the unscaled vs scaled tab, the lab plots' tab, lesson
    // mode (a dock, View > Lesson mode) and the scaling demo.
    ParameterPanel* parameterPanel() const { return parameters_; }
    ScalingCompareView* scalingCompareView() const { return compare_; }
    ScalingLabView* scalingLabView() const { return lab_; }
    LessonPanel* lessonPanel() const { return lesson_; }
    QAction* lessonModeAction() const;
    QAction* scalingDemoAction() const { return scalingDemo_; }
    // Unit-variance initialisation (an ordinary parameter change) and the
    // unscaled vs scaled tab.
    void startScalingDemo();

protected:
    void closeEvent(QCloseEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;  // Up/Down move the focus

private:
    void createDocks();
    void createMenus();
    void defaultDockSizes();  // for the current window size
    void onResultChanged();
    void showFocus(int query);
    void showAbout();
    void createScalingLabViews();
    void addScalingLabActions(QMenu* view);
    void updateScalingViews();  // on every result
    void showLessonStage(LessonPanel::Stage stage);
    void clearLessonHighlight();

    Session* session_;
    InputPanel* input_;
    PipelineView* pipeline_;
    ParameterPanel* parameters_;
    StatisticsPanel* statistics_;
    FocusPanel* focus_;
    QList<MatrixTableModel*> matrixModels_;
    QAction* independentRanges_ = nullptr;
    int focusQuery_ = 1;      // the query shown
    int preferredFocus_ = 1;  // the query chosen; the article's query_2, "is"
    ScalingCompareView* compare_ = nullptr;
    ScalingLabView* lab_ = nullptr;
    LessonPanel* lesson_ = nullptr;
    QDockWidget* lessonDock_ = nullptr;
    QAction* scalingDemo_ = nullptr;
};

}  // namespace attnlab
