// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A child process for the bench cases that run a program whole: its output,
// exit, wall time and peak resident size.
//
// On Linux a spawned child's peak resident size (ru_maxrss) starts from its
// parent's at the spawn: run such cases while the bench process is small.

#include <string>
#include <vector>

namespace bench {

struct ChildRun {
    bool ok = false;        // started and exited with status 0
    std::string output;     // the child's stdout
    long maxRssKiB = 0;     // peak resident set size
    long long startNs = 0;  // parent's steady clock just before spawning
    long long endNs = 0;    // and once the child has exited
    double wallMs() const { return double(endNs - startNs) / 1e6; }
};

long long steadyNs();

// Runs `args` (args[0] a path) with `extraEnv` ("NAME=value") added to this
// process's environment; stderr is the bench's.
ChildRun runChild(const std::vector<std::string>& args, const std::vector<std::string>& extraEnv = {});

}  // namespace bench
