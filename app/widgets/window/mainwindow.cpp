// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "paintacknowledger.h"

#include "documentcontroller.h"
#include "exportactions.h"
#include "flashtilesview.h"
#include "focuspanel.h"
#include "headgridview.h"
#include "headspanel.h"
#include "heatmapview.h"
#include "inputpanel.h"
#include "labdocument.h"
#include "lessoncontroller.h"
#include "matrixeditors.h"
#include "modelcontroller.h"
#include "modelpanel.h"
#include "noticebar.h"
#include "oneheadresult.h"
#include "parameterpanel.h"
#include "pipelineview.h"
#include "labdocksaway.h"
#include "presentationmode.h"
#include "scalingcompareview.h"
#include "scalinglabview.h"
#include "screenfit.h"
#include "trainingview.h"
#include "statisticspanel.h"
#include "themecontroller.h"
#include "tokenstrip.h"
#include "viewexportcontroller.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

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
    // cleanChanged, which the document forwards to the controllers and this
    // window, by then no longer what they were (found by UBSan). Cut those
    // links first, and any child's signal to the window or a controller: the
    // lesson dock's toggle action fires as the dock hides during the
    // children's destruction.
    documents_->undoStack()->disconnect();
    documents_->document()->disconnect();
    session_->disconnect();
    const QObject* receivers[] = {this, documents_, lessons_, exports_};
    for (QObject* child : findChildren<QObject*>())
        for (const QObject* receiver : receivers)
            QObject::disconnect(child, nullptr, receiver, nullptr);
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), session_(new Session(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Attention Lab"));
    screenFit_ = new ScreenFit(this);

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
    layout->setSpacing(3);  // a 700-line screen needs every line for the maps' rows
    notice_ = new NoticeBar(central);
    connect(session_, &Session::matrixNotice, notice_, &NoticeBar::showNotice);
    layout->addWidget(notice_);
    layout->addWidget(input_);
    layout->addWidget(parameters_);
    layout->addWidget(pipeline_, 1);
    setCentralWidget(central);

    documents_ = new DocumentController(session_, this);
    documents_->document()->setViewAccess([this] { return viewState(); },
                                          [this](const QJsonObject& view) { applyViewState(view); });
    connect(documents_, &DocumentController::message, this, &MainWindow::showMessage);
    connect(documents_, &DocumentController::articleExampleStarted, this, [this] { setFocusQuery(1); });
    createDocks();
    createScalingLabViews();
    createHeadsView();
    models_ = new ModelController(this, pipeline_, session_);
    connect(models_, &ModelController::message, this, &MainWindow::showMessage);
    models_->setUndoStack(documents_->undoStack());
    lessons_->setModel(models_->session(), models_->panel());
    exports_ = new ExportActions(
        session_, {pipeline_, focus_, compare_, lab_, heads_, models_->exports(), training_},
        [this] { return focusQuery_; }, this);
    connect(exports_, &ExportActions::message, this, &MainWindow::showMessage);
    connect(heads_, &HeadsPanel::message, this, [this](const QString& text) { showMessage(text, 10000); });
    lessons_->setFrameExporter([this] { return exports_->makeViewExporter(); });
    createMenus();

    connect(input_->tokenStrip(), &TokenStrip::tokenClicked, this, &MainWindow::setFocusQuery);
    connect(pipeline_, &PipelineView::queryClicked, this, &MainWindow::setFocusQuery);
    connect(session_, &Session::resultChanged, this, &MainWindow::onResultChanged);
    // A refusal or a problem in the status bar goes with the next edit that
    // computes: it no longer describes what is shown.
    connect(session_, &Session::editRefused, this, [this](const QString& message) {
        statusBar()->showMessage(message, 10000);
        staleError_ = message;
    });
    connect(session_, &Session::problemChanged, this, [this] {
        if (!session_->problem().isEmpty()) {
            statusBar()->showMessage(session_->problem(), 10000);
            staleError_ = session_->problem();
        } else {
            statusBar()->clearMessage();
        }
    });
    connect(session_, &Session::resultChanged, this, [this] {
        if (!staleError_.isEmpty() && session_->problem().isEmpty()
            && statusBar()->currentMessage() == staleError_)
            statusBar()->clearMessage();
        staleError_.clear();
    });
    // Up/Down move the focused query wherever it is shown: on every map
    // (keys and values too, since Tab reaches them), the tokens and the panel.
    for (HeatmapView* map : pipeline_->maps())
        map->installEventFilter(this);
    for (QObject* watched : std::initializer_list<QObject*>{input_->tokenStrip(), focus_})
        watched->installEventFilter(this);

    documents_->connectUndoGestures(this, input_->sentenceEdit());
    // Last: its notes that the views painted follow their paint requests.
    new PaintAcknowledger(session_, session_);
    setFocusQuery(preferredFocus_);
    statusBar()->showMessage(
        tr("Hover a cell for its numbers; click a row or a token to focus "
           "a query; Up/Down move the focus."));
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

    matrices_ = new MatrixEditors(session_, this);
    auto* matricesDock = makeDock(tr("Matrices"), QStringLiteral("matricesDock"), matrices_, this);
    addDockWidget(Qt::BottomDockWidgetArea, matricesDock);
    tabifyDockWidget(focusDock, matricesDock);
    focusDock->raise();

    WindowSettings::defaultDockSizes(this);
}

void MainWindow::createScalingLabViews()
{
    compare_ = new ScalingCompareView;
    compare_->setObjectName(QStringLiteral("scalingCompareView"));
    pipeline_->addPage(compare_, tr("Scaled vs &unscaled"));
    connect(pipeline_, &PipelineView::weightsScaleModeChanged, compare_,
            &ScalingCompareView::setWeightsScaleMode);
    // Its Monte Carlo curves run in the session's worker, after the maps'
    // work, when first shown.
    lab_ = new ScalingLabView(session_->scalingLab());
    lab_->setObjectName(QStringLiteral("scalingLabView"));
    pipeline_->addPage(lab_, tr("d_k &lab"));
    // The training lab trains on a thread of its own; its d_k follows the window's.
    training_ = new TrainingView;
    training_->setObjectName(QStringLiteral("trainingView"));
    pipeline_->addPage(training_, tr("Training"));
    connect(training_, &TrainingView::message, this, &MainWindow::showMessage);
    connect(session_, &Session::parametersChanged, training_,
            [this] { training_->followDk(session_->inputs().config.dK); });
    training_->followDk(session_->inputs().config.dK);
    // FlashAttention's tiles over the lab's head, walked step by step.
    auto* flash = new FlashTilesView(session_);
    flash->setObjectName(QStringLiteral("flashTilesView"));
    pipeline_->addPage(flash, tr("Flash tiles"));

    auto* focusDock = findChild<QDockWidget*>(QStringLiteral("focusDock"));
    lessons_ =
        new LessonController(session_, documents_->recorder(),
                             {pipeline_, parameters_, compare_, lab_, focusDock, training_, flash}, this);
    connect(lessons_, &LessonController::message, this, &MainWindow::showMessage);
}

void MainWindow::createHeadsView()
{
    heads_ = new HeadsPanel;
    heads_->setObjectName(QStringLiteral("headsPanel"));
    pipeline_->addPage(heads_, tr("Heads"));
    // With one head the session computes no multi-head result: the tab shows
    // that head as one (built when the tab is on screen).
    auto oneHead = std::make_shared<OneHeadView>();
    auto show = [this, oneHead] {
        std::shared_ptr<const attn::MultiHeadResult> result = session_->published()->heads();
        if (result || !session_->published()->computed())
            oneHead->clear();
        else if (heads_->isVisible() || !isVisible())
            result = oneHead->of(session_->shownResult(), session_->published()->stats());
        // After an edit of one head's weights only that head's tile is drawn again.
        const std::optional<std::vector<int>> changed =
            session_->published()->headsChangedSince(heads_->grid()->result().get());
        heads_->setResult(result, session_->published()->labels(), session_->inputs().selectedHead,
                          changed ? &*changed : nullptr);
    };
    connect(session_, &Session::resultChanged, heads_, show);
    connect(pipeline_->tabs(), &QTabWidget::currentChanged, heads_, [this, show] {
        if (heads_->isVisible() && !heads_->result() && session_->published()->computed())
            show();
    });
    connect(heads_, &HeadsPanel::headActivated, session_, &Session::selectHead);
    heads_->setWeightsScaleMode(pipeline_->weightsScaleMode());
    connect(pipeline_, &PipelineView::weightsScaleModeChanged, heads_, &HeadsPanel::setWeightsScaleMode);
    lessons_->setHeadsPanel(heads_);
    connect(lessons_, &LessonController::focusQueryRequested, this, &MainWindow::setFocusQuery);
    // The Heads tab shows every head: a head sent ahead would only slow it.
    // (The focus panel beside it then waits for the whole result too.)
    auto wantPreview = [this] {
        QWidget* page = pipeline_->tabs()->currentWidget();
        session_->requests().setPreviewWanted(!page || !(page == heads_ || page->isAncestorOf(heads_)));
    };
    connect(pipeline_->tabs(), &QTabWidget::currentChanged, this, wantPreview);
    wantPreview();
    show();
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    documents_->addFileActions(file);
    models_->addFileActions(file);
    exports_->addFileActions(file);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setObjectName(QStringLiteral("quitAction"));
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    documents_->addEditActions(edit);
    edit->addSeparator();
    exports_->addEditActions(edit);
    edit->addSeparator();
    QAction* sentence = edit->addAction(tr("Edit the &sentence"), this, [this] {
        input_->sentenceEdit()->setFocus();
        input_->sentenceEdit()->selectAll();
    });
    sentence->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    QAction* regenerate = edit->addAction(tr("Re&generate from seed"), session_, &Session::regenerate);
    regenerate->setObjectName(QStringLiteral("regenerateAction"));
    regenerate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    regenerate->setStatusTip(tr("Redraw X, W_q, W_k and W_v from the seed, dropping hand edits."));

    createViewMenu();
}

void MainWindow::createViewMenu()
{
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
    lessons_->addViewActions(view);
    view->addSeparator();
    presentation_ = new PresentationMode(this);
    view->addAction(presentation_->action());
    QList<QDockWidget*> labDocks;
    for (const char* name : {"focusDock", "statisticsDock", "matricesDock"})
        if (auto* dock = findChild<QDockWidget*>(QLatin1String(name)))
            labDocks.append(dock);
    docksAway_ = new LabDocksAway(pipeline_->tabs(), models_->panel(), presentation_, labDocks, this);
    theme_ = new ThemeController(this);
    theme_->addMenu(view);
    view->addSeparator();
    QAction* reset = view->addAction(tr("&Reset to the article example"), documents_,
                                     &DocumentController::resetToArticleExample);
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

void MainWindow::showMessage(const QString& text, int timeout) const
{
    statusBar()->showMessage(text, timeout);
}

void MainWindow::setFocusQuery(int query)
{
    const int n = session_->published()->tokenCount();
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
    const int n = session_->published()->tokenCount();
    showFocus(n == 0 ? 0 : std::min(preferredFocus_, n - 1));
}

WindowSettings MainWindow::settings() const
{
    return WindowSettings(const_cast<MainWindow*>(this), session_, pipeline_, theme_);
}

void MainWindow::restoreSettings(const WindowStart& start)
{
    const bool defaultLayout = settings().restore(start);
    // Made smaller to fit the screen: the default docks' share of the new height.
    screenFit_->arm([this, defaultLayout] {
        if (defaultLayout)
            WindowSettings::defaultDockSizes(this);
    });
    documents_->startDocument(start);
}

void MainWindow::saveSettings() const
{
    // The lab's docks as the lab shows them, whichever tab is current.
    docksAway_->withDocksShown([this] { settings().save(); });
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    LabDocument* document = documents_->document();
    // A window that is not on screen closes under program control: nobody
    // to ask.
    if (isVisible() && !document->maybeDiscardChanges()) {
        event->ignore();
        return;
    }
    // Discard: the next start must not bring the discarded lab back (its
    // autosave goes, and so do its parameters).
    const bool discarded = isVisible() && document->isModified();
    document->closeCleanly();
    saveSettings();
    if (discarded)
        WindowSettings::forgetParameters();
    event->accept();
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // Once the docks have their final visibility.
    QMetaObject::invokeMethod(matrices_, &MatrixEditors::updateLiveness, Qt::QueuedConnection);
    // The d_k lab's curves take about a second: computed once the window is
    // up, they are there when its tab is opened.
    QTimer::singleShot(1000, lab_, &ScalingLabView::prefetch);
}

void MainWindow::hideEvent(QHideEvent* event)
{
    QMainWindow::hideEvent(event);
    matrices_->updateLiveness();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
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

QJsonObject MainWindow::viewState() const
{
    QJsonObject view;
    view.insert(QStringLiteral("focus_query"), preferredFocus_);
    view.insert(QStringLiteral("independent_ranges"), pipeline_->independentRanges());
    view.insert(QStringLiteral("maps_tab"), pipeline_->tabs()->currentIndex());
    if (models_)
        models_->saveView(&view);
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
    if (models_)
        models_->loadView(view);
}

void MainWindow::offerRecovery()
{
    documents_->offerRecovery();
}

}  // namespace attnlab
