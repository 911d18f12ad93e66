// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Two readings of one pass over any DecoderModel (issue 39):
//
// The logit lens: after each block l, the residual stream h_l read out as
// if it were the last, softmax(unembed(final norm(h_l)) / temperature) for
// every position, of which the k most likely tokens are kept.
//
// Attention rollout (Abnar and Zuidema 2020): per layer
// B_l = 0.5 (the mean of its heads' weights) + 0.5 I, each row divided by
// its sum; R = B_L ... B_1 (B_1 applied first), n x n, rows summing to 1:
// how much each position's output draws on each input token through every
// layer's attention and the residual path.

#include "decoder_model.h"
#include "expected.h"
#include "matrix.h"

#include <atomic>
#include <vector>

namespace attn {

struct LogitLens {
    int layers = 0;
    int positions = 0;
    // tops[layer * positions + position]: the k most likely, largest first
    std::vector<std::vector<TopToken>> tops;

    const std::vector<TopToken>& at(int layer, int position) const
    {
        return tops[std::size_t(layer) * positions + position];
    }
};

// The lens of `result` (run with keepHidden), under `temperature` (the
// pass's for the same probabilities as its next tokens). Errors: the
// residual stream not kept, k < 1, readOut's; with `cancel` set (checked
// before each block of rows read out), kDecoderCancelled (ErrorKind::
// Cancelled). The numbers do not depend on `cancel`.
Expected<LogitLens> logitLens(const DecoderModel& model, const DecoderResult& result, int k,
                              double temperature, int threads = 1, const std::atomic<bool>* cancel = nullptr);

// R for `result`: its kept maps, or each head recomputed (model.head).
Expected<Matrix> attentionRollout(const DecoderModel& model, const DecoderResult& result);

}  // namespace attn
