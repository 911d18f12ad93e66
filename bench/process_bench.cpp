// SPDX-License-Identifier: GPL-3.0-or-later
// Start-up and memory cases: the real executable as a child process.
//
// With --exit-after-first-paint (a hidden option) the window prints
// "ATTNLAB_FIRST_PAINT_NS=<steady clock ns>" once it has painted with a result
// and quits (app/widgets/window/guimain.cpp). std::chrono::steady_clock is
// CLOCK_MONOTONIC on Linux, shared by both processes, so the difference to the
// parent's clock just before spawning is the start-up time, exec included.

#include "process_bench.h"

#include "benchmatrix.h"
#include "benchutil.h"
#include "childprocess.h"
#include "npy.h"

#include <QDir>
#include <QTemporaryDir>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace bench {
namespace {

long long firstPaintNs(const std::string& output)
{
    const char* key = "ATTNLAB_FIRST_PAINT_NS=";
    const std::size_t at = output.find(key);
    if (at == std::string::npos)
        return -1;
    return std::stoll(output.substr(at + std::strlen(key)));
}

void printError(const char* name, int n, const std::string& what)
{
    std::printf("{\"case\":\"%s\",\"n\":%d,\"error\":\"%s\"}\n", name, n, what.c_str());
    std::fflush(stdout);
}

bool writeNpyFile(const std::string& path, const attn::Matrix& m)
{
    std::ofstream out(path, std::ios::binary);
    attnlab::writeNpy(out, m);
    return bool(out);
}

}  // namespace

void runStartupBench(const std::string& app, int runs)
{
    QTemporaryDir home;
    const std::vector<std::string> env = {"QT_QPA_PLATFORM=offscreen",
                                          "XDG_CONFIG_HOME=" + home.path().toStdString()};
    const std::vector<std::string> command = {app, "--exit-after-first-paint"};
    std::vector<double> ms;
    runChild(command, env);  // warm the page cache
    for (int i = 0; i < runs; ++i) {
        const ChildRun run = runChild(command, env);
        const long long painted = firstPaintNs(run.output);
        if (!run.ok || painted < 0) {
            printError("startup_first_paint", 6, "the window did not report its first paint");
            return;
        }
        ms.push_back(double(painted - run.startNs) / 1e6);
    }
    // The article example: 6 tokens, d_k 24.
    printCase("startup_first_paint", 6, 24, summarise(ms));
}

void runMemoryBench(const std::string& app, int n, int d)
{
    QTemporaryDir dir;
    const std::string base = dir.path().toStdString() + "/";
    std::mt19937 rng(7);
    if (!writeNpyFile(base + "x.npy", randomMatrix(rng, n, d, 1.0))
        || !writeNpyFile(base + "wq.npy", randomMatrix(rng, d, d, 1.0 / std::sqrt(double(d))))
        || !writeNpyFile(base + "wk.npy", randomMatrix(rng, d, d, 1.0 / std::sqrt(double(d))))
        || !writeNpyFile(base + "wv.npy", randomMatrix(rng, d, d, 1.0 / std::sqrt(double(d))))) {
        printError("memory_cli", n, "cannot write the inputs");
        return;
    }
    const std::vector<std::string> inputs = {"--x",  base + "x.npy",  "--wq", base + "wq.npy",
                                             "--wk", base + "wk.npy", "--wv", base + "wv.npy"};
    const std::vector<std::string> env = {"QT_QPA_PLATFORM=offscreen", "XDG_CONFIG_HOME=" + base + "config"};

    std::vector<std::string> cli = {app};
    cli.insert(cli.end(), inputs.begin(), inputs.end());
    cli.insert(cli.end(), {"--export-dir", base + "out", "--format", "npy"});
    const ChildRun headless = runChild(cli, env);
    QDir(QString::fromStdString(base + "out")).removeRecursively();
    if (!headless.ok)
        printError("memory_cli", n, "the headless run failed");
    else
        std::printf("{\"case\":\"memory_cli\",\"n\":%d,\"d\":%d,\"peak_rss_mb\":%.1f,\"target_mb\":600}\n", n,
                    d, double(headless.maxRssKiB) / 1024.0);

    std::vector<std::string> gui = {app, "--exit-after-first-paint"};
    gui.insert(gui.end(), inputs.begin(), inputs.end());
    const ChildRun window = runChild(gui, env);
    if (!window.ok || firstPaintNs(window.output) < 0)
        printError("memory_gui", n, "the window did not report its first paint");
    else
        std::printf(
            "{\"case\":\"memory_gui\",\"n\":%d,\"d\":%d,\"peak_rss_mb\":%.1f,\"target_mb\":600,"
            "\"first_paint_ms\":%.1f}\n",
            n, d, double(window.maxRssKiB) / 1024.0,
            double(firstPaintNs(window.output) - window.startNs) / 1e6);
    std::fflush(stdout);
}

}  // namespace bench
