// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One head of an opened model's pass as a lab state for the pipeline
// (borrowedhead.h). GPT-2 is the family whose heads the pipeline takes
// today (another family's head is refused with a message naming it). GPT-2 computes q = LN1(h) W_slice +
// b_slice with Conv1D weights (in, out) and the head's columns of c_attn; the lab computes Q = X W_q. With
// the bias folded into the product,
//   X   = [LN1(h) | 1]            (n, E + 1)
//   W_q = [W_slice ; b_slice]     (E + 1, head_dim), W_k and W_v alike,
// d_k = d_v = head_dim, the causal mask on and the divisor the pass used
// for that head (sqrt(head_dim) as trained, 1, or a custom one), the
// lab's Q, K, V, scores, weights and context are the head's (within the
// rounding of one more product term: tst_gpt2headstate).

#include "expected.h"
#include "labfile.h"

#include <QString>

#include <memory>
#include <string>

namespace attnlab {

class ModelSession;
class Session;

// Refused, with a message: no model or no pass shown, a pass still
// running, a layer or head out of range, or a head the pipeline cannot
// hold (E + 1 above the d_model limit, head_dim above the d_k limit). The
// lab's own parameters to go back to are `lab`'s (or those it kept when
// it already shows a borrowed head).
attn::Expected<LabState> modelHeadState(const ModelSession& gpt2, int layer, int head, const Session& lab);

// What modelHeadState returns, from the head's matrices as the model gives
// them (`original`: GPT-2's pieces, X, W_q, W_k, W_v, shaped as above):
// d_model, d_k and d_v from their shapes, the causal mask on, scale mode
// from `divisor` (sqrt(d_k), 1, else custom), layer `layer`, head `head`
// of the model folder named `model`, the sentence the model read. Nothing
// is checked here; Session::setState checks what it is given.
LabState borrowedHeadState(std::shared_ptr<const attn::Model> original, const QString& model, int layer,
                           int head, double divisor, const std::string& sentence, const Session& lab);

}  // namespace attnlab
