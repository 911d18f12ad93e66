// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A symbolic link where --export-dir DIR (or a folder above it) is to be
// made, which the writer would only report as "File exists": a broken link
// (its target does not exist) or a link loop. The command line refuses
// both, before anything is computed or written, rather than create the
// missing target somewhere the user did not name.

#include <QString>

#include <optional>

namespace attnlab {

// "cannot create the directory 'DIR': 'LINK' is a broken symbolic link (to
// 'TARGET', which does not exist)" or "...: 'LINK' is a symbolic link loop";
// nothing when no such link is in the way.
std::optional<QString> linkInTheWay(const QString& directory);

}  // namespace attnlab
