// SPDX-License-Identifier: GPL-3.0-or-later
// The head lab's readings and its ablated pass against the pass they come
// from, at GPT-2 small's shapes.

#include "headlab_bench.h"

#include "benchutil.h"
#include "gpt2.h"
#include "gpt2_bench.h"
#include "head_scores.h"
#include "lens_rollout.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace bench {

void runHeadLabBench(int n)
{
    auto created = attn::Gpt2DecoderModel::create(gpt2SmallWeights());
    if (!created) {
        std::fprintf(stderr, "head_lab: %s\n", created.error().message.c_str());
        return;
    }
    const std::unique_ptr<attn::Gpt2DecoderModel> model = std::move(created).value();
    const int vocab = model->config().vocabSize;
    // Ids with repeats, so that every row defines the induction and
    // duplicate-token scores' sums as a repeated text does.
    std::vector<int> ids(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < ids.size(); ++i)
        ids[i] = int(((i % std::size_t(n / 2)) * 7919) % std::size_t(vocab));
    const auto fail = [](const attn::Error& e) { std::fprintf(stderr, "head_lab: %s\n", e.message.c_str()); };

    attn::DecoderRunOptions options;  // every head's maps kept, one thread
    attn::Expected<attn::DecoderResult> kept = model->run(ids, options);
    if (!kept)
        return fail(kept.error());
    const auto pass = [&] {
        const auto r = model->run(ids, options);
        if (!r)
            fail(r.error());
    };
    double checksum = 0.0;  // keeps the readings' work from being dropped
    const auto readings = [&] {
        const auto scores = attn::headScores(*model, *kept);
        const auto rollout = attn::attentionRollout(*model, *kept);
        if (!scores || !rollout)
            return fail(!scores ? scores.error() : rollout.error());
        checksum += (*rollout)(n - 1, 0) + scores->at(0, 0).previousToken.value_or(0.0);
    };
    const auto [passTime, readTime] = measurePair(pass, readings, 3, 2.0);
    const int d = model->config().width;
    printCase("head_lab_readings", n, d, readTime,
              "\"layers\":12,\"heads\":12,\"pass_ms\":" + std::to_string(passTime.medianMs)
                  + ",\"ratio\":" + std::to_string(readTime.medianMs / passTime.medianMs)
                  + ",\"cpu_ratio\":" + std::to_string(readTime.cpuMedianMs / passTime.cpuMedianMs)
                  + ",\"target_ratio\":0.10,\"checksum\":" + std::to_string(checksum));

    for (const attn::HeadAblation mode : {attn::HeadAblation::Zero, attn::HeadAblation::Mean}) {
        attn::DecoderRunOptions ablatedOptions = options;
        ablatedOptions.headOutput = attn::ablationHook({attn::HeadIndex{5, 1}}, mode);
        const auto ablated = [&] {
            const auto r = model->run(ids, ablatedOptions);
            if (!r)
                fail(r.error());
        };
        const auto [intactTime, ablatedTime] = measurePair(pass, ablated, 3, 2.0);
        printCase(mode == attn::HeadAblation::Zero ? "head_lab_ablation_zero" : "head_lab_ablation_mean", n,
                  d, ablatedTime,
                  "\"pass_ms\":" + std::to_string(intactTime.medianMs)
                      + ",\"ratio\":" + std::to_string(ablatedTime.medianMs / intactTime.medianMs)
                      + ",\"cpu_ratio\":" + std::to_string(ablatedTime.cpuMedianMs / intactTime.cpuMedianMs)
                      + ",\"target_ratio\":1.0");
    }
}

}  // namespace bench
