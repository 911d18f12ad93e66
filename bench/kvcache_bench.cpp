// SPDX-License-Identifier: GPL-3.0-or-later
// The decode step over the key/value cache (core/kv_cache.h) against the
// whole pass it saves, at GPT-2 small's shapes.

#include "kvcache_bench.h"

#include "benchutil.h"
#include "gpt2.h"
#include "gpt2_bench.h"
#include "kv_cache.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace bench {

void runKvCacheBench(int cached)
{
    auto created = attn::Gpt2DecoderModel::create(gpt2SmallWeights());
    if (!created) {
        std::fprintf(stderr, "kv_decode_step: %s\n", created.error().message.c_str());
        return;
    }
    const std::unique_ptr<attn::Gpt2DecoderModel> model = std::move(created).value();
    const int vocab = model->config().vocabSize;
    std::vector<int> ids(static_cast<std::size_t>(cached) + 1);
    for (std::size_t i = 0; i < ids.size(); ++i)
        ids[i] = int((i * 7919) % std::size_t(vocab));
    const std::vector<int> prompt(ids.begin(), ids.end() - 1);
    const std::vector<int> next{ids.back()};

    attn::KvCache cache(model->config());
    attn::DecodeOptions decodeOptions;  // one thread, the attention rows kept
    if (const auto prefill = model->decode(prompt, &cache, decodeOptions); !prefill) {
        std::fprintf(stderr, "kv_decode_step: %s\n", prefill.error().message.c_str());
        return;
    }
    const auto step = [&] {
        cache.truncate(cached);
        const auto r = model->decode(next, &cache, decodeOptions);
        if (!r)
            std::fprintf(stderr, "kv_decode_step: %s\n", r.error().message.c_str());
    };
    attn::DecoderRunOptions passOptions;
    passOptions.keepMaps = false;
    const auto pass = [&] {
        const auto r = model->run(ids, passOptions);
        if (!r)
            std::fprintf(stderr, "kv_decode_step: %s\n", r.error().message.c_str());
    };
    const auto [full, decode] = measurePair(pass, step, 3, 2.0);
    const std::string extra = "\"cached\":" + std::to_string(cached) + ",\"layers\":12,\"heads\":12"
                              + ",\"full_pass_ms\":" + std::to_string(full.medianMs)
                              + ",\"speedup\":" + std::to_string(full.medianMs / decode.medianMs)
                              + ",\"cpu_speedup\":" + std::to_string(full.cpuMedianMs / decode.cpuMedianMs)
                              + ",\"target_speedup\":10,\"cache_bytes\":"
                              + std::to_string(attn::KvCache::bytes(model->config(), cached + 1));
    printCase("kv_decode_step", cached + 1, model->config().width, decode, extra);
}

}  // namespace bench
