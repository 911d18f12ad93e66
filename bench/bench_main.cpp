// attention-lab-bench [--quick] [engine]
// Prints one JSON object per line: case, n, d, median_ms, p95_ms and, where a
// floor applies, floor_ms and ratio.

#include "engine_bench.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    bool quick = false;
    std::vector<std::string> groups;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else
            groups.emplace_back(argv[i]);
    }
    auto wanted = [&](const char* g) {
        return groups.empty() || std::find(groups.begin(), groups.end(), g) != groups.end();
    };
    if (wanted("engine"))
        bench::runEngineBench(quick ? std::vector<int>{16, 128, 512}
                                    : std::vector<int>{16, 128, 512, 2048, 4096},
                              64);
    return 0;
}
