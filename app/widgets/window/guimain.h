// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Starts the Qt Widgets application (QApplication, main window, event loop).

#include "windowstart.h"

#include <QString>

namespace attnlab {

// The benchmark's switches (CommandLineParser's hidden options): once the
// window has painted with its result, print "ATTNLAB_FIRST_PAINT_NS=<steady
// clock ns>" and quit, saving the window to `screenshot` first when given.
struct GuiBenchSwitches {
    bool exitAfterFirstPaint = false;
    QString screenshot;
};

int runGui(int argc, char** argv, const WindowStart& start, const GuiBenchSwitches& bench = {});

}  // namespace attnlab
