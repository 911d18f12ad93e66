#include "guimain.h"

#include "mainwindow.h"

#include <QApplication>

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
    return app.exec();
}

}  // namespace attnlab
