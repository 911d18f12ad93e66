// SPDX-License-Identifier: GPL-3.0-or-later
#include "rotary_head.h"

#include "decoder_model.h"
#include "decoder_steps.h"

#include <string>

namespace attn {

Matrix ropeAngles(const std::vector<double>& frequencies, int n, int firstPosition)
{
    const int pairs = int(frequencies.size());
    Matrix angles(n, pairs);
    for (int p = 0; p < n; ++p)
        for (int i = 0; i < pairs; ++i)
            angles(p, i) = ropeAngle(frequencies, firstPosition + p, i);
    return angles;
}

const std::vector<double>& DecoderModel::rotaryFrequencies() const
{
    static const std::vector<double> none;
    return none;
}

Expected<RotaryHead> DecoderModel::rotaryHead(const DecoderResult& result, int layer, int head) const
{
    const DecoderConfig& c = config();
    if (rotaryFrequencies().empty())
        return Error{"This " + c.family + " model has learned positions (an embedding added to each token); "
                     "it rotates nothing."};
    // The rotated head as the pass has it, with every check of a head.
    Expected<AttentionResult> after = this->head(result, layer, head);
    if (!after)
        return after.error();
    const std::unique_ptr<DecoderSteps> s = steps(1);
    s->setSkipQkNorm(result.qkNormSkipped);
    AttentionResult before;
    s->headInputsBeforeRotation(layer, head, result.layers[std::size_t(layer)].attentionInput, &before);
    RotaryHead r;
    r.layer = layer;
    r.head = head;
    r.kvHead = c.kvHeadOf(head);
    r.frequencies = rotaryFrequencies();
    r.angles = ropeAngles(r.frequencies, result.tokens());
    r.qBefore = std::move(before.Q);
    r.kBefore = std::move(before.K);
    r.scoresBefore = r.qBefore * r.kBefore.transpose();
    r.qAfter = std::move(after->Q);
    r.kAfter = std::move(after->K);
    r.scoresAfter = std::move(after->scores);
    r.mask = after->appliedMask();
    return r;
}

}  // namespace attn
