#pragma once
// The command line of attention-lab. Parses argv; prints --help / --version;
// runs the headless export (--export-dir) and reports errors on stderr with a
// non-zero status. Otherwise hands the parsed start state to the GUI.
//
// Exit status: 0 success (help, version, export written), 1 runtime error
// (the files could not be written), 2 usage error (unknown option, missing or
// invalid value). An error is one line on stderr starting "attention-lab: ".
// Qt's own window options (-platform NAME, -style NAME, -reverse, ...) are
// let through for QApplication.

#include "attention.h"
#include "model.h"

namespace attnlab {

struct CommandLineOutcome {
    bool exitNow = false;   // help, version, headless run, or bad arguments
    int exitCode = 0;
    bool haveConfig = false;  // the user gave model options for the window
    attn::ModelConfig config;
    attn::AttentionOptions options;
};

inline constexpr int kExitRuntimeError = 1;
inline constexpr int kExitUsageError = 2;

CommandLineOutcome handleCommandLine(int argc, char** argv);

}  // namespace attnlab
