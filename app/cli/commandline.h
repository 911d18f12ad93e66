// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The command line of attention-lab. Parses argv; prints --help / --version;
// runs the headless export (--export-dir) and reports errors on stderr with a
// non-zero status. Otherwise hands the parsed start state to the GUI.
//
// The start state is drawn from the model options, or comes from a saved lab
// (--open FILE.attnlab) or from matrices in .npy files (--x, --wq, --wk, --wv;
// the ones not given are drawn as usual). Headless runs (--export-dir,
// --save) compute it and write the files.
//
// Exit status: 0 success (help, version, export written), 1 runtime error
// (the files could not be written), 2 usage error (unknown option, missing or
// invalid value, an input file that cannot be read or does not fit). An error
// is one line on stderr starting "attention-lab: "; a warning about an opened
// lab is a line starting "attention-lab: warning: ".
// Qt's own window options (-platform NAME, -style NAME, -reverse, ...) are
// let through for QApplication.
//
// --preset NAME starts from one of the presets of File > Presets (the lab as
// the menu opens it); options after it change its parameters, and the
// matrices are then drawn from the seed.

#include "attention.h"
#include "consoleio.h"
#include "labfile.h"
#include "model.h"
#include "windowstart.h"

#include <QString>

namespace attnlab {

// Whether to stop now (help, version, a headless run, bad arguments) and
// with which status; otherwise the window starts from the WindowStart part.
struct CommandLineOutcome : WindowStart {
    bool exitNow = false;
    int exitCode = 0;
};

class CommandLineParser;

// Parses argv (CommandLineParser) and acts on it.
CommandLineOutcome handleCommandLine(int argc, char** argv);
// Acts on a command line parsed without error; argc and argv make the
// QCoreApplication of a headless run when there is no application yet.
CommandLineOutcome handleCommandLine(const CommandLineParser& parser, int argc, char** argv);

}  // namespace attnlab
