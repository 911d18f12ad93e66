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

// Headless pictures: without a display (no DISPLAY, WAYLAND_DISPLAY or
// QT_QPA_PLATFORM) the GUI application made next uses Qt's offscreen
// platform, which draws the same pictures.
void useOffscreenWithoutDisplay();

}  // namespace attnlab
