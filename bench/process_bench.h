// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <string>

namespace bench {
// Cases that run the attention-lab executable (`app`) as a child process with
// its own settings directory, under the offscreen platform:
//  - "startup": process start to the first painted window, `runs` times;
//  - "memory_cli": peak resident memory of a headless run over n = 4096
//    tokens (.npy inputs, .npy export), from the child's rusage;
//  - "memory_gui": peak resident memory of the window showing n = 4096.
void runStartupBench(const std::string& app, int runs);
void runMemoryBench(const std::string& app, int n, int d);
}  // namespace bench
