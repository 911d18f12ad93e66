// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writes a set of files into a directory all or nothing.
//
// Every file is first written in full to a hidden staging directory inside
// the target (".attention-lab-XXXXXX", same file system), then renamed into
// place. Whatever fails (a directory that cannot be created, a full disk, a
// rename refused), the files of this call that were already moved in are
// removed again, the staging directory goes, and directories the call created
// are removed, so no half-written or partial set of files is left behind.
// A file of the same name that existed before is replaced.

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
};

attn::Status writeFilesAtomically(const QString& directory, const std::vector<OutputFile>& files);

// A file holding `bytes` as they are (a picture already encoded).
OutputFile bytesFile(std::string name, QByteArray bytes);

// One file through QSaveFile: the content goes to a temporary file beside
// `path`, which replaces `path` only once everything was written. If `write`
// leaves the stream failed, or the process dies midway, the file that was at
// `path` stays as it was.
attn::Status writeFileAtomically(const QString& path, const std::function<void(std::ostream&)>& write);
// The same for content already in memory.
attn::Status writeFileAtomically(const QString& path, const QByteArray& bytes);

}  // namespace attnlab
