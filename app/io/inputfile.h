// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one way the readers (lab files, .npy, CSV) take a file's bytes: bounded
// by a cap that is checked while reading, whatever the file claims.
//
// A regular file larger than the cap is refused from its size, unread; one
// that grows while it is read is still cut at the cap. A pipe or FIFO (a
// shell's <(...), /dev/stdin fed by a pipe, mkfifo) has no size, so it is
// read in chunks and refused as soon as it passes the cap. A FIFO is opened
// without waiting for a writer: one with no writer reads as empty at once
// (an error saying so) instead of blocking until a writer comes. Anything
// else is refused unread: a device (/dev/zero never ends, a terminal waits
// for typing), a socket, a folder; no matrix or lab comes from one. A Qt
// resource (":/presets/...") is read through QFile, by its size.
//
// A pipe's read can wait for its writer as long as the writer keeps it open
// without writing. Given a `stop` flag (a scheduler job's, scheduler.h), the
// read waits in short polls and gives up within kStopPollMs of the flag being
// set, with an ErrorKind::Cancelled error: so the lane reading it can be
// superseded or joined without waiting for the writer.

#include "expected.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <string_view>

namespace attnlab {

// All of `path`, at most `cap` bytes. `what` names the kind of file in the
// message when the cap is hit ("a lab file": "big.attnlab: 300 MiB is larger
// than any lab file can be (at most 432 MiB)"). Other messages start with the
// file name too, except "cannot open '<path>': <reason>".
attn::Expected<QByteArray> readInputFile(const QString& path, long long cap, std::string_view what,
                                         const std::atomic<bool>* stop = nullptr);

// How often a pipe's read given a stop flag looks at it while no byte comes.
inline constexpr int kStopPollMs = 25;

// "240 MiB", "12 KiB", "500 bytes": a cap in words.
std::string byteSizeText(long long bytes);

}  // namespace attnlab
