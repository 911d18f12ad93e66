// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Qt wants XDG_RUNTIME_DIR (a private directory of this user, mode 0700) and
// warns on stderr when it is unset, as on headless runs, cron jobs and
// containers. ensureRuntimeDir() gives it one before any QApplication exists:
// the fallback Qt would pick itself, $TMPDIR/runtime-$USER, created 0700 when
// missing and used when it is ours and private; otherwise a fresh private
// directory that is removed at exit. A variable already set is left alone.

namespace attnlab {

void ensureRuntimeDir();

}  // namespace attnlab
