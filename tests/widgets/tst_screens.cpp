// SPDX-License-Identifier: GPL-3.0-or-later
// Presentation mode and the theme, driven through the real window
// (offscreen): F11 and Esc, the layout put back byte for byte, and the
// plots' and maps' backgrounds read off what they draw.

#include "mainwindow.h"

#include "elidedlabel.h"
#include "focuspanel.h"
#include "modelsession.h"
#include "modelcontroller.h"
#include "modelpanel.h"
#include "heatmapview.h"
#include "pipelineview.h"
#include "presentationmode.h"
#include "presets.h"
#include "documentcontroller.h"
#include "scalinglabview.h"
#include "session.h"
#include "testconfigs.h"
#include "themecontroller.h"
#include "guitest.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QProcess>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <sstream>

#include <qcustomplot.h>

using namespace attnlab;

namespace {

// The colour a QCustomPlot draws in its top-left corner (outside the axes).
QColor plotCorner(QCustomPlot* plot)
{
    return plot->toPixmap(200, 150).toImage().pixelColor(2, 2);
}

}  // namespace

class TestScreens : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanup();
    void fitsSmallScreens_data();
    void fitsSmallScreens();
    void shortWindowKeepsTheMapRows_data();
    void shortWindowKeepsTheMapRows();
    void shortWindowAtScaleTwo();
    void presentationModeAndBack();
    void leavingPresentationRestoresTheWidth();
    void presentationScalesEveryText();
    void presentationModelTabFits();
    void frameFitsTheScreen_data();
    void frameFitsTheScreen();
    void frameInsideTheScreen();
    void presentationMapsKeepNumbers();
    void presentationMapsOnTheProjector();
    void darkThemeColoursThePlots();
    void themeIsRemembered();

private:
    QTemporaryDir settingsDir_;
};

void TestScreens::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("tst_screens")));
}

void TestScreens::cleanup()
{
    QSettings().clear();
}

// The widest and tallest things that set a window's minimum, for a message.
QString minimumCulprits(QWidget* root, const QSize& screen)
{
    QStringList out;
    for (QWidget* w : root->findChildren<QWidget*>()) {
        if (!w->isVisibleTo(root) || w->objectName().isEmpty())
            continue;
        const QSize min = w->minimumSizeHint().expandedTo(w->minimumSize());
        if (min.width() > screen.width() * 3 / 4 || min.height() > screen.height() * 3 / 4)
            out << QStringLiteral("%1 %2x%3").arg(w->objectName()).arg(min.width()).arg(min.height());
    }
    return out.join(QStringLiteral(", "));
}

void TestScreens::fitsSmallScreens_data()
{
    QTest::addColumn<QSize>("screen");
    QTest::newRow("1024x700") << QSize(1024, 700);
    QTest::newRow("1280x720 projector") << QSize(1280, 720);
}

// At first start (no saved settings) the window fits a small screen: its
// minimum is no larger than the screen, so nothing runs off an edge, and the
// maps keep a usable size.
void TestScreens::fitsSmallScreens()
{
    QFETCH(QSize, screen);
    MainWindow window;
    window.restoreSettings();
    window.resize(screen);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(50);
    const QSize min = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(min.width() <= screen.width() && min.height() <= screen.height(),
             qPrintable(QStringLiteral("minimum %1x%2; %3")
                            .arg(min.width())
                            .arg(min.height())
                            .arg(minimumCulprits(&window, screen))));
    QCOMPARE(window.size(), screen);
    HeatmapView* map = guitest::find<HeatmapView>(window, QStringLiteral("rawScoresMap"));
    QVERIFY2(map->width() >= 200 && map->height() >= 100,
             qPrintable(QStringLiteral("map %1x%2").arg(map->width()).arg(map->height())));
    QVERIFY(map->isVisible());
}

void TestScreens::shortWindowKeepsTheMapRows_data()
{
    QTest::addColumn<QSize>("window");
    QTest::addColumn<bool>("numbers");  // the score maps print their cells' values
    QTest::newRow("1024x700") << QSize(1024, 700) << false;
    // Also 2560x1440 at scale 2, in shortWindowAtScaleTwo.
    // The scaled scores drop their decimal to fit a third of 1280.
    QTest::newRow("1280x720") << QSize(1280, 720) << true;
    QTest::newRow("1920x1080") << QSize(1920, 1080) << true;
}

// At first start the default dock sizes leave the maps their rows: the
// pipeline page does not scroll, every row of the score maps is in view, and
// at 1920x1080 the three score maps print their numbers.
void TestScreens::shortWindowKeepsTheMapRows()
{
    QFETCH(QSize, window);
    QFETCH(bool, numbers);
    const std::unique_ptr<MainWindow> shown = guitest::shownWindow<MainWindow>(window);
    QVERIFY(shown);
    QTest::qWait(50);
    PipelineView* pipeline = guitest::find<PipelineView>(*shown, QStringLiteral("pipelineView"));
    auto* scroll = guitest::find<QScrollArea>(*pipeline, QStringLiteral("pipelinePageScroll"));
    QVERIFY2(!scroll->verticalScrollBar()->isVisible(),
             qPrintable(QStringLiteral("page %1 high in a viewport of %2")
                            .arg(scroll->widget()->height())
                            .arg(scroll->viewport()->height())));
    for (HeatmapView* map : {pipeline->rawScoresMap(), pipeline->scaledScoresMap(), pipeline->weightsMap()}) {
        QVERIFY2(scroll->viewport()->rect().contains(QRect(
                     map->mapTo(scroll->viewport(), map->cellsArea().topLeft()), map->cellsArea().size())),
                 qPrintable(map->objectName()));
        if (numbers)
            QVERIFY2(map->cellTextVisible(), qPrintable(QStringLiteral("%1: cells %2x%3")
                                                            .arg(map->objectName())
                                                            .arg(map->cellRect(0, 0).width())
                                                            .arg(map->cellRect(0, 0).height())));
    }
    // The initialisation note ends in "…" where the window is too narrow
    // for it (its tooltip explains), and is whole where it fits.
    auto* initNote = guitest::find<ElidedLabel>(*shown, QStringLiteral("initNoteLabel"));
    QVERIFY(initNote->text().contains(QStringLiteral("assumes unit variance")));
    if (window.width() <= 1024)
        QVERIFY(initNote->elided());
    if (window.width() >= 1920)
        QVERIFY(!initNote->elided());
    QVERIFY(!initNote->toolTip().isEmpty());
    // The focused query's plot is whole in its dock (the vectors' column
    // beside it scrolls on its own). Not checked in the child run at scale 2,
    // whose offscreen screen is too narrow for the docks side by side.
    if (qEnvironmentVariableIsSet("QT_SCALE_FACTOR"))
        return;
    auto* focusScroll = guitest::find<QScrollArea>(*shown, QStringLiteral("focusScroll"));
    QWidget* plot = guitest::find<QCustomPlot>(*shown, QStringLiteral("focusPlot"));
    const QRect plotRect(plot->mapTo(focusScroll->viewport(), QPoint(0, 0)), plot->size());
    QVERIFY2(focusScroll->viewport()->rect().contains(plotRect),
             qPrintable(QStringLiteral("plot at %1,%2 %3x%4 in a viewport of %5x%6")
                            .arg(plotRect.x())
                            .arg(plotRect.y())
                            .arg(plotRect.width())
                            .arg(plotRect.height())
                            .arg(focusScroll->viewport()->width())
                            .arg(focusScroll->viewport()->height())));
    // Its axis labels, centred on the axis rectangle's sides, are inside the
    // plot (its edges clip them), and its key labels are no closer than
    // their line height: at 1024x700 the rectangle is about 60 pixels wide.
    // The same with 300 keys, whose bars stand for several keys each.
    for (const int tokens : {0, 300}) {
        if (tokens > 0) {
            attn::ModelConfig config = shown->session()->inputs().config;
            config.sentence = testconfigs::numberedSentence(tokens);
            QSignalSpy results(shown->session(), &Session::resultChanged);
            shown->session()->setParameters(config, shown->session()->inputs().options,
                                            shown->session()->inputs().heads);
            QVERIFY(results.count() > 0 || results.wait(30000));
            QTest::qWait(50);
        }
        auto* focusPlot = qobject_cast<QCustomPlot*>(plot);
        QVERIFY(focusPlot);
        QTRY_VERIFY(focusPlot->axisRect()->width() > 0);
        QCPAxisRect* rect = focusPlot->axisRect();
        const QFontMetrics labelMetrics(focusPlot->xAxis->labelFont());
        const QPoint centre = rect->rect().center();
        const int xLabel = labelMetrics.horizontalAdvance(focusPlot->xAxis->label());
        QVERIFY2(centre.x() - xLabel / 2 >= 0 && centre.x() + xLabel / 2 <= focusPlot->width(),
                 qPrintable(focusPlot->xAxis->label()));
        for (QCPAxis* axis : {focusPlot->yAxis, focusPlot->yAxis2}) {
            const int yLabel = labelMetrics.horizontalAdvance(axis->label());
            QVERIFY2(centre.y() - yLabel / 2 >= 0 && centre.y() + yLabel / 2 <= focusPlot->height(),
                     qPrintable(axis->label()));
        }
        const auto ticker = focusPlot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        const QList<double> keys = ticker->ticks().keys();
        QVERIFY(!keys.isEmpty());
        const QFontMetrics tickMetrics(focusPlot->xAxis->tickLabelFont());
        for (int t = 1; t < keys.size(); ++t) {
            const double apart =
                focusPlot->xAxis->coordToPixel(keys[t]) - focusPlot->xAxis->coordToPixel(keys[t - 1]);
            QVERIFY2(apart >= tickMetrics.height(), qPrintable(QStringLiteral("%1 px apart").arg(apart)));
        }
    }
}

// QT_SCALE_FACTOR is read once per process: the 1280x720 case again in a
// child run of this suite at scale 2, as on a 2560x1440 screen.
void TestScreens::shortWindowAtScaleTwo()
{
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_SCALE_FACTOR"), QStringLiteral("2"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(),
                {QStringLiteral("shortWindowKeepsTheMapRows:1280x720")});
    QVERIFY(child.waitForFinished(120000));
    const QByteArray output = child.readAll();
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, output.constData());
    QVERIFY2(output.contains("PASS   : TestScreens::shortWindowKeepsTheMapRows(1280x720)"),
             output.constData());
}

void TestScreens::presentationModeAndBack()
{
    const std::unique_ptr<MainWindow> shown = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(shown);
    MainWindow& window = *shown;
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::qWait(50);
    const QRect geometry = window.geometry();
    const QFont font = window.font();
    QStringList shownDocks;
    for (QDockWidget* dock : window.findChildren<QDockWidget*>())
        if (dock->isVisible())
            shownDocks << dock->objectName();
    QVERIFY(shownDocks.contains("focusDock"));
    HeatmapView* map = guitest::find<HeatmapView>(window, QStringLiteral("rawScoresMap"));
    const int mapHeight = map->height();
    const int focusHeight = window.findChild<QDockWidget*>("focusDock")->height();

    QTest::keyClick(&window, Qt::Key_F11);
    PresentationMode* mode = window.presentationMode();
    QVERIFY(mode->isActive());
    QVERIFY(mode->action()->isChecked());
    QVERIFY(window.windowState() & Qt::WindowFullScreen);
    for (QDockWidget* dock : window.findChildren<QDockWidget*>())
        QVERIFY2(!dock->isVisible(), qPrintable(dock->objectName()));
    QVERIFY(!window.statusBar()->isVisible());
    QCOMPARE(window.font().pointSizeF(), font.pointSizeF() * PresentationMode::kFontScale);
    QCOMPARE(guitest::find<QLineEdit>(window, QStringLiteral("sentenceEdit"))->font().pointSizeF(),
             font.pointSizeF() * PresentationMode::kFontScale);
    // The docks' room goes to the maps.
    QTRY_VERIFY(map->height() > mapHeight);

    QTest::keyClick(&window, Qt::Key_Escape);
    QVERIFY(!mode->isActive());
    QVERIFY(!mode->action()->isChecked());
    QTRY_VERIFY(!(window.windowState() & Qt::WindowFullScreen));
    // Position and height as before; the width can stay larger where a view
    // keeps the wider columns it grew for the larger font (FocusPanel).
    QTRY_COMPARE(window.geometry().height(), geometry.height());
    QVERIFY(window.geometry().width() >= geometry.width());
    auto* focusDock = window.findChild<QDockWidget*>("focusDock");
    QTRY_COMPARE(focusDock->height(), focusHeight);
    QStringList shownAfter;
    for (QDockWidget* dock : window.findChildren<QDockWidget*>())
        if (dock->isVisible())
            shownAfter << dock->objectName();
    QCOMPARE(shownAfter, shownDocks);
    QVERIFY(window.statusBar()->isVisible());
    QCOMPARE(window.font(), font);
    QVERIFY(!window.testAttribute(Qt::WA_SetFont));
    QTRY_COMPARE(map->height(), mapHeight);

    // From the View menu's action as well, and F11 leaves too.
    mode->action()->trigger();
    QVERIFY(mode->isActive());
    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(!mode->isActive());
    QTRY_COMPARE(window.findChild<QDockWidget*>("focusDock")->height(), focusHeight);
    // Esc outside presentation mode is no shortcut of the window.
    QVERIFY(!window.findChild<QAction*>("leavePresentationAction")->isEnabled());
}

void TestScreens::leavingPresentationRestoresTheWidth()
{
    // The focused query's table grows its columns for the larger font; back
    // in the normal font they are measured again, so that the panel and the
    // window return to their sizes from before.
    const std::unique_ptr<MainWindow> shown = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(shown);
    MainWindow& window = *shown;
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::qWait(50);
    const QRect geometry = window.geometry();
    auto* panel = window.findChild<FocusPanel*>();
    QVERIFY(panel);
    QHeaderView* header = guitest::find<QTableView>(*panel, QStringLiteral("focusTable"))->horizontalHeader();
    QList<int> columns;
    for (int c = 0; c < header->count(); ++c)
        columns << header->sectionSize(c);
    const int panelWidth = panel->width();

    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(window.presentationMode()->isActive());
    QTRY_VERIFY(header->sectionSize(1) > columns[1]);  // wider digits
    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(!window.presentationMode()->isActive());
    QTRY_VERIFY(!(window.windowState() & Qt::WindowFullScreen));
    // Measured afresh for the numbers shown: no wider than before (before,
    // they may have kept the width of earlier numbers).
    for (int c = 0; c < header->count(); ++c)
        QVERIFY2(
            header->sectionSize(c) <= columns[c],
            qPrintable(
                QStringLiteral("column %1: %2, was %3").arg(c).arg(header->sectionSize(c)).arg(columns[c])));
    QTRY_COMPARE(window.geometry().size(), geometry.size());
    QTRY_COMPARE(panel->width(), panelWidth);
}

// Every text of the window grows with presentation mode's font: the maps'
// labels and numbers (drawn in the map's font), the d_k row, the tables,
// the titles; a view's font that was fixed when it was built (a title 1.25
// times the font of then) or cut off by a style sheet stayed at 11 px.
void TestScreens::presentationScalesEveryText()
{
    const std::unique_ptr<MainWindow> shown = guitest::shownWindow<MainWindow>(QSize(1280, 720));
    QVERIFY(shown);
    MainWindow& window = *shown;
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::qWait(50);
    QHash<QWidget*, double> before;
    for (QWidget* w : window.findChildren<QWidget*>())
        if (w->window() == &window)
            before.insert(w, QFontInfo(w->font()).pixelSize());
    const char* const named[] = {"rawScoresMap", "scaledScoresMap", "weightsMap", "dKSpin",
                                 "dKSlider",     "sentenceEdit",    "focusTable", "modelShowButton"};
    for (const char* name : named)
        QVERIFY2(window.findChild<QWidget*>(QLatin1String(name)), name);

    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(window.presentationMode()->isActive());
    QStringList unscaled;
    for (auto it = before.cbegin(); it != before.cend(); ++it) {
        QWidget* w = it.key();
        const int now = QFontInfo(w->font()).pixelSize();
        // 1.4 times, to the pixel the font rounds to.
        if (std::abs(now - it.value() * PresentationMode::kFontScale) > 1.0)
            unscaled << QStringLiteral("%1 (%2) %3 -> %4 px")
                            .arg(w->objectName(), QLatin1String(w->metaObject()->className()))
                            .arg(it.value())
                            .arg(now);
    }
    unscaled.removeDuplicates();
    QVERIFY2(unscaled.isEmpty(), qPrintable(unscaled.join(QStringLiteral("; "))));
    for (const char* name : named) {
        QWidget* w = window.findChild<QWidget*>(QLatin1String(name));
        QVERIFY2(QFontInfo(w->font()).pixelSize() >= 15, name);
    }
}

// The Model tab in presentation mode at 1280x720: no horizontal scroll bar
// (the "Show layer 1 head 1 in the pipeline" button whole, a long folder
// name elided), and the key column of the last token's weights as wide as
// its pieces at the larger font (it kept the normal font's widths: "␣sh…").
void TestScreens::presentationModelTabFits()
{
    const std::unique_ptr<MainWindow> shown = guitest::shownWindow<MainWindow>(QSize(1280, 720));
    QVERIFY(shown);
    MainWindow& window = *shown;
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    // A long folder name, as a user's downloads have.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder =
        dir.filePath(QStringLiteral("a-gpt2-checkpoint-downloaded-into-a-folder-with-a-long-name"));
    QVERIFY(QDir().mkpath(folder));
    for (const QString& name :
         QDir(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2")).entryList(QDir::Files))
        QVERIFY(QFile::copy(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2/") + name,
                            folder + QLatin1Char('/') + name));
    ModelSession* model = window.models()->session();
    QSignalSpy opened(model, &ModelSession::modelOpened);
    window.models()->openModel(folder);
    QVERIFY(opened.wait(10000));
    QTRY_VERIFY(model->result() && !model->isComputing());
    ModelPanel* panel = window.models()->panel();
    PipelineView* pipeline = guitest::find<PipelineView>(window, QStringLiteral("pipelineView"));
    pipeline->showPage(panel);
    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(window.presentationMode()->isActive());
    QTest::qWait(100);
    auto* scroll = guitest::find<QScrollArea>(window, QStringLiteral("modelPanelScroll"));
    QTRY_VERIFY2(!scroll->horizontalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("page %1 wide in %2")
                                .arg(scroll->widget()->width())
                                .arg(scroll->viewport()->width())));
    auto* button = guitest::find<QPushButton>(*panel, QStringLiteral("modelShowButton"));
    QVERIFY(scroll->viewport()->rect().contains(
        QRect(button->mapTo(scroll->viewport(), QPoint(0, 0)), button->size())));
    auto* table = guitest::find<QTableWidget>(*panel, QStringLiteral("modelLastRowTable"));
    QVERIFY(table->rowCount() > 0);
    const QFontMetrics fm(table->font());
    for (int row = 0; row < table->rowCount(); ++row) {
        const QString key = table->item(row, 0)->text();
        QVERIFY2(table->columnWidth(0) >= fm.horizontalAdvance(key),
                 qPrintable(QStringLiteral("%1: %2 px wide in %3")
                                .arg(key)
                                .arg(fm.horizontalAdvance(key))
                                .arg(table->columnWidth(0))));
    }
    QVERIFY(table->verticalHeader()->defaultSectionSize() >= fm.height());
}

void TestScreens::frameFitsTheScreen_data()
{
    QTest::addColumn<QSize>("screen");  // in device pixels
    QTest::addColumn<int>("scale");
    QTest::newRow("1024x700") << QSize(1024, 700) << 1;
    QTest::newRow("1280x720 projector") << QSize(1280, 720) << 1;
    QTest::newRow("2560x1440 at 2x") << QSize(2560, 1440) << 2;
}

// At first start the window's frame, title bar included, is inside the
// screen's available geometry, so that the status bar is on screen. Run in a
// child of this suite on an offscreen screen of that size whose windows
// have a frame (a 23-pixel title bar), as QT_SCALE_FACTOR is read once.
void TestScreens::frameFitsTheScreen()
{
    QFETCH(QSize, screen);
    QFETCH(int, scale);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QStringLiteral("{\"windowFrameMargins\": true, \"screens\": [{\"name\": \"projector\", "
                              "\"x\": 0, \"y\": 0, \"width\": %1, \"height\": %2, \"logicalDpi\": 96, "
                              "\"logicalBaseDpi\": 96, \"dpr\": 1}]}")
                   .arg(screen.width())
                   .arg(screen.height())
                   .toUtf8());
    file.close();
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen:configfile=") + config);
    env.insert(QStringLiteral("QT_SCALE_FACTOR"), QString::number(scale));
    env.insert(QStringLiteral("ATTNLAB_FRAME_CHILD"), QStringLiteral("1"));
    // 1280 logical pixels wide: the score maps print their numbers (at 1024
    // they are too narrow for them, see shortWindowKeepsTheMapRows).
    if (screen.width() / scale >= 1280)
        env.insert(QStringLiteral("ATTNLAB_FRAME_NUMBERS"), QStringLiteral("1"));
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("frameInsideTheScreen")});
    QVERIFY(child.waitForFinished(120000));
    const QByteArray output = child.readAll();
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, output.constData());
    QVERIFY2(output.contains("PASS   : TestScreens::frameInsideTheScreen()"), output.constData());
}

void TestScreens::frameInsideTheScreen()
{
    if (!qEnvironmentVariableIsSet("ATTNLAB_FRAME_CHILD"))
        QSKIP("run by frameFitsTheScreen on a screen of its own");
    MainWindow window;
    window.restoreSettings();
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QRect available = window.screen()->availableGeometry();
    const auto describe = [&] {
        const QRect f = window.frameGeometry();
        const QSize min = window.minimumSize();
        return QStringLiteral("frame %1,%2 %3x%4 on %5x%6 (minimum %7x%8)")
            .arg(f.x())
            .arg(f.y())
            .arg(f.width())
            .arg(f.height())
            .arg(available.width())
            .arg(available.height())
            .arg(min.width())
            .arg(min.height());
    };
    QVERIFY(window.frameGeometry().top() < window.geometry().top());  // a title bar
    QTRY_VERIFY2(available.contains(window.frameGeometry()), qPrintable(describe()));
    QStatusBar* status = window.statusBar();
    QVERIFY(status->isVisible());
    QVERIFY2(available.contains(QRect(status->mapToGlobal(QPoint(0, 0)), status->size())),
             qPrintable(describe()));
    // The maps still have their rows in view, label every one and keep
    // their numbers.
    PipelineView* pipeline = guitest::find<PipelineView>(window, QStringLiteral("pipelineView"));
    auto* scroll = guitest::find<QScrollArea>(*pipeline, QStringLiteral("pipelinePageScroll"));
    QTRY_VERIFY2(!scroll->verticalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("page %1 high in a viewport of %2; %3")
                                .arg(scroll->widget()->height())
                                .arg(scroll->viewport()->height())
                                .arg(describe())));
    for (HeatmapView* map : {pipeline->rawScoresMap(), pipeline->weightsMap()}) {
        if (qEnvironmentVariableIsSet("ATTNLAB_FRAME_NUMBERS"))
            QVERIFY2(map->cellTextVisible(), qPrintable(map->objectName() + QLatin1Char(' ') + describe()));
        QVERIFY2(map->rowLabelStep() == 1, qPrintable(map->objectName() + QLatin1Char(' ') + describe()));
    }
}

// Presentation mode on a 1280x720 projector with the lesson's cinema
// sentence (11 tokens): the three score maps keep their numbers. Run in a
// child of this suite on an offscreen screen of that size, since full screen
// takes the screen's size.
void TestScreens::presentationMapsKeepNumbers()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        "{\"screens\": [{\"name\": \"projector\", \"x\": 0, \"y\": 0, \"width\": 1280, "
        "\"height\": 720, \"logicalDpi\": 96, \"logicalBaseDpi\": 96, \"dpr\": 1}]}");
    file.close();
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen:configfile=") + config);
    env.insert(QStringLiteral("ATTNLAB_PROJECTOR_CHILD"), QStringLiteral("1"));
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("presentationMapsOnTheProjector")});
    QVERIFY(child.waitForFinished(120000));
    const QByteArray output = child.readAll();
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, output.constData());
    QVERIFY2(output.contains("PASS   : TestScreens::presentationMapsOnTheProjector()"), output.constData());
}

void TestScreens::presentationMapsOnTheProjector()
{
    if (!qEnvironmentVariableIsSet("ATTNLAB_PROJECTOR_CHILD"))
        QSKIP("run by presentationMapsKeepNumbers on a screen of its own");
    MainWindow window;
    window.restoreSettings();
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QSignalSpy results(window.session(), &Session::resultChanged);
    QVERIFY(window.documents()->openPreset(presetPath(QStringLiteral("cinema"))));
    QVERIFY(results.count() > 0 || results.wait(10000));
    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(window.presentationMode()->isActive());
    QTRY_COMPARE(window.size(), QSize(1280, 720));
    QTest::qWait(100);
    PipelineView* pipeline = guitest::find<PipelineView>(window, QStringLiteral("pipelineView"));
    auto* scroll = guitest::find<QScrollArea>(*pipeline, QStringLiteral("pipelinePageScroll"));
    for (HeatmapView* map : {pipeline->rawScoresMap(), pipeline->scaledScoresMap(), pipeline->weightsMap()}) {
        QCOMPARE(map->rowCount(), 11);
        const QString describe = QStringLiteral("%1 %2x%3: cells %4x%5, area %6x%7")
                                     .arg(map->objectName())
                                     .arg(map->width())
                                     .arg(map->height())
                                     .arg(map->cellRect(0, 0).width())
                                     .arg(map->cellRect(0, 0).height())
                                     .arg(map->cellsArea().width())
                                     .arg(map->cellsArea().height());
        QVERIFY2(map->cellTextVisible(), qPrintable(describe));
        QVERIFY2(scroll->viewport()->rect().contains(QRect(
                     map->mapTo(scroll->viewport(), map->cellsArea().topLeft()), map->cellsArea().size())),
                 qPrintable(describe));
        // In one layout: the query labels once, left of the raw scores,
        // every one, and the rows of the three maps at the same heights.
        QCOMPARE(map->rowLabelStep(), map == pipeline->rawScoresMap() ? 1 : 0);
        for (int row = 0; row < map->rowCount(); ++row)
            QCOMPARE(map->mapTo(&window, map->cellRect(row, 0).topLeft()).y(),
                     pipeline->rawScoresMap()
                         ->mapTo(&window, pipeline->rawScoresMap()->cellRect(row, 0).topLeft())
                         .y());
    }
    // Back out of presentation mode, with the docks taking their height,
    // the maps lay out as usual again.
    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(!window.presentationMode()->isActive());
    for (HeatmapView* map : {pipeline->rawScoresMap(), pipeline->scaledScoresMap(), pipeline->weightsMap()})
        QTRY_VERIFY(map->compactLayout() == CompactLayout::Off);
}

void TestScreens::darkThemeColoursThePlots()
{
    MainWindow window;
    window.restoreSettings();
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ThemeController* theme = window.themeController();
    QCOMPARE(theme->theme(), ThemeController::Theme::System);
    ScalingLabView* lab = guitest::find<ScalingLabView>(window, QStringLiteral("scalingLabView"));
    QCustomPlot* labPlot = lab->plot(ScalingLabView::VariancePlot);
    QCustomPlot* focusPlot = guitest::find<QCustomPlot>(window, QStringLiteral("focusPlot"));
    QVERIFY(plotCorner(labPlot).lightness() > 200);
    QVERIFY(plotCorner(focusPlot).lightness() > 200);

    window.findChild<QAction*>("theme_darkAction")->trigger();
    QCOMPARE(theme->theme(), ThemeController::Theme::Dark);
    QVERIFY(ThemeController::isDark(QApplication::palette()));
    QCoreApplication::processEvents();
    // Background brush and the pixels drawn.
    QCOMPARE(labPlot->axisRect()->backgroundBrush().color(),
             ThemeController::darkPalette().color(QPalette::Base));
    QCOMPARE(plotCorner(labPlot), ThemeController::darkPalette().color(QPalette::Base));
    QCOMPARE(plotCorner(lab->plot(ScalingLabView::GradientPlot)),
             ThemeController::darkPalette().color(QPalette::Base));
    QVERIFY(plotCorner(focusPlot).lightness() < 60);
    QCOMPARE(labPlot->xAxis->tickLabelColor(), ThemeController::darkPalette().color(QPalette::WindowText));
    // Pictures stay light for slides and print.
    const auto files = lab->imageFiles({"png"}, QSize(300, 200));
    QVERIFY(files.ok());
    std::ostringstream png;
    files->front().write(png);
    const QImage picture = QImage::fromData(QByteArray::fromStdString(png.str()), "PNG");
    QCOMPARE(picture.pixelColor(2, 2), QColor(Qt::white));
    QCOMPARE(plotCorner(labPlot), ThemeController::darkPalette().color(QPalette::Base));

    window.findChild<QAction*>("theme_lightAction")->trigger();
    QCoreApplication::processEvents();
    QVERIFY(plotCorner(labPlot).lightness() > 200);
    QVERIFY(plotCorner(focusPlot).lightness() > 200);
    window.findChild<QAction*>("theme_systemAction")->trigger();
    QVERIFY(window.findChild<QAction*>("theme_systemAction")->isChecked());
}

void TestScreens::themeIsRemembered()
{
    {
        MainWindow window;
        window.restoreSettings();
        window.themeController()->setTheme(ThemeController::Theme::Dark);
    }
    QCOMPARE(QSettings().value("view/theme").toString(), QString("dark"));
    MainWindow again;
    again.restoreSettings();
    QCOMPARE(again.themeController()->theme(), ThemeController::Theme::Dark);
    QVERIFY(again.findChild<QAction*>("theme_darkAction")->isChecked());
    QVERIFY(ThemeController::isDark(QApplication::palette()));
    again.themeController()->setTheme(ThemeController::Theme::System);
    QVERIFY(!ThemeController::isDark(QApplication::palette()));
    QCOMPARE(QSettings().value("view/theme").toString(), QString("system"));
}

QTEST_MAIN(TestScreens)
#include "tst_screens.moc"
