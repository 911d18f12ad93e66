// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The command line's console: a line to stdout or stderr, an error as exactly
// one line "attention-lab: ...", and a path given on the command line (local
// 8-bit, as argv holds it).

#include <QString>

#include <cstdio>
#include <string>

namespace attnlab {

// `text` and a newline, flushed at once.
void printLine(std::FILE* stream, const QString& text);
// "attention-lab: " and the message on stderr, its line breaks made spaces.
void printError(const QString& message);
QString localPath(const std::string& path);

}  // namespace attnlab
