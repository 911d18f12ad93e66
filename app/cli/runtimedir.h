// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Qt wants XDG_RUNTIME_DIR (a private directory of this user, mode 0700) and
// warns on stderr when it is unset, as on headless runs, cron jobs and
// containers. ensureRuntimeDir() gives it one before any QApplication exists:
// the fallback Qt would pick itself, $TMPDIR/runtime-$USER, created 0700 when
// missing and used when it is ours and private; otherwise a fresh private
// directory that is removed at exit. A variable already set is left alone.
// It cannot help when no private directory can be made (a temporary folder
// that is not writable, TMPDIR=/proc) or when the variable names an unsuitable
// one (other permissions): Qt then warns, and the command line's runs keep
// that off stderr with quietQtMessages() (consoleio.h).

namespace attnlab {

void ensureRuntimeDir();

// The command line's runs (no window): the GUI application made next uses
// Qt's offscreen platform whatever DISPLAY, WAYLAND_DISPLAY or
// QT_QPA_PLATFORM say, so that a display that cannot be reached (DISPLAY=:99
// with nothing there) does not abort a picture export, and no desktop theme
// plugin is loaded. The pictures are the same: they are drawn into images,
// SVG and PDF, never onto a screen.
void useOffscreenPlatform();

}  // namespace attnlab
