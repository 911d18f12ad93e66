// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab-bench [--quick] [--n=16,256,...] [--kernel=baseline]
//                     [engine] [multihead] [interaction] [multihead-window] [startup] [export] [memory]
//                     [gpt2-tokenizer] [tokenizer-json] [gpt2-open] [gpt2-forward] [gpt2-typing]
//                     [training-lab] [flash] [kv-decode] [head-lab] [smollm2-cli] [qwen25-window]
// Prints one JSON object per line: case, n, d, median_ms, p95_ms and, where a
// floor applies, floor_ms and ratio. Without group names every group runs.
// The window cases (built with the GUI) use the offscreen platform unless
// QT_QPA_PLATFORM is set. --kernel=baseline measures Eigen's products and
// exponential instead of the AVX2 kernels (as attention-lab --kernel=baseline).

#include "engine_bench.h"
#include "flash_bench.h"
#include "gpt2_bench.h"
#include "gpt2open_bench.h"
#include "gpt2tokenizer_bench.h"
#include "multihead_bench.h"
#include "kernels.h"
#include "headlab_bench.h"
#include "kvcache_bench.h"
#include "tokenizerjson_bench.h"
#include "training_bench.h"

#ifdef ATTNLAB_BENCH_GUI
#include "export_bench.h"
#include "gpt2typing_bench.h"
#include "heapreuse.h"
#include "interaction_bench.h"
#include "multihead_window_bench.h"
#include "process_bench.h"
#include "eventtimer.h"
#include "qwen25_window_bench.h"
#include "smollm2_bench.h"

#include <QApplication>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
#ifdef ATTNLAB_BENCH_GUI
    attnlab::keepFreedBuffersForReuse();  // as the application does
#endif
    bool quick = false;
    std::vector<int> sizes;  // --n=16,2048: the interaction case's token counts
    std::vector<std::string> groups;
    double slowEventMs = 0;  // --slow-events=MS: the GUI thread's events over MS printed on stderr
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (std::strcmp(argv[i], "--kernel=baseline") == 0)
            attn::kernels::setEnabled(false);
        else if (std::strncmp(argv[i], "--slow-events=", 14) == 0)
            slowEventMs = std::atof(argv[i] + 14);
        else if (std::strncmp(argv[i], "--n=", 4) == 0)
            for (const char* p = argv[i] + 4; *p;
                 p += std::strcspn(p, ",") + (p[std::strcspn(p, ",")] ? 1 : 0))
                sizes.push_back(std::atoi(p));
        else
            groups.emplace_back(argv[i]);
    }
    auto wanted = [&](const char* g) {
        return groups.empty() || std::find(groups.begin(), groups.end(), g) != groups.end();
    };
#ifdef ATTNLAB_BENCH_GUI
    const bool gui = wanted("interaction") || wanted("multihead-window") || wanted("startup")
                     || wanted("export") || wanted("memory") || wanted("gpt2-typing")
                     || wanted("qwen25-window");
    std::unique_ptr<QApplication> app;
    if (gui) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        app = std::make_unique<bench::EventTimingApplication>(argc, argv, slowEventMs);
        // Keep the window's saved settings out of the measurements.
        QApplication::setOrganizationName(QStringLiteral("AttentionLabBench"));
        QApplication::setApplicationName(QStringLiteral("attention-lab-bench"));
        // First, while this process is small: on Linux a spawned child's
        // peak resident size starts from its parent's at the spawn, so after
        // the engine and window cases (hundreds of MB here) it would count
        // ours.
        if (wanted("memory"))
            bench::runMemoryBench(ATTNLAB_APP_PATH, 4096, 64);
    }
    // Also while this process is small: its figures include the child's peak.
    if (wanted("smollm2-cli"))
        bench::runSmolLm2CliBench(ATTNLAB_APP_PATH, ATTNLAB_SOURCE_DIR "/scripts/llama_torch_forward.py",
                                  quick ? 1 : 3);
#endif
    if (wanted("flash"))
        bench::runFlashBench(4096, 64, quick ? 4096 : 16384);
    if (wanted("engine"))
        bench::runEngineBench(
            quick ? std::vector<int>{16, 128, 512} : std::vector<int>{16, 128, 512, 2048, 4096}, 64);
    if (wanted("multihead"))
        bench::runMultiHeadBench(quick ? std::vector<int>{128, 512} : std::vector<int>{512, 2048}, 512, 8);
    if (wanted("gpt2-tokenizer"))
        bench::runGpt2TokenizerBench(ATTNLAB_SOURCE_DIR "/tests/data/gpt2/tiny-gpt2", 1000);
    if (wanted("tokenizer-json"))
        bench::runTokenizerJsonBench(ATTNLAB_SOURCE_DIR "/tests/data/llama/tiny-qwen3", 2000);
    if (wanted("gpt2-open"))
        bench::runGpt2OpenBench();
    if (wanted("gpt2-forward"))
        bench::runGpt2ForwardBench(quick ? std::vector<int>{32} : std::vector<int>{32, 256});
    if (wanted("kv-decode"))
        bench::runKvCacheBench(256);
    if (wanted("head-lab"))
        bench::runHeadLabBench(256);
    if (wanted("training-lab"))
        bench::runTrainingBench(quick ? 2 : 5);
#ifdef ATTNLAB_BENCH_GUI
    if (wanted("interaction"))
        bench::runInteractionBench(!sizes.empty() ? sizes
                                   : quick        ? std::vector<int>{16, 256}
                                                  : std::vector<int>{16, 256, 2048, 4096},
                                   quick ? 10 : 40);
    if (wanted("multihead-window"))
        bench::runMultiHeadWindowBench(!sizes.empty() ? sizes
                                       : quick        ? std::vector<int>{128}
                                                      : std::vector<int>{512, 2048},
                                       512, 8, quick ? 6 : 20);
    if (wanted("gpt2-typing"))
        bench::runGpt2TypingBench(ATTNLAB_SOURCE_DIR "/tests/data/gpt2/tiny-gpt2", quick ? 8 : 30);
    if (wanted("qwen25-window"))
        bench::runQwen25WindowBench(quick ? 8 : 20);
    if (wanted("export"))
        bench::runExportBench(16);
    if (wanted("startup"))
        bench::runStartupBench(ATTNLAB_APP_PATH, quick ? 5 : 15);
#endif
    return 0;
}
