// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Starts the Qt Widgets application (QApplication, main window, event loop).

#include "commandline.h"

namespace attnlab {

int runGui(int argc, char** argv, const CommandLineOutcome& start);

}  // namespace attnlab
