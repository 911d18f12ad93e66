// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// RoPE made visible (issue 38): one head of a rotary model's pass before
// and after the rotation, and the rotation itself.
//
// A rotary model (Llama, Qwen, Mistral: llama.h) turns each pair of
// dimensions (i, i + d/2) of q and k at position p by the angle
// p * theta_i, theta_i = rope_theta^(-2i/d) (llama3's rope_scaling
// rescales them as the model does: llamaInverseFrequencies). A score
// q_rot(m) . k_rot(n) then depends on m - n through the angles
// (m - n) theta_i, not on m and n apart: the student sees the unrotated
// map q . k beside the model's q_rot . k_rot.

#include "attention_mask.h"
#include "matrix.h"

#include <vector>

namespace attn {

struct RotaryHead {
    int layer = 0;
    int head = 0;
    int kvHead = 0;
    // theta_i for i < head_dim / 2, radians per position, as the model
    // applies them (DecoderModel::rotaryFrequencies).
    std::vector<double> frequencies;
    // (n, head_dim / 2): the angle p * theta_i pair i is turned by at
    // position p (radians, not reduced modulo 2 pi): ropeAngle, which
    // applyRope turns q and k by.
    Matrix angles;
    // (n, head_dim): the head's q and its key/value head's k as they enter
    // the rotation (after Qwen3's q_norm and k_norm, unless the what-if
    // removed them), and after it (the pass's Q and K, bit for bit).
    Matrix qBefore, kBefore;
    Matrix qAfter, kAfter;
    // (n, n) every q_m . k_n, hidden keys included: without the rotation,
    // and with it (the pass's raw scores, bit for bit).
    Matrix scoresBefore;
    Matrix scoresAfter;
    AttentionMask mask;  // the keys each query saw in the pass (AttentionResult::appliedMask)
};

// The angle pair `pair` of a head is turned by at `position`:
// position * frequencies[pair]. applyRope (llama.h) and RotaryHead::angles
// both take it from here.
inline double ropeAngle(const std::vector<double>& frequencies, int position, int pair)
{
    return double(position) * frequencies[std::size_t(pair)];
}

// (n, frequencies.size()) of ropeAngle for positions firstPosition ...
Matrix ropeAngles(const std::vector<double>& frequencies, int n, int firstPosition = 0);

}  // namespace attn
