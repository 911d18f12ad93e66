#include "mainwindow.h"

#include "focuspanel.h"
#include "heatmapview.h"
#include "inputpanel.h"
#include "matrixtablemodel.h"
#include "parameterpanel.h"
#include "parametersettings.h"
#include "pipelineview.h"
#include "scaling_lab.h"
#include "scalingcompareview.h"
#include "scalinglabview.h"
#include "statisticspanel.h"
#include "tokenstrip.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace attnlab {

namespace {

QDockWidget* makeDock(const QString& title, const QString& name, QWidget* content,
                      QWidget* parent)
{
    auto* dock = new QDockWidget(title, parent);
    dock->setObjectName(name);
    dock->setWidget(content);
    return dock;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), session_(new Session(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Attention Lab"));

    input_ = new InputPanel(session_, this);
    input_->setObjectName(QStringLiteral("inputPanel"));
    pipeline_ = new PipelineView(session_, this);
    pipeline_->setObjectName(QStringLiteral("pipelineView"));
    auto* central = new QWidget(this);
    central->setObjectName(QStringLiteral("centralArea"));
    auto* layout = new QVBoxLayout(central);
    parameters_ = new ParameterPanel(session_, this);
    parameters_->setObjectName(QStringLiteral("parameterPanel"));
    layout->addWidget(input_);
    layout->addWidget(parameters_);
    layout->addWidget(pipeline_, 1);
    setCentralWidget(central);

    createDocks();
    createScalingLabViews();
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
    for (QObject* watched : std::initializer_list<QObject*>{
             pipeline_->rawScoresMap(), pipeline_->scaledScoresMap(), pipeline_->weightsMap(),
             pipeline_->queryMap(), pipeline_->contextMap(), input_->tokenStrip(), focus_})
        watched->installEventFilter(this);

    setFocusQuery(preferredFocus_);
    statusBar()->showMessage(tr("Hover a cell for its numbers; click a row or a token to focus "
                                "a query; Up/Down move the focus."));
}

void MainWindow::createDocks()
{
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);

    focus_ = new FocusPanel(session_);
    focus_->setObjectName(QStringLiteral("focusPanel"));
    auto* focusDock = makeDock(tr("Focused query"), QStringLiteral("focusDock"), focus_, this);
    addDockWidget(Qt::BottomDockWidgetArea, focusDock);

    // Beside the maps, below them: the three maps need the window's width.
    statistics_ = new StatisticsPanel(session_);
    statistics_->setObjectName(QStringLiteral("statisticsPanel"));
    auto* statisticsDock =
        makeDock(tr("Statistics"), QStringLiteral("statisticsDock"), statistics_, this);
    addDockWidget(Qt::BottomDockWidgetArea, statisticsDock);
    splitDockWidget(focusDock, statisticsDock, Qt::Horizontal);

    auto* matrixTabs = new QTabWidget;
    matrixTabs->setObjectName(QStringLiteral("matrixTabs"));
    const struct {
        MatrixId id;
        QString name;
        QString title;
        QString tip;
    } matrices[] = {
        {MatrixId::X, QStringLiteral("X"), tr("&X (embeddings)"),
         tr("The embeddings: one row per token, d_model columns. Type a value to edit.")},
        {MatrixId::Wq, QStringLiteral("Wq"), tr("W_&q"),
         tr("Query weights (d_model × d_k): Q = X W_q. Type a value to edit.")},
        {MatrixId::Wk, QStringLiteral("Wk"), tr("W_&k"),
         tr("Key weights (d_model × d_k): K = X W_k. Type a value to edit.")},
        {MatrixId::Wv, QStringLiteral("Wv"), tr("W_&v"),
         tr("Value weights (d_model × d_v): V = X W_v. Type a value to edit.")},
    };
    for (const auto& m : matrices) {
        auto* model = new MatrixTableModel(session_, m.id, this);
        model->setObjectName(QStringLiteral("matrixModel") + m.name);
        matrixModels_.append(model);
        auto* view = new QTableView;
        view->setObjectName(QStringLiteral("matrixTable") + m.name);
        view->setModel(model);
        view->setToolTip(m.tip);
        view->horizontalHeader()->setDefaultSectionSize(
            view->fontMetrics().horizontalAdvance(QStringLiteral("-0.00000")) + 12);
        view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
        view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                              | QAbstractItemView::AnyKeyPressed);
        matrixTabs->addTab(view, m.title);
    }
    auto* matricesDock =
        makeDock(tr("Matrices"), QStringLiteral("matricesDock"), matrixTabs, this);
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
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setObjectName(QStringLiteral("quitAction"));
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* sentence = edit->addAction(tr("Edit the &sentence"), this, [this] {
        input_->sentenceEdit()->setFocus();
        input_->sentenceEdit()->selectAll();
    });
    sentence->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    QAction* regenerate = edit->addAction(tr("&Regenerate from seed"), session_, &Session::regenerate);
    regenerate->setObjectName(QStringLiteral("regenerateAction"));
    regenerate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    regenerate->setStatusTip(tr("Redraw X, W_q, W_k and W_v from the seed, dropping hand edits."));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    independentRanges_ = view->addAction(tr("&Independent colour ranges"));
    independentRanges_->setObjectName(QStringLiteral("independentRangesAction"));
    independentRanges_->setCheckable(true);
    independentRanges_->setStatusTip(tr("Give raw and scaled scores each their own colour range."));
    connect(independentRanges_, &QAction::toggled, pipeline_, &PipelineView::setIndependentRanges);
    connect(pipeline_, &PipelineView::independentRangesChanged, independentRanges_,
            &QAction::setChecked);
    QAction* previous = view->addAction(tr("&Previous query"), this,
                                        [this] { setFocusQuery(focusQuery_ - 1); });
    previous->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
    QAction* next = view->addAction(tr("&Next query"), this,
                                    [this] { setFocusQuery(focusQuery_ + 1); });
    next->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    addScalingLabActions(view);
    view->addSeparator();
    QAction* reset = view->addAction(tr("Reset to the &article example"), this,
                                     &MainWindow::resetToArticleExample);
    reset->setObjectName(QStringLiteral("resetAction"));
    reset->setStatusTip(tr("\"%1\", seed 123, d_model 16, d_k 24, d_v 28, article "
                           "initialisation, as in Raschka's walk-through.")
                            .arg(QString::fromLatin1(attn::kArticleSentence)));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(reset);
    help->addSeparator();
    help->addAction(tr("&About Attention Lab"), this, &MainWindow::showAbout)
        ->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)
        ->setMenuRole(QAction::AboutQtRole);
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
    session_->setParameters(attn::ModelConfig(), attn::AttentionOptions());
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
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) {
        const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1400, 900);
        resize(std::min(1400, available.width()), std::min(900, available.height()));
    }
    if (!restoreState(settings.value(QStringLiteral("window/state")).toByteArray()))
        defaultDockSizes();
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    saveParameters(settings, session_->config(), session_->options());
    settings.setValue(QStringLiteral("view/independentRanges"), pipeline_->independentRanges());
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveSettings();
    event->accept();
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
    QMessageBox::about(
        this, tr("About Attention Lab"),
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
    // Runs its Monte Carlo curves in the background when first shown.
    lab_ = new ScalingLabView;
    lab_->setObjectName(QStringLiteral("scalingLabView"));
    pipeline_->addPage(lab_, tr("d_k l&ab"));

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
    lessonMode->setStatusTip(tr("A guided walk through softmax(Q Kᵀ / √d_k) V, one highlighted "
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

    connect(parameters_, &ParameterPanel::scalingDemoRequested, this,
            &MainWindow::startScalingDemo);
    connect(session_, &Session::resultChanged, this, &MainWindow::updateScalingViews);
    updateScalingViews();
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
    // The comparison is the core's; the views only draw it.
    const attn::ScalingComparison comparison = attn::compareScaling(session_->result());
    compare_->setInitMode(session_->config().init);
    compare_->setData(comparison, session_->tokens());
    lesson_->setLiveComparison(comparison);
    lab_->setCurrentDk(session_->resultDK());
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
        pipeline_->setHighlightedMap(nullptr);
        pipeline_->showPage(compare_);
        parameters_->dKSlider()->setFocus(Qt::OtherFocusReason);
        break;
    }
}

void MainWindow::clearLessonHighlight()
{
    pipeline_->setHighlightedMap(nullptr);
    parameters_->setDkHighlighted(false);
}

}  // namespace attnlab
