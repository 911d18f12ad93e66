// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The process's heap told to keep the buffers it frees for the next ones.
//
// Every step of the lab frees matrices and allocates the same sizes again
// (a 512-token, 8-head result is about 36 MB in buffers of 0.25 to 6 MB;
// the undo history's copy of the lab 11 MB; each map's picture 1 MB).
// glibc returns such buffers to the system (as mappings of their own, or
// by trimming the heap's top) and the next ones fault in every page again,
// zeroed: a third of the window thread's time in a seed step at that size.
// Here buffers up to 32 MiB (glibc's largest threshold) come from the heap,
// and up to 256 MiB of free heap is kept. Larger buffers (a 4096-token map
// is 128 MiB) are mapped and returned as before. Elsewhere than glibc this
// does nothing.
namespace attnlab {

void keepFreedBuffersForReuse();

}  // namespace attnlab
