#pragma once
// The command line of attention-lab. Parses argv; prints --help / --version;
// runs the headless export (--export-dir) and reports errors on stderr with a
// non-zero status. Otherwise hands the parsed start state to the GUI.

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

CommandLineOutcome handleCommandLine(int argc, char** argv);

}  // namespace attnlab
