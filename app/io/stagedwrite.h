// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writes sets of files into directories all or nothing.
//
// Every file is first written in full to a hidden staging directory inside
// its target (".attention-lab-XXXXXX", same file system). Then, before the
// first file moves, every check that can fail runs: no target is a
// directory, and each file about to be replaced gets a second name (a hard
// link, or a copy) in the staging directory. Only then are the new files
// renamed into place. Should a rename still fail, the ones already moved
// are undone from those second names: the previous files come back exactly
// as they were, and a file that did not exist before is removed. The
// staging directories and the directories the call created go too.
//
// SIGINT, SIGTERM or SIGHUP during a write (with no handler of the
// program's own) removes the staging directories, then ends the process as
// the signal would have. A process killed outright (SIGKILL) leaves its
// staging directory behind, holding a lock (QLockFile) of a process that no
// longer runs: the next write into the same directory removes it.

#include "expected.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace attnlab {

struct OutputFile {
    std::string name;                          // file name without directory
    std::function<void(std::ostream&)> write;  // writes the whole content
    // Set when the file could not be made (a picture that failed to draw):
    // the whole write fails with this message, before anything moves.
    std::string problem{};
};

struct OutputFileSet {
    QString directory;
    std::vector<OutputFile> files;
};

attn::Status writeFilesAtomically(const QString& directory, const std::vector<OutputFile>& files);
// Several directories in one transaction (an export and a saved lab): if
// any file cannot be written, none of the sets is.
attn::Status writeFileSetsAtomically(const std::vector<OutputFileSet>& sets);

// Where a file written to `path` goes: `path`, or the file a symbolic link
// there points to; an error naming a link loop or a link into a missing
// directory.
attn::Expected<QString> resolveOutputPath(const QString& path);

// Tests only: called before each rename of a staged file into place; a
// `true` makes that rename fail as a refused one would.
void setStagedRenameFaultForTests(std::function<bool(const QString& target)> fault);

// A file holding `bytes` as they are (a picture already encoded).
OutputFile bytesFile(std::string name, QByteArray bytes);

// One file through QSaveFile: the content goes to a temporary file beside
// `path`, which replaces `path` only once everything was written. If `write`
// leaves the stream failed, or the process dies midway, the file that was at
// `path` stays as it was. A symbolic link at `path` is written through (see
// resolveOutputPath).
attn::Status writeFileAtomically(const QString& path, const std::function<void(std::ostream&)>& write);
// The same for content already in memory.
attn::Status writeFileAtomically(const QString& path, const QByteArray& bytes);

}  // namespace attnlab
