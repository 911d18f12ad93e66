// Presentation mode and the theme, driven through the real window
// (offscreen): F11 and Esc, the layout put back byte for byte, and the
// plots' and maps' backgrounds read off what they draw.

#include "mainwindow.h"

#include "focuspanel.h"
#include "heatmapview.h"
#include "inputpanel.h"
#include "pipelineview.h"
#include "presentationmode.h"
#include "scalinglabview.h"
#include "themecontroller.h"
#include "guitest.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

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
    void presentationModeAndBack();
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

void TestScreens::presentationModeAndBack()
{
    MainWindow window;
    window.restoreSettings();
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
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
    HeatmapView* map = window.pipelineView()->rawScoresMap();
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
    QCOMPARE(window.inputPanel()->sentenceEdit()->font().pointSizeF(),
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

void TestScreens::darkThemeColoursThePlots()
{
    MainWindow window;
    window.restoreSettings();
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ThemeController* theme = window.themeController();
    QCOMPARE(theme->theme(), ThemeController::Theme::System);
    ScalingLabView* lab = window.scalingLabView();
    QCustomPlot* labPlot = lab->plot(ScalingLabView::VariancePlot);
    QCustomPlot* focusPlot = window.focusPanel()->plot();
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
    QCOMPARE(labPlot->xAxis->tickLabelColor(),
             ThemeController::darkPalette().color(QPalette::WindowText));
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
