// Placeholder until the main window lands.
#include "guimain.h"

#include <QApplication>
#include <QMainWindow>

namespace attnlab {

int runGui(int argc, char** argv, const CommandLineOutcome&)
{
    QApplication app(argc, argv);
    QMainWindow window;
    window.show();
    return app.exec();
}

}  // namespace attnlab
