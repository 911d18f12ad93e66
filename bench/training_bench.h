// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace bench {
// Prints "training_lab": the training lab at its defaults with d_k 256, 400
// steps of both runs (the scaled and the unscaled, batches drawn included),
// median of `repeats` runs; target at most 2 s. `cpu_ms` is the process's
// CPU time per run (both threads), `loss_sqrt_dk`/`loss_none` the last
// losses, so a change that alters the numbers shows.
void runTrainingBench(int repeats);
}  // namespace bench
