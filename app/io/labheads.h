// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The multi-head part of a saved lab (version 2): the "heads" object after
// "W_v", written only when heads.multiHead() (a single-head lab is the
// version 1 content with "version": 2).
//
//   "heads": {
//     "count": 3,                      h, 1 to 64
//     "layout": "independent",         independent | split
//     "output_projection": true,       independent: W_o after the concat
//     "torch_init": false,             split: nn.MultiheadAttention's own init
//     "selected": 1,                   the head the single-head views show, 1 to h
//   independent:
//     "head_weights": [                h objects
//       {"W_q": [[...]], "W_k": [[...]], "W_v": [[...]]},   (d_model, d_k), (d_model, d_k), (d_model, d_v)
//       ...
//     ],
//     "W_o": [[...]]                   (h d_v, d_out), only with output_projection
//   split (PyTorch's own layout, state_dict in_proj_weight, in_proj_bias,
//   out_proj.weight, out_proj.bias; d_k = d_v = d_model / h):
//     "in_proj_weight": [[...]],       (3E, E), E = d_model
//     "in_proj_bias": [...],           (3E), a flat array
//     "out_proj_weight": [[...]],      (E, E)
//     "out_proj_bias": [...]           (E), a flat array
//   }
//
// The top-level W_q, W_k and W_v stay in the file and must be an exact copy
// of the selected head's (for the split layout its slices of
// in_proj_weight, transposed): a version 1 reader opens the file as that
// head alone, and validateLabState refuses a lab whose copy differs rather
// than choosing one of the two silently.

#include "jsonvalue.h"
#include "jsonwriter.h"
#include "labfile.h"

#include <QJsonObject>

namespace attnlab {

// The multi-head fields of `state` (heads, multiHead, selectedHead) against
// its dimensions and X; validateLabState calls it for a multi-head lab
// after the single-head checks. The error names the field and, for a
// matrix, the shape it must have.
attn::Status validateLabHeads(const LabState& state);

// "heads" and its object, when state.heads.multiHead().
void writeLabHeads(JsonWriter& json, const LabState& state);

// The "heads" object into state->heads, multiHead and selectedHead;
// unknown keys become warnings. Shapes and values are validateLabHeads'.
attn::Status readLabHeads(const JsonValue& object, LabState* state);

}  // namespace attnlab
