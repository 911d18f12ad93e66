// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "dksweep.h"
#include "dksweepbutton.h"
#include "focuspanel.h"
#include "heatmapview.h"
#include "importdialog.h"
#include "inputpanel.h"
#include "labdocument.h"
#include "matrixmessagelabel.h"
#include "matrixtablemodel.h"
#include "noticebar.h"
#include "numberdelegate.h"
#include "parameterpanel.h"
#include "parametersettings.h"
#include "pipelineview.h"
#include "presentationmode.h"
#include "scaling_lab.h"
#include "score_histogram.h"
#include "scalingcompareview.h"
#include "scalinglabview.h"
#include "scorehistogramview.h"
#include "statisticspanel.h"
#include "themecontroller.h"
#include "tokenstrip.h"
#include "undorecorder.h"
#include "undoshortcuts.h"
#include "viewexportcontroller.h"
#include "viewnumbers.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QTabWidget>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <QUndoStack>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace attnlab {

namespace {

QDockWidget* makeDock(const QString& title, const QString& name, QWidget* content, QWidget* parent)
{
    auto* dock = new QDockWidget(title, parent);
    dock->setObjectName(name);
    dock->setWidget(content);
    return dock;
}

}  // namespace

MainWindow::~MainWindow()
{
    // The children outlive this destructor: deleting the undo stack emits
    // cleanChanged, which the document forwards to slots of this window,
    // by then no longer a MainWindow (found by UBSan). Cut those links first.
    if (undoStack_)
        undoStack_->disconnect();
    if (document_)
        document_->disconnect();
    session_->disconnect();
    // Likewise any child's signal to this window: the lesson dock's toggle
    // action fires as the dock hides during the children's destruction.
    for (QObject* child : findChildren<QObject*>())
        QObject::disconnect(child, nullptr, this, nullptr);
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), session_(new Session(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Attention Lab"));

    // Created in reading order, which is the order Tab follows.
    input_ = new InputPanel(session_, this);
    input_->setObjectName(QStringLiteral("inputPanel"));
    parameters_ = new ParameterPanel(session_, this);
    parameters_->setObjectName(QStringLiteral("parameterPanel"));
    pipeline_ = new PipelineView(session_, this);
    pipeline_->setObjectName(QStringLiteral("pipelineView"));
    auto* central = new QWidget(this);
    central->setObjectName(QStringLiteral("centralArea"));
    auto* layout = new QVBoxLayout(central);
    notice_ = new NoticeBar(central);
    connect(session_, &Session::matrixNotice, notice_, &NoticeBar::showNotice);
    layout->addWidget(notice_);
    layout->addWidget(input_);
    layout->addWidget(parameters_);
    layout->addWidget(pipeline_, 1);
    setCentralWidget(central);

    createUndo();
    createDocks();
    createScalingLabViews();
    createExports();
    createMenus();

    connect(input_->tokenStrip(), &TokenStrip::tokenClicked, this, &MainWindow::setFocusQuery);
    connect(pipeline_, &PipelineView::queryClicked, this, &MainWindow::setFocusQuery);
    connect(session_, &Session::resultChanged, this, &MainWindow::onResultChanged);
    connect(session_, &Session::editRefused, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    connect(session_, &Session::problemChanged, this, [this] {
        if (!session_->problem().isEmpty())
            statusBar()->showMessage(session_->problem(), 10000);
        else
            statusBar()->clearMessage();
    });
    // Up/Down move the focused query wherever it is shown: on every map
    // (keys and values too, since Tab reaches them), the tokens and the panel.
    for (HeatmapView* map : pipeline_->maps())
        map->installEventFilter(this);
    for (QObject* watched : std::initializer_list<QObject*>{input_->tokenStrip(), focus_})
        watched->installEventFilter(this);

    connectUndoGestures();
    setFocusQuery(preferredFocus_);
    statusBar()->showMessage(
        tr("Hover a cell for its numbers; click a row or a token to focus "
           "a query; Up/Down move the focus."));
}

void MainWindow::createExports()
{
    exports_ = new ViewExportController(
        this,
        [this](const ExportOptions& options) {
            auto exporter = std::make_unique<ViewExporter>(currentSnapshot(), focusQuery_, options);
            exporter->setWeightsScaleMode(pipeline_->weightsScaleMode());
            return exporter;
        },
        [this] {
            ExportOptions options;
            options.independentRanges = pipeline_->independentRanges();
            return options;
        });
    connect(exports_, &ViewExportController::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    // maps() is in ExportView's order, raw scores to context.
    const QList<HeatmapView*> maps = pipeline_->maps();
    for (int i = 0; i < maps.size(); ++i)
        exports_->installMenu(maps[i], ExportView(int(ExportView::RawScores) + i));
    if (auto* page = pipeline_->findChild<QWidget*>(QStringLiteral("pipelinePage")))
        exports_->installMenu(page, ExportView::Pipeline);
    exports_->installMenu(compare_, ExportView::ScalingComparison);
    exports_->installMenu(compare_->histogramView(), ExportView::ScoreHistogram);
    for (int i = 0; i < ScalingLabView::kPlotCount; ++i) {
        const auto view = ExportView(int(ExportView::LabVariance) + i);
        exports_->registerView(
            view,
            {ViewExporter::viewName(view), ViewExporter::fileStem(view), ViewExporter::defaultSize(view),
             plotPainter(lab_->plot(ScalingLabView::Plot(i))),
             [this, i] { return lab_->hasCurves() ? scalingLabCsv(lab_->curves(), i) : std::string(); }});
        exports_->installMenu(lab_->plot(ScalingLabView::Plot(i)), view);
    }
    const ExportView focus = ExportView::FocusedQuery;
    exports_->registerView(focus, {ViewExporter::viewName(focus), ViewExporter::fileStem(focus),
                                   ViewExporter::defaultSize(focus), widgetPainter(focus_),
                                   [this] { return makeViewExporter()->numbers(ExportView::FocusedQuery); }});
    // The plot takes its own context-menu events.
    exports_->installMenu(focus_, focus);
    exports_->installMenu(focus_->plot(), focus);
}

void MainWindow::createDocks()
{
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);

    focus_ = new FocusPanel(session_);
    focus_->setObjectName(QStringLiteral("focusPanel"));
    // On a short screen (700 pixels) the panel scrolls rather than pressing
    // its wrapped captions over the vectors.
    auto* focusScroll = new QScrollArea;
    focusScroll->setObjectName(QStringLiteral("focusScroll"));
    focusScroll->setWidgetResizable(true);
    focusScroll->setFrameShape(QFrame::NoFrame);
    focusScroll->setWidget(focus_);
    auto* focusDock = makeDock(tr("Focused query"), QStringLiteral("focusDock"), focusScroll, this);
    addDockWidget(Qt::BottomDockWidgetArea, focusDock);

    // Beside the maps, below them: the three maps need the window's width.
    statistics_ = new StatisticsPanel(session_);
    statistics_->setObjectName(QStringLiteral("statisticsPanel"));
    auto* statisticsDock = makeDock(tr("Statistics"), QStringLiteral("statisticsDock"), statistics_, this);
    addDockWidget(Qt::BottomDockWidgetArea, statisticsDock);
    splitDockWidget(focusDock, statisticsDock, Qt::Horizontal);

    auto* matrixTabs = new QTabWidget;
    matrixTabs->setObjectName(QStringLiteral("matrixTabs"));
    matrixTabs->setAccessibleName(tr("Matrices"));
    const struct {
        MatrixId id;
        QString name;
        QString title;
        QString accessibleName;
        QString tip;
    } matrices[] = {
        {MatrixId::X, QStringLiteral("X"), tr("&X (embeddings)"), tr("Embeddings X"),
         tr("The embeddings: one row per token, d_model columns. Type a value to edit.")},
        {MatrixId::Wq, QStringLiteral("Wq"), tr("W_q"), tr("Query weights W_q"),
         tr("Query weights (d_model × d_k): Q = X W_q. Type a value to edit.")},
        {MatrixId::Wk, QStringLiteral("Wk"), tr("W_k"), tr("Key weights W_k"),
         tr("Key weights (d_model × d_k): K = X W_k. Type a value to edit.")},
        {MatrixId::Wv, QStringLiteral("Wv"), tr("W_v"), tr("Value weights W_v"),
         tr("Value weights (d_model × d_v): V = X W_v. Type a value to edit.")},
    };
    for (const auto& m : matrices) {
        auto* model = new MatrixTableModel(session_, m.id, this);
        model->setObjectName(QStringLiteral("matrixModel") + m.name);
        matrixModels_.append(model);
        auto* view = new QTableView;
        view->setObjectName(QStringLiteral("matrixTable") + m.name);
        view->setAccessibleName(m.accessibleName);
        view->setModel(model);
        view->setItemDelegate(new NumberDelegate(view));
        view->installEventFilter(this);  // Show/Hide: see updateMatrixLiveness
        matrixViews_.append(view);
        view->setToolTip(m.tip);
        view->horizontalHeader()->setDefaultSectionSize(
            view->fontMetrics().horizontalAdvance(QStringLiteral("-0.00000")) + 12);
        view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
        view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                              | QAbstractItemView::AnyKeyPressed);
        // Tab leaves the table (thousands of cells would hold it); arrows move inside.
        view->setTabKeyNavigation(false);
        matrixTabs->addTab(view, m.title);
    }
    // A refused edit's message stays under the tables until fixed.
    auto* matrixMessage = new MatrixMessageLabel;
    for (MatrixTableModel* model : matrixModels_)
        matrixMessage->watch(model);
    auto* matricesPage = new QWidget;
    auto* matricesLayout = new QVBoxLayout(matricesPage);
    matricesLayout->setContentsMargins(0, 0, 0, 0);
    matricesLayout->addWidget(matrixTabs, 1);
    matricesLayout->addWidget(matrixMessage);
    auto* matricesDock = makeDock(tr("Matrices"), QStringLiteral("matricesDock"), matricesPage, this);
    addDockWidget(Qt::BottomDockWidgetArea, matricesDock);
    tabifyDockWidget(focusDock, matricesDock);
    focusDock->raise();

    defaultDockSizes();
}

void MainWindow::defaultDockSizes()
{
    auto* focusDock = findChild<QDockWidget*>(QStringLiteral("focusDock"));
    auto* statisticsDock = findChild<QDockWidget*>(QStringLiteral("statisticsDock"));
    resizeDocks({focusDock, statisticsDock}, {width() - 380, 380}, Qt::Horizontal);
    resizeDocks({focusDock}, {std::max(220, height() * 3 / 10)}, Qt::Vertical);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    createFileActions(file);
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setObjectName(QStringLiteral("quitAction"));
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    createEditActions(edit);
    QAction* sentence = edit->addAction(tr("Edit the &sentence"), this, [this] {
        input_->sentenceEdit()->setFocus();
        input_->sentenceEdit()->selectAll();
    });
    sentence->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    QAction* regenerate = edit->addAction(tr("Re&generate from seed"), session_, &Session::regenerate);
    regenerate->setObjectName(QStringLiteral("regenerateAction"));
    regenerate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    regenerate->setStatusTip(tr("Redraw X, W_q, W_k and W_v from the seed, dropping hand edits."));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    independentRanges_ = view->addAction(tr("&Independent colour ranges"));
    independentRanges_->setObjectName(QStringLiteral("independentRangesAction"));
    independentRanges_->setCheckable(true);
    independentRanges_->setStatusTip(tr("Give raw and scaled scores each their own colour range."));
    connect(independentRanges_, &QAction::toggled, pipeline_, &PipelineView::setIndependentRanges);
    connect(pipeline_, &PipelineView::independentRangesChanged, independentRanges_, &QAction::setChecked);
    view->addMenu(pipeline_->createWeightsScaleMenu(view));
    QAction* previous =
        view->addAction(tr("&Previous query"), this, [this] { setFocusQuery(focusQuery_ - 1); });
    previous->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
    QAction* next = view->addAction(tr("&Next query"), this, [this] { setFocusQuery(focusQuery_ + 1); });
    next->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
    view->addSeparator();
    // The dock titles stay plain; their menu entries get mnemonics.
    const struct {
        const char* dock;
        QString text;
    } dockActions[] = {{"focusDock", tr("&Focused query")},
                       {"statisticsDock", tr("S&tatistics")},
                       {"matricesDock", tr("&Matrices")}};
    for (const auto& d : dockActions)
        if (auto* dock = findChild<QDockWidget*>(QLatin1String(d.dock)))
            dock->toggleViewAction()->setText(d.text);
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    addScalingLabActions(view);
    view->addSeparator();
    presentation_ = new PresentationMode(this);
    view->addAction(presentation_->action());
    theme_ = new ThemeController(this);
    theme_->addMenu(view);
    view->addSeparator();
    QAction* reset =
        view->addAction(tr("&Reset to the article example"), this, &MainWindow::resetToArticleExample);
    reset->setObjectName(QStringLiteral("resetAction"));
    reset->setStatusTip(tr("\"%1\", seed 123, d_model 16, d_k 24, d_v 28, article "
                           "initialisation, as in Raschka's walk-through.")
                            .arg(QString::fromLatin1(attn::kArticleSentence)));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(reset);
    help->addSeparator();
    help->addAction(tr("&About Attention Lab"), this, &MainWindow::showAbout)
        ->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)->setMenuRole(QAction::AboutQtRole);
}

MatrixTableModel* MainWindow::matrixModel(MatrixId which) const
{
    for (MatrixTableModel* model : matrixModels_)
        if (model->matrixId() == which)
            return model;
    return nullptr;
}

void MainWindow::setFocusQuery(int query)
{
    const int n = session_->tokenCount();
    query = n == 0 ? 0 : std::clamp(query, 0, n - 1);
    preferredFocus_ = query;
    showFocus(query);
}

void MainWindow::showFocus(int query)
{
    focusQuery_ = query;
    pipeline_->setFocusQuery(query);
    input_->tokenStrip()->setFocusIndex(query);
    focus_->setQuery(query);
}

void MainWindow::onResultChanged()
{
    // While a sentence is typed it passes through shorter ones; the focus
    // returns to the chosen query once it exists again.
    const int n = session_->tokenCount();
    showFocus(n == 0 ? 0 : std::min(preferredFocus_, n - 1));
}

void MainWindow::resetToArticleExample()
{
    // Asked as New asks; the reset is then one undo step of the same lab.
    if (!document_->maybeDiscardChanges())
        return;
    recorder_->recordAs(tr("Reset to the article example"),
                        [this] { session_->setParameters(attn::ModelConfig(), attn::AttentionOptions()); });
    setFocusQuery(1);
    statusBar()->showMessage(tr("Back to the article example."), 5000);
}

void MainWindow::restoreSettings(const CommandLineOutcome& start)
{
    QSettings settings;
    attn::ModelConfig config;
    attn::AttentionOptions options;
    if (start.haveConfig) {
        config = start.config;
        options = start.options;
    } else {
        loadParameters(settings, &config, &options);
    }
    session_->setParameters(config, options);
    pipeline_->setIndependentRanges(settings.value(QStringLiteral("view/independentRanges"), false).toBool());
    WeightsScaleMode weightsScale = WeightsScaleMode::Automatic;
    weightsScaleModeFromKey(settings.value(QStringLiteral("view/weightsScale")).toString(), &weightsScale);
    pipeline_->setWeightsScaleMode(weightsScale);
    theme_->restore(settings);
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) {
        const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1400, 900);
        resize(std::min(1400, available.width()), std::min(900, available.height()));
    }
    if (!restoreState(settings.value(QStringLiteral("window/state")).toByteArray()))
        defaultDockSizes();
    startDocument(start);
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    saveParameters(settings, session_->config(), session_->options());
    settings.setValue(QStringLiteral("view/independentRanges"), pipeline_->independentRanges());
    settings.setValue(QStringLiteral("view/weightsScale"),
                      weightsScaleModeKey(pipeline_->weightsScaleMode()));
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    // A window that is not on screen closes under program control: nobody
    // to ask.
    if (isVisible() && !document_->maybeDiscardChanges()) {
        event->ignore();
        return;
    }
    // Discard: the next start must not bring the discarded lab back (its
    // autosave goes, and so do its parameters).
    const bool discarded = isVisible() && document_->isModified();
    document_->closeCleanly();
    saveSettings();
    if (discarded) {
        QSettings settings;
        forgetParameters(settings);
    }
    event->accept();
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // Once the docks have their final visibility.
    QMetaObject::invokeMethod(this, &MainWindow::updateMatrixLiveness, Qt::QueuedConnection);
    // The d_k lab's curves take about a second: computed once the window is
    // up, they are there when its tab is opened.
    QTimer::singleShot(1000, lab_, &ScalingLabView::prefetch);
}

void MainWindow::hideEvent(QHideEvent* event)
{
    QMainWindow::hideEvent(event);
    updateMatrixLiveness();
}

void MainWindow::updateMatrixLiveness()
{
    // A window that is not on screen keeps every table current (as for
    // tests and scripted use); on screen only the tables that can be seen.
    for (int i = 0; i < matrixModels_.size(); ++i)
        matrixModels_[i]->setLive(!isVisible() || matrixViews_[i]->isVisible());
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    // Compared as QObjects: `watched` may be any object this filter watches.
    const auto isMatrixView = [&] {
        return std::any_of(matrixViews_.cbegin(), matrixViews_.cend(),
                           [watched](const QObject* view) { return view == watched; });
    };
    if ((event->type() == QEvent::Show || event->type() == QEvent::Hide) && isMatrixView()) {
        updateMatrixLiveness();
        return false;
    }
    if ((watched == compare_ || watched == lesson_) && event->type() == QEvent::Show) {
        // Brought on screen: catch up with the results it skipped.
        updateScalingViews();
        return false;
    }
    if (event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->modifiers() == Qt::NoModifier || key->modifiers() == Qt::KeypadModifier) {
            if (key->key() == Qt::Key_Up) {
                setFocusQuery(focusQuery_ - 1);
                return true;
            }
            if (key->key() == Qt::Key_Down) {
                setFocusQuery(focusQuery_ + 1);
                return true;
            }
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Attention Lab"),
                       tr("<h3>Attention Lab %1</h3>"
                          "<p>See scaled dot-product self-attention at work: "
                          "A = softmax(Q K<sup>T</sup> / √d<sub>k</sub>), Z = A V.</p>"
                          "<p>The default example reproduces Sebastian Raschka's walk-through "
                          "<i>Understanding and Coding the Self-Attention Mechanism of Large Language Models "
                          "From Scratch</i> (2023), with the same PyTorch random draws.</p>")
                           .arg(QCoreApplication::applicationVersion()));
}

void MainWindow::createScalingLabViews()
{
    compare_ = new ScalingCompareView;
    compare_->setObjectName(QStringLiteral("scalingCompareView"));
    pipeline_->addPage(compare_, tr("Scaled vs &unscaled"));
    connect(pipeline_, &PipelineView::weightsScaleModeChanged, compare_,
            &ScalingCompareView::setWeightsScaleMode);
    // Runs its Monte Carlo curves in the background when first shown.
    lab_ = new ScalingLabView;
    lab_->setObjectName(QStringLiteral("scalingLabView"));
    pipeline_->addPage(lab_, tr("d_k &lab"));

    lesson_ = new LessonPanel;
    lesson_->setObjectName(QStringLiteral("lessonPanel"));
    lessonDock_ = makeDock(tr("Lesson"), QStringLiteral("lessonDock"), lesson_, this);
    // Below the maps, which need the window's width, as a tab beside the
    // focused query; raised when opened.
    addDockWidget(Qt::BottomDockWidgetArea, lessonDock_);
    auto* focusDock = findChild<QDockWidget*>(QStringLiteral("focusDock"));
    tabifyDockWidget(focusDock, lessonDock_);
    lessonDock_->hide();
    focusDock->raise();
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
        }
    });
    connect(lesson_, &LessonPanel::stepChanged, this,
            [this](int, LessonPanel::Stage stage) { showLessonStage(stage); });
    connect(lesson_, &LessonPanel::finished, lessonDock_, &QDockWidget::close);
    connect(session_, &Session::parametersChanged, lesson_,
            [this] { lesson_->setInitMode(session_->config().init); });
    lesson_->setInitMode(session_->config().init);

    connect(parameters_, &ParameterPanel::scalingDemoRequested, this, &MainWindow::startScalingDemo);
    connect(session_, &Session::resultChanged, this, &MainWindow::updateScalingViews);
    compare_->installEventFilter(this);
    lesson_->installEventFilter(this);
    createDkSweep();
    updateScalingViews();
}

void MainWindow::createDkSweep()
{
    sweep_ = new DkSweep(session_, this);
    sweep_->setObjectName(QStringLiteral("dkSweep"));
    sweep_->setFrameSource([this] {
        return makeViewExporter()->encode(ExportView::Pipeline, ImageFormat::Png,
                                          ViewExporter::defaultSize(ExportView::Pipeline));
    });
    // The whole sweep is one undo step.
    connect(sweep_, &DkSweep::started, recorder_, &UndoRecorder::beginGesture);
    connect(sweep_, &DkSweep::finished, recorder_, &UndoRecorder::endGesture);
    auto* play = new DkSweepButton(sweep_, parameters_);
    connect(play, &DkSweepButton::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    parameters_->addDkControl(play);
}

void MainWindow::addScalingLabActions(QMenu* view)
{
    scalingDemo_ = view->addAction(tr("Scaling &demo"), this, &MainWindow::startScalingDemo);
    scalingDemo_->setObjectName(QStringLiteral("scalingDemoAction"));
    scalingDemo_->setStatusTip(parameters_->scalingDemoButton()->toolTip());
}

QAction* MainWindow::lessonModeAction() const
{
    return lessonDock_->toggleViewAction();
}

void MainWindow::updateScalingViews()
{
    if (!session_->hasResult())
        return;
    lab_->setCurrentDk(session_->resultDK());
    compare_->setInitMode(session_->config().init);
    // The comparison is the core's (two more n x n softmaxes, computed by
    // the session with the result, off the GUI thread when large); the views
    // only draw it. Views off screen skip it and catch up when shown (see
    // eventFilter); a window that is not on screen keeps every view current
    // while that is cheap (lesson sizes).
    constexpr int kEagerTokens = 512;
    const bool onlyShownViews = isVisible() || session_->tokenCount() > kEagerTokens;
    const bool compareShown = compare_->isVisible();
    const bool lessonShown = lessonDock_->isVisible();
    session_->setComparisonWanted(onlyShownViews && (compareShown || lessonShown));
    const bool updateCompare = !onlyShownViews || compareShown;
    const bool updateLesson = !onlyShownViews || lessonShown;
    if (!updateCompare && !updateLesson)
        return;
    const std::shared_ptr<const attn::ScalingComparison> comparison = session_->sharedComparison();
    if (updateCompare && compare_->comparisonPointer() != comparison) {
        compare_->setData(comparison, session_->tokenLabels());
        // Sampled above attn::kScoreHistogramMaxPairs: about a millisecond.
        compare_->setHistogram(attn::scoreHistogram(session_->result()));
    }
    if (updateLesson)
        lesson_->setLiveComparison(*comparison);
}

void MainWindow::startScalingDemo()
{
    session_->setInit(attn::InitMode::UnitVariance);
    pipeline_->showPage(compare_);
    statusBar()->showMessage(tr("Unit-variance initialisation: q and k entries have variance "
                                "about 1. Move d_k and compare the two softmax maps."),
                             10000);
}

void MainWindow::showLessonStage(LessonPanel::Stage stage)
{
    using Stage = LessonPanel::Stage;
    parameters_->setDkHighlighted(stage == Stage::DkExperiment);
    switch (stage) {
    case Stage::Scores: pipeline_->setHighlightedMap(pipeline_->rawScoresMap()); break;
    case Stage::Scale: pipeline_->setHighlightedMap(pipeline_->scaledScoresMap()); break;
    case Stage::Softmax: pipeline_->setHighlightedMap(pipeline_->weightsMap()); break;
    case Stage::Context: pipeline_->setHighlightedMap(pipeline_->contextMap()); break;
    case Stage::DkExperiment:
        prepareLessonExperiment();
        pipeline_->setHighlightedMap(nullptr);
        pipeline_->showPage(compare_);
        parameters_->dKSlider()->setFocus(Qt::OtherFocusReason);
        break;
    }
}

void MainWindow::prepareLessonExperiment()
{
    // The experiment's statements need unit-variance q and k. Drawn matrices
    // are redrawn so (one undo step); the user's own are kept, and the panel
    // says which of the two happened.
    if (session_->config().init == attn::InitMode::UnitVariance || session_->editedCells() > 0)
        return;
    recorder_->recordAs(tr("Unit-variance initialisation for the lesson"),
                        [this] { session_->setInit(attn::InitMode::UnitVariance); });
    if (session_->config().init == attn::InitMode::UnitVariance)
        lesson_->noteInitSwitched();
}

void MainWindow::clearLessonHighlight()
{
    pipeline_->setHighlightedMap(nullptr);
    parameters_->setDkHighlighted(false);
}

void MainWindow::createUndo()
{
    undoStack_ = new QUndoStack(this);
    undoStack_->setObjectName(QStringLiteral("undoStack"));
    recorder_ = new UndoRecorder(session_, undoStack_, this);
    document_ = new LabDocument(session_, recorder_, this);
    document_->setViewAccess([this] { return viewState(); },
                             [this](const QJsonObject& view) { applyViewState(view); });
    document_->setUnsavedPrompt([this](const QString& name) {
        const QMessageBox::StandardButton answer = QMessageBox::warning(
            this, tr("Unsaved changes"),
            tr("The lab \"%1\" has changes that are not saved. Save them first?").arg(name),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        return answer == QMessageBox::Save      ? LabDocument::UnsavedAnswer::Save
               : answer == QMessageBox::Discard ? LabDocument::UnsavedAnswer::Discard
                                                : LabDocument::UnsavedAnswer::Cancel;
    });
    document_->setRecoveryPrompt([this](const QDateTime& savedAt) {
        return QMessageBox::question(this, tr("Recover the last lab?"),
                                     tr("Attention Lab did not close normally. A copy of the lab saved "
                                        "automatically at %1 is there. Restore it?")
                                         .arg(QLocale().toString(savedAt, QLocale::ShortFormat)),
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes)
               == QMessageBox::Yes;
    });
    document_->setSavePathPrompt([this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Save the lab"), QDir::home().filePath(tr("lab.attnlab")),
                                         tr("Attention labs (*.attnlab)"));
        if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty())
            return path;
        return path + QStringLiteral(".attnlab");
    });
    connect(document_, &LabDocument::modifiedChanged, this, &MainWindow::updateWindowTitle);
    connect(document_, &LabDocument::filePathChanged, this, &MainWindow::updateWindowTitle);
    updateWindowTitle();
}

void MainWindow::connectUndoGestures()
{
    // A slider held down is one undo step however far it travels.
    for (QAbstractSlider* slider : findChildren<QAbstractSlider*>()) {
        if (qobject_cast<QScrollBar*>(slider))
            continue;
        connect(slider, &QAbstractSlider::sliderPressed, recorder_, &UndoRecorder::beginGesture);
        connect(slider, &QAbstractSlider::sliderReleased, recorder_, &UndoRecorder::endGesture);
    }
    // Typing is one step until the field is left or Return is pressed.
    connect(input_->sentenceEdit(), &QLineEdit::editingFinished, recorder_, &UndoRecorder::breakMerge);
}

void MainWindow::createFileActions(QMenu* file)
{
    QAction* newLabAction = file->addAction(tr("&New lab"), this, &MainWindow::newLab);
    newLabAction->setObjectName(QStringLiteral("newLabAction"));
    newLabAction->setShortcut(QKeySequence::New);
    newLabAction->setStatusTip(tr("Start again from the article example, as a new unsaved lab."));
    QAction* open = file->addAction(tr("&Open lab…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a lab"),
                                                          QFileInfo(document_->filePath()).absolutePath(),
                                                          tr("Attention labs (*.attnlab);;All files (*)"));
        if (!path.isEmpty())
            openLab(path);
    });
    open->setObjectName(QStringLiteral("openLabAction"));
    open->setShortcut(QKeySequence::Open);
    open->setStatusTip(tr("Open a saved lab with its matrices, hand edits included."));
    recentMenu_ = file->addMenu(tr("Open &recent"));
    recentMenu_->setObjectName(QStringLiteral("recentMenu"));
    connect(document_, &LabDocument::recentFilesChanged, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
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
    file->addSeparator();
    QAction* save = file->addAction(tr("&Save lab"), this, &MainWindow::saveLab);
    save->setObjectName(QStringLiteral("saveLabAction"));
    save->setShortcut(QKeySequence::Save);
    save->setStatusTip(tr("Save the parameters, every matrix and the view."));
    QAction* saveAs = file->addAction(tr("Save lab &as…"), this, &MainWindow::saveLabAs);
    saveAs->setObjectName(QStringLiteral("saveLabAsAction"));
    saveAs->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    QAction* import = file->addAction(tr("&Import a matrix…"), this, &MainWindow::showImportDialog);
    import->setObjectName(QStringLiteral("importMatrixAction"));
    import->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    import->setStatusTip(tr("Replace X, W_q, W_k or W_v with a .npy or .csv file of the same shape."));
    QAction* picture = file->addAction(tr("&Export a picture…"), this, &MainWindow::showExportDialog);
    picture->setObjectName(QStringLiteral("exportPictureAction"));
    picture->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    picture->setStatusTip(tr("One heatmap or the pipeline figure as PNG, SVG or PDF."));
    QAction* all = file->addAction(tr("Export all &views…"), this, &MainWindow::exportAllViewsInteractive);
    all->setObjectName(QStringLiteral("exportAllViewsAction"));
    all->setStatusTip(tr("Every heatmap and the pipeline figure as PNG, SVG and PDF into a folder."));
    QAction* numbers = file->addAction(tr("Export n&umbers…"), this, &MainWindow::exportNumbersInteractive);
    numbers->setObjectName(QStringLiteral("exportNumbersAction"));
    numbers->setStatusTip(tr("Every matrix as CSV, JSON and NumPy .npy into a folder."));
    file->addSeparator();
}

void MainWindow::createEditActions(QMenu* edit)
{
    QAction* undo = undoStack_->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undoAction"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = undoStack_->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redoAction"));
    // Both common keys. QKeySequence::Redo is Ctrl+Shift+Z on X11: listing it
    // beside Ctrl+Shift+Z registered that key twice, an ambiguous shortcut.
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    edit->addAction(undo);
    edit->addAction(redo);
    new UndoShortcuts(this, undo, redo);
    edit->addSeparator();
    QAction* copy = edit->addAction(tr("&Copy the pipeline figure"), this,
                                    [this] { copyViewToClipboard(ExportView::Pipeline); });
    copy->setObjectName(QStringLiteral("copyFigureAction"));
    copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    copy->setStatusTip(tr("The three score maps as one picture on the clipboard, for slides."));
    edit->addSeparator();
}

void MainWindow::startDocument(const CommandLineOutcome& start)
{
    if (start.haveLab) {
        const attn::Status loaded =
            start.labPath.empty() ? document_->load(start.lab)
                                  : document_->loadRead(start.lab, QString::fromStdString(start.labPath));
        QStringList warnings;
        for (const std::string& w : start.lab.warnings)
            warnings.append(QString::fromStdString(w));
        if (!loaded)
            statusBar()->showMessage(QString::fromStdString(loaded.error().message), 10000);
        else if (!warnings.isEmpty())
            statusBar()->showMessage(warnings.join(QLatin1Char(' ')), 10000);
        return;
    }
    document_->startUntitled();
}

void MainWindow::offerRecovery()
{
    if (document_->offerRecovery())
        statusBar()->showMessage(tr("The automatically saved lab was restored; save it to keep it."), 10000);
}

void MainWindow::updateWindowTitle()
{
    setWindowTitle(tr("%1[*] — Attention Lab").arg(document_->displayName()));
    setWindowModified(document_->isModified());
}

void MainWindow::rebuildRecentMenu()
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

QJsonObject MainWindow::viewState() const
{
    QJsonObject view;
    view.insert(QStringLiteral("focus_query"), preferredFocus_);
    view.insert(QStringLiteral("independent_ranges"), pipeline_->independentRanges());
    view.insert(QStringLiteral("maps_tab"), pipeline_->tabs()->currentIndex());
    return view;
}

void MainWindow::applyViewState(const QJsonObject& view)
{
    if (view.contains(QStringLiteral("independent_ranges")))
        pipeline_->setIndependentRanges(view.value(QStringLiteral("independent_ranges")).toBool());
    if (view.contains(QStringLiteral("maps_tab"))) {
        const int tab = view.value(QStringLiteral("maps_tab")).toInt();
        if (tab >= 0 && tab < pipeline_->tabs()->count())
            pipeline_->tabs()->setCurrentIndex(tab);
    }
    if (view.contains(QStringLiteral("focus_query")))
        setFocusQuery(view.value(QStringLiteral("focus_query")).toInt());
}

bool MainWindow::openLab(const QString& path)
{
    if (!document_->maybeDiscardChanges())
        return false;
    const attn::Expected<std::vector<std::string>> opened = document_->open(path);
    if (!opened) {
        statusBar()->showMessage(QString::fromStdString(opened.error().message), 15000);
        if (isVisible())
            QMessageBox::warning(this, tr("Open a lab"), QString::fromStdString(opened.error().message));
        return false;
    }
    QStringList warnings;
    for (const std::string& w : opened.value())
        warnings.append(QString::fromStdString(w));
    statusBar()->showMessage(
        warnings.isEmpty() ? tr("Opened %1.").arg(document_->displayName()) : warnings.join(QLatin1Char(' ')),
        10000);
    return true;
}

bool MainWindow::saveLab()
{
    const attn::Status saved = document_->save();
    statusBar()->showMessage(
        saved ? tr("Saved %1.").arg(document_->displayName()) : QString::fromStdString(saved.error().message),
        10000);
    return bool(saved);
}

bool MainWindow::saveLabAs()
{
    const QString old = document_->filePath();
    QString path = QFileDialog::getSaveFileName(
        this, tr("Save the lab as"), old.isEmpty() ? QDir::home().filePath(tr("lab.attnlab")) : old,
        tr("Attention labs (*.attnlab)"));
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".attnlab");
    const attn::Status saved = document_->saveAs(path);
    statusBar()->showMessage(
        saved ? tr("Saved %1.").arg(document_->displayName()) : QString::fromStdString(saved.error().message),
        10000);
    return bool(saved);
}

bool MainWindow::newLab()
{
    if (!document_->maybeDiscardChanges())
        return false;
    session_->setParameters(attn::ModelConfig(), attn::AttentionOptions());
    document_->startUntitled();
    setFocusQuery(1);
    statusBar()->showMessage(tr("A new lab: the article example."), 5000);
    return true;
}

QStringList MainWindow::presets()
{
    QStringList paths;
    for (const PresetEntry& preset : presetEntries())
        paths.append(preset.path);
    return paths;
}

bool MainWindow::openPreset(const QString& path)
{
    if (!document_->maybeDiscardChanges())
        return false;
    attn::Expected<LabState> lab = readLabFile(path);
    const attn::Status loaded = lab ? document_->load(lab.value()) : attn::Status(lab.error());
    if (!loaded) {
        statusBar()->showMessage(QString::fromStdString(loaded.error().message), 10000);
        return false;
    }
    statusBar()->showMessage(tr("Preset: %1").arg(QString::fromStdString(lab.value().config.sentence)), 5000);
    return true;
}

AttentionSnapshot MainWindow::currentSnapshot() const
{
    AttentionSnapshot snapshot;
    snapshot.config = session_->config();
    snapshot.options = session_->options();
    snapshot.model = session_->model();
    snapshot.result = session_->result();
    snapshot.stats = session_->stats();
    // With a problem the config is the refused request; describe what is shown.
    snapshot.config.dModel = int(snapshot.model.X.cols());
    snapshot.config.dK = int(snapshot.model.Wq.cols());
    snapshot.config.dV = int(snapshot.model.Wv.cols());
    return snapshot;
}

std::unique_ptr<ViewExporter> MainWindow::makeViewExporter() const
{
    auto exporter =
        std::make_unique<ViewExporter>(currentSnapshot(), focusQuery_, pipeline_->independentRanges());
    exporter->setWeightsScaleMode(pipeline_->weightsScaleMode());
    return exporter;
}

attn::Status MainWindow::exportView(ExportView view, const QString& path, const QSize& size,
                                    qreal scale) const
{
    return exports_->writePicture(view, path, size, scale, exports_->defaultOptions());
}

attn::Status MainWindow::exportAllViews(const QString& directory, const QSize& size) const
{
    const std::unique_ptr<ViewExporter> exporter = makeViewExporter();
    std::vector<OutputFile> files;
    for (ImageFormat format : {ImageFormat::Png, ImageFormat::Svg, ImageFormat::Pdf}) {
        attn::Expected<std::vector<OutputFile>> some = exporter->files(format, size);
        if (!some)
            return some.error();
        for (OutputFile& f : some.value())
            files.push_back(std::move(f));
    }
    return writeFilesAtomically(directory, files);
}

attn::Status MainWindow::exportNumbers(const QString& directory, const ExportFormats& formats) const
{
    if (!session_->problem().isEmpty())
        return attn::Error{session_->problem().toStdString()};
    ExportFormats numbers = formats;
    numbers.png = numbers.svg = numbers.pdf = false;  // exportAllViews draws the pictures
    const AttentionSnapshot snapshot = currentSnapshot();
    return exportAttention(directory, snapshot, numbers);
}

attn::Status MainWindow::importMatrix(MatrixId which, const QString& path, bool transpose)
{
    const attn::Expected<attn::Matrix> m = ImportDialog::readMatrix(*session_, which, path, transpose);
    if (!m)
        return m.error();
    attn::Status imported = attn::okStatus();
    recorder_->recordAs(tr("Import %1 from %2").arg(Session::matrixName(which), QFileInfo(path).fileName()),
                        [&] { imported = session_->setMatrix(which, m.value()); });
    return imported;
}

void MainWindow::copyViewToClipboard(ExportView view) const
{
    exports_->copy(view);
}

void MainWindow::showExportDialog()
{
    exports_->exportPicture(ExportView::Pipeline);
}

void MainWindow::showImportDialog()
{
    ImportDialog dialog(session_, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const attn::Status imported = importMatrix(dialog.target(), dialog.path(), dialog.transpose());
    statusBar()->showMessage(
        imported ? tr("Imported %1 from %2.")
                       .arg(Session::matrixName(dialog.target()), QFileInfo(dialog.path()).fileName())
                 : QString::fromStdString(imported.error().message),
        10000);
}

void MainWindow::exportAllViewsInteractive()
{
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Export all views into"));
    if (directory.isEmpty())
        return;
    const attn::Status written = exportAllViews(directory);
    statusBar()->showMessage(written ? tr("Wrote every view to %1.").arg(QDir::toNativeSeparators(directory))
                                     : QString::fromStdString(written.error().message),
                             10000);
}

void MainWindow::exportNumbersInteractive()
{
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Export the numbers into"));
    if (directory.isEmpty())
        return;
    ExportFormats formats;
    formats.json = formats.csv = formats.npy = true;
    const attn::Status written = exportNumbers(directory, formats);
    statusBar()->showMessage(written
                                 ? tr("Wrote the matrices to %1.").arg(QDir::toNativeSeparators(directory))
                                 : QString::fromStdString(written.error().message),
                             10000);
}

}  // namespace attnlab
