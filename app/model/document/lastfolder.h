// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a file dialog starts: the folder last chosen in a dialog of the same
// use, kept in QSettings, while it still exists; the home folder before
// the first choice. Exports (pictures, numbers, frames, curves) share one
// folder ("export/directory", as the picture export always kept it); labs,
// imported matrices and module states another ("files/directory").

#include <QString>

namespace attnlab {

enum class FolderUse { Export, Open };

// The folder to start in.
QString lastFolder(FolderUse use);
// `fileName` in that folder: a save dialog's suggestion.
QString inLastFolder(FolderUse use, const QString& fileName);
// Remembers the folder of a chosen file, or a chosen folder itself; an
// empty path (a cancelled dialog) changes nothing.
void rememberFile(FolderUse use, const QString& file);
void rememberFolder(FolderUse use, const QString& folder);

}  // namespace attnlab
