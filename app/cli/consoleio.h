// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The command line's console: a line to stdout or stderr, an error as exactly
// one line "attention-lab: ...", and a path given on the command line (local
// 8-bit, as argv holds it), and the exit codes every run of the command line
// ends with.

#include <QString>

#include <cstdio>
#include <string>

namespace attnlab {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntimeError = 1;  // the run failed: a file not written, a model not read
inline constexpr int kExitUsageError = 2;    // the arguments were wrong; nothing was done

// `text` and a newline, flushed at once.
void printLine(std::FILE* stream, const QString& text);
// "attention-lab: " and the message on stderr, its line breaks made spaces.
void printError(const QString& message);
// printError(message), then `code`: `return fail(kExitUsageError, ...)`.
int fail(int code, const QString& message);
QString localPath(const std::string& path);

// The command line's runs (no window) print their own lines only: Qt's
// warnings and criticals (a missing or unsuitable XDG_RUNTIME_DIR, the
// offscreen plugin's notes) are dropped, a message of the program's own
// ("attention-lab: ...", as the picture exporter sends one) is printed as one
// line, and a fatal one as one line "attention-lab: Qt: ..." before Qt ends
// the run. Installed before the application is made.
void quietQtMessages();

}  // namespace attnlab
