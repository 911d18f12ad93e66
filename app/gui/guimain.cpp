#include "guimain.h"

#include "mainwindow.h"

#include <QApplication>
#include <QTimer>

namespace attnlab {

int runGui(int argc, char** argv, const CommandLineOutcome& start)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttentionLab"));
    QApplication::setApplicationName(QStringLiteral("Attention Lab"));
    QApplication::setApplicationVersion(QStringLiteral(ATTNLAB_VERSION));
    MainWindow window;
    window.restoreSettings(start);
    window.show();
    // Once the window is up: the autosave of a run that did not close.
    if (qEnvironmentVariableIntValue("ATTNLAB_EXIT_AFTER_FIRST_PAINT") != 1)
        QTimer::singleShot(0, &window, &MainWindow::offerRecovery);
    return app.exec();
}

}  // namespace attnlab
