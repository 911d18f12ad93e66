// SPDX-License-Identifier: GPL-3.0-or-later
#include "training_bench.h"

#include "benchutil.h"
#include "training_lab.h"

#include <chrono>
#include <string>
#include <time.h>
#include <vector>

namespace bench {

namespace {

double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

}  // namespace

void runTrainingBench(int repeats)
{
    attn::TrainingSettings settings;  // n 32, d_model 64, C 16, batch 64, Adam 3e-3, 400 steps
    settings.dK = 256;
    std::vector<double> wall, cpu;
    double lossScaled = 0, lossUnscaled = 0;
    for (int r = 0; r < repeats; ++r) {
        const double c0 = processCpuMs();
        const auto t0 = std::chrono::steady_clock::now();
        attn::TrainingLab lab(settings);
        lab.run();
        wall.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        cpu.push_back(processCpuMs() - c0);
        lossScaled = lab.curves()[0].loss.back();
        lossUnscaled = lab.curves()[1].loss.back();
    }
    const Timing t = summarise(wall);
    printCase("training_lab", settings.task.nKeys, settings.dK, t,
              "\"steps\":" + std::to_string(settings.steps) + ",\"cpu_ms\":" + std::to_string(medianOf(cpu))
                  + ",\"target_ms\":2000,\"loss_sqrt_dk\":" + std::to_string(lossScaled)
                  + ",\"loss_none\":" + std::to_string(lossUnscaled));
}

}  // namespace bench
