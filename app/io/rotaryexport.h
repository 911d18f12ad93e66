// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// rope.json (issue 38): one head of a rotary model's pass before and after
// RoPE, as the Model tab's RoPE page shows it (attn::RotaryHead), written by
// `attention-lab --model DIR --sentence TEXT --rope L.H --export-dir OUT`
// and by the window's File > Export all views (the selected head). An
// object with
//   model, tokens, pieces, token_ids, scale, mask, qk_norm_removed
//                as model_attention.json's (modelattentionexport.h)
//   layer, head  the head, numbered from 0; kv_head, the key/value head
//                whose k it reads (0-based)
//   head_dim     d; the pairs are (i, i + d/2) for i < d/2
//   frequencies  d/2 numbers θ_i (radians per position) as the model
//                applies them: rope_theta^(-2i/d), rescaled by llama3's
//                rope_scaling where the model has it
//   angles       n x d/2: the angle p·θ_i pair i is turned by at position p
//                (radians, not reduced modulo 2π)
//   q, k         n x d: the head's q and its key/value head's k as they
//                enter the rotation (after q_norm and k_norm where the model
//                has them and the pass kept them)
//   q_rot, k_rot n x d: after the rotation (the pass's Q and K)
//   scores_without_rotation
//                n x n: q_m · k_n, every entry (the mask's hidden ones too)
//   scores_with_rotation
//                n x n: q_rot_m · k_rot_n, the pass's raw scores, every
//                entry; model_attention.json writes null where the mask
//                hides a key, here the number is kept
//   visible      n x n booleans: whether query m saw key n (the mask)
// and the head lab's keys (headlabexport.h: ablated, ablation, probe) of
// the pass.
// Numbers in their shortest round-trip form.

#include "decoder_model.h"
#include "headlabexport.h"
#include "modelfolder.h"
#include "rotary_head.h"
#include "stagedwrite.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace attnlab {

inline constexpr char kRopeFileName[] = "rope.json";

void writeRopeJson(std::ostream& out, const ModelFolder& model, const attn::DecoderResult& result,
                   const std::string& scaleMode, const attn::RotaryHead& head,
                   const ModelHeadLab* lab = nullptr);

// rope.json as an OutputFile that keeps what it writes.
OutputFile ropeJsonFile(std::shared_ptr<const ModelFolder> model,
                        std::shared_ptr<const attn::DecoderResult> result, std::string scaleMode,
                        attn::RotaryHead head, std::optional<ModelHeadLab> lab = std::nullopt);

}  // namespace attnlab
