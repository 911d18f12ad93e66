// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Attention Lab window: lays out the views over one Session and wires
// them. The sentence and tokens sit on top, the pipeline maps in the centre,
// parameters (left), statistics (right), the focused query and the matrix
// editors (bottom) in dock widgets the user can rearrange. The work is the
// controllers': DocumentController (labs, undo, import), LessonController
// (lesson, scaling demo, d_k sweep), ExportActions (exports) and
// WindowSettings (what is kept between runs).

#include "session.h"
#include "windowsettings.h"
#include "windowstart.h"

#include <QJsonObject>
#include <QMainWindow>

class QAction;

namespace attnlab {

class DocumentController;
class ExportActions;
class LabDocksAway;
class LessonController;
class MatrixEditors;
class ModelController;
class FocusPanel;
class InputPanel;
class HeadsPanel;
class NoticeBar;
class ParameterPanel;
class PipelineView;
class ScalingCompareView;
class ScalingLabView;
class TrainingView;
class PresentationMode;
class ScreenFit;
class StatisticsPanel;
class ThemeController;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // The start state: the command line's parameters if it gave any, else the
    // parameters saved by the last run, else the article example. Restores
    // the saved window layout; once shown, the window's frame is fitted to
    // the screen (ScreenFit) unless the window is resized before.
    void restoreSettings(const WindowStart& start = WindowStart());
    void saveSettings() const;

    Session* session() const { return session_; }

    int focusQuery() const { return focusQuery_; }
    // Clamped to the tokens. The choice is kept while the sentence is too
    // short for it (e.g. while typing) and shown again once it fits.
    void setFocusQuery(int query);

    // View > Presentation mode (F11) and View > Theme.
    PresentationMode* presentationMode() const { return presentation_; }
    ThemeController* themeController() const { return theme_; }
    // The window's work, by controller: saved labs, undo and import (File
    // and Edit menus; every change of the session is an undo step, see
    // UndoRecorder), lesson mode, the scaling demo and the d_k sweep, and
    // the export and copy of every view.
    DocumentController* documents() const { return documents_; }
    LessonController* lessons() const { return lessons_; }
    ExportActions* exports() const { return exports_; }
    // What a saved lab keeps of the window: focus query, colour ranges, tab.
    QJsonObject viewState() const;
    void applyViewState(const QJsonObject& view);
    // File > Open model… and the Model tab (a GPT-2 checkpoint's heads).
    ModelController* models() const { return models_; }
    // At start: the autosave of a run that did not close is offered back.
    void offerRecovery();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;  // Up/Down move the focus

private:
    void createDocks();
    void createScalingLabViews();
    void createHeadsView();
    void createMenus();
    void createViewMenu();
    void onResultChanged();
    void showFocus(int query);
    void showAbout();
    void showMessage(const QString& text, int timeout) const;
    WindowSettings settings() const;

    Session* session_;
    InputPanel* input_;
    PipelineView* pipeline_;
    ParameterPanel* parameters_;
    StatisticsPanel* statistics_ = nullptr;
    FocusPanel* focus_ = nullptr;
    NoticeBar* notice_ = nullptr;
    MatrixEditors* matrices_ = nullptr;
    ScalingCompareView* compare_ = nullptr;
    ScalingLabView* lab_ = nullptr;
    TrainingView* training_ = nullptr;
    HeadsPanel* heads_ = nullptr;
    PresentationMode* presentation_ = nullptr;
    LabDocksAway* docksAway_ = nullptr;
    ScreenFit* screenFit_ = nullptr;
    ThemeController* theme_ = nullptr;
    DocumentController* documents_ = nullptr;
    LessonController* lessons_ = nullptr;
    ExportActions* exports_ = nullptr;
    ModelController* models_ = nullptr;
    QAction* independentRanges_ = nullptr;
    QString staleError_;      // the refusal or problem last put in the status bar
    int focusQuery_ = 1;      // the query shown
    int preferredFocus_ = 1;  // the query chosen; the article's query_2, "is"
};

}  // namespace attnlab
