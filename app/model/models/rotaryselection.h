// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// RoPE for the Model tab (issue 38): the selected head of the session's
// last pass before and after the rotation (attn::DecoderModel::rotaryHead),
// and the words around it. Views draw it; they compute nothing.

#include "decoder_config.h"
#include "expected.h"
#include "rotary_head.h"

#include <QString>

namespace attnlab {

class ModelSession;

// The selected head of session.result() before and after RoPE. Errors, in
// words for the page: no model, no pass yet, a model with learned
// positions (GPT-2: "learned positions, no rotation").
attn::Expected<attn::RotaryHead> selectedRotaryHead(const ModelSession& session);

// "θ_i = 10000^(−2i/8): 1, 0.1, 0.01, 0.001" (with ", llama3 rope_scaling"
// where the model rescales them): the frequencies in one line, four
// significant digits each.
QString rotaryFrequencyText(const ModelSession& session, const attn::RotaryHead& head);
QString rotaryFrequencyText(const attn::DecoderConfig& config, const attn::RotaryHead& head);

}  // namespace attnlab
