// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Attention Lab window: lays out the views over one Session and wires
// them. The sentence and tokens sit on top, the pipeline maps in the centre,
// parameters (left), statistics (right), the focused query and the matrix
// editors (bottom) in dock widgets the user can rearrange.

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "commandline.h"
#include "lessonpanel.h"
#include "session.h"
#include "viewexporter.h"

#include <QJsonObject>
#include <QMainWindow>

#include <memory>

class QAction;
class QDockWidget;
class QMenu;
class QTableView;
class QUndoStack;

namespace attnlab {

class DkSweep;
class FocusPanel;
class LabDocument;
class UndoRecorder;
class ViewExportController;
class InputPanel;
class MatrixTableModel;
class NoticeBar;
class ParameterPanel;
class PipelineView;
class ScalingCompareView;
class ScalingLabView;
class PresentationMode;
class StatisticsPanel;
class ThemeController;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // The start state: the command line's parameters if it gave any, else the
    // parameters saved by the last run, else the article example. Restores
    // the saved window layout.
    void restoreSettings(const CommandLineOutcome& start = CommandLineOutcome());
    void saveSettings() const;

    Session* session() const { return session_; }
    PipelineView* pipelineView() const { return pipeline_; }
    FocusPanel* focusPanel() const { return focus_; }
    InputPanel* inputPanel() const { return input_; }
    // What a change did with the user's matrices (kept, grown, cut).
    NoticeBar* noticeBar() const { return notice_; }
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
    // View > Presentation mode (F11) and View > Theme.
    PresentationMode* presentationMode() const { return presentation_; }
    ThemeController* themeController() const { return theme_; }
    LessonPanel* lessonPanel() const { return lesson_; }
    QAction* lessonModeAction() const;
    QAction* scalingDemoAction() const { return scalingDemo_; }
    // The d_k play button's sweep (its frames: the pipeline figure).
    DkSweep* dkSweep() const { return sweep_; }
    // Unit-variance initialisation (an ordinary parameter change) and the
    // unscaled vs scaled tab.
    void startScalingDemo();

    // Saved labs, undo, import and export (File and Edit menus). Every change
    // of the session is an undo step (see UndoRecorder).
    QUndoStack* undoStack() const { return undoStack_; }
    UndoRecorder* undoRecorder() const { return recorder_; }
    LabDocument* document() const { return document_; }
    // What a saved lab keeps of the window: focus query, colour ranges, tab.
    QJsonObject viewState() const;
    void applyViewState(const QJsonObject& view);
    // Each asks about unsaved changes first; false when cancelled or failed
    // (the reason in the status bar).
    bool openLab(const QString& path);
    bool saveLab();
    bool saveLabAs();
    bool newLab();  // the article example as a new untitled lab
    bool openPreset(const QString& path);
    static QStringList presets();  // ":/presets/NAME.attnlab"
    // The current run as the exporters take it.
    AttentionSnapshot currentSnapshot() const;
    std::unique_ptr<ViewExporter> makeViewExporter() const;  // the window's focus and ranges
    // The format from the suffix (.png, .svg, .pdf).
    attn::Status exportView(ExportView view, const QString& path, const QSize& size, qreal scale = 1.0) const;
    // Every view as PNG, SVG and PDF into `directory`, all or nothing.
    attn::Status exportAllViews(const QString& directory, const QSize& size = QSize()) const;
    attn::Status exportNumbers(const QString& directory, const ExportFormats& formats) const;
    attn::Status importMatrix(MatrixId which, const QString& path, bool transpose);
    void copyViewToClipboard(ExportView view) const;
    // Export and copy of every view, and their right-click menus.
    ViewExportController* viewExports() const { return exports_; }
    // At start: the autosave of a run that did not close is offered back.
    void offerRecovery();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;  // Up/Down move the focus

private:
    void createDocks();
    void createExports();
    void createMenus();
    void defaultDockSizes();  // for the current window size
    void onResultChanged();
    void showFocus(int query);
    void showAbout();
    void createScalingLabViews();
    void addScalingLabActions(QMenu* view);
    void createDkSweep();
    void updateScalingViews();  // on every result
    void showLessonStage(LessonPanel::Stage stage);
    void prepareLessonExperiment();  // unit variance, see LessonPanel
    void clearLessonHighlight();
    void createUndo();
    void connectUndoGestures();
    void createFileActions(QMenu* file);
    void createEditActions(QMenu* edit);
    void startDocument(const CommandLineOutcome& start);
    void rebuildRecentMenu();
    void updateWindowTitle();
    void showExportDialog();
    void showImportDialog();
    void exportAllViewsInteractive();
    void exportNumbersInteractive();

    Session* session_;
    InputPanel* input_;
    PipelineView* pipeline_;
    ParameterPanel* parameters_;
    StatisticsPanel* statistics_;
    FocusPanel* focus_;
    NoticeBar* notice_ = nullptr;
    QList<MatrixTableModel*> matrixModels_;
    QList<QTableView*> matrixViews_;  // one per model, same order
    void updateMatrixLiveness();      // live while on screen (or the window is not)
    QAction* independentRanges_ = nullptr;
    int focusQuery_ = 1;      // the query shown
    int preferredFocus_ = 1;  // the query chosen; the article's query_2, "is"
    ScalingCompareView* compare_ = nullptr;
    ScalingLabView* lab_ = nullptr;
    LessonPanel* lesson_ = nullptr;
    QDockWidget* lessonDock_ = nullptr;
    PresentationMode* presentation_ = nullptr;
    ThemeController* theme_ = nullptr;
    QAction* scalingDemo_ = nullptr;
    DkSweep* sweep_ = nullptr;
    QUndoStack* undoStack_ = nullptr;
    UndoRecorder* recorder_ = nullptr;
    LabDocument* document_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    ViewExportController* exports_ = nullptr;
};

}  // namespace attnlab
