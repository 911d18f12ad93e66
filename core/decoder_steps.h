// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A family's numbers, step by step, for the pass every family shares
// (runDecoderPass, decoder_model.h), which calls them in this order:
//
//   h = embed(ids)
//   per layer l:  input = beginLayer(l, h)
//                 headInputs(l, i, &head) for every head i (several threads)
//                 ... attention, hooks ...
//                 endLayer(l, contexts, &h)
//   logits = unembed(finalNorm(h))
//
// One object serves one pass (or one head, one read-out) and keeps its
// scratch between the calls, such as the layer's projections beginLayer
// makes and headInputs reads. The numbers must not depend on the thread
// count the object was made with. Only a family's implementation and the
// shared pass include this header; views use decoder_model.h.
//
// A decode step (kv_cache.h) runs the same steps over the new tokens alone,
// at positions firstPosition().. (the tokens already cached come first):
// embed adds that position's embedding (GPT-2) and beginLayer rotates by it
// (RoPE); everything else works row by row.

#include "attention.h"
#include "float_tensor.h"
#include "matrix.h"

#include <vector>

namespace attn {

class DecoderSteps {
public:
    virtual ~DecoderSteps() = default;

    // The position of the first row the next embed and beginLayer take: 0
    // for a whole pass, the cached tokens' count for a decode step.
    void setFirstPosition(int position) { firstPosition_ = position; }
    int firstPosition() const { return firstPosition_; }

    // The QK-norm what-if (DecoderRunOptions::skipQkNorm): beginLayer,
    // headInputs and headInputsFrom leave q and k without q_norm and
    // k_norm. Families without them ignore it.
    void setSkipQkNorm(bool skip) { skipQkNorm_ = skip; }
    bool skipQkNorm() const { return skipQkNorm_; }

    // h (n, E): the tokens' embeddings at positions firstPosition() ..
    // firstPosition() + n - 1 (ids already checked against the vocabulary,
    // the positions against the model's).
    virtual Matrix embed(const std::vector<int>& tokenIds) = 0;

    // The layer's attention input (n, E), a norm of h, returned to be kept
    // (DecoderLayer::attentionInput); also makes what headInputs reads.
    virtual Matrix beginLayer(int layer, const Matrix& h) = 0;

    // Head `head`'s result->Q, K (n, head_dim) and V (n, head_dim) from what
    // beginLayer made, ready for the attention (any rotation applied; with
    // grouped-query attention K and V are those of the key/value head
    // DecoderConfig::kvHeadOf(head)). Called from several threads at once
    // for distinct heads.
    virtual void headInputs(int layer, int head, AttentionResult* result) const = 0;

    // The same from a kept attention input alone (DecoderModel::head): bit
    // for bit what beginLayer and headInputs give (a whole pass's, from
    // position 0).
    virtual void headInputsFrom(int layer, int head, const Matrix& attentionInput,
                                AttentionResult* result) const = 0;

    // The same before the rotation (RoPE: rotary_head.h): q and k as they
    // enter it; a family that rotates nothing gives headInputsFrom's.
    virtual void headInputsBeforeRotation(int layer, int head, const Matrix& attentionInput,
                                          AttentionResult* result) const
    {
        headInputsFrom(layer, head, attentionInput, result);
    }

    // h += the output projection of `contexts` (n, heads x head_dim: each
    // head's context, after the hooks, side by side in head order), then
    // the rest of the block (GPT-2: the MLP and its residual).
    virtual void endLayer(int layer, const Matrix& contexts, Matrix* h) = 0;

    // The final norm of h (rows, E), row by row.
    virtual Matrix finalNorm(const Matrix& h) const = 0;

    // logits (rows, vocab) of final-normed rows.
    virtual Matrix unembed(const Matrix& normed) const = 0;

protected:
    int firstPosition_ = 0;
    bool skipQkNorm_ = false;
};

// logits (rows, vocab) = hidden lmHead^T for an lm_head (vocab, E) of
// float32 rows read in place, in blocks of 4096 tokens over `threads`: the
// AVX2 kernels' product where kernels::available(), else Eigen's over each
// block converted to double. GPT-2's and the Llama family's unembed.
Matrix unembedFloatRows(const Matrix& hidden, const FloatTensor& lmHead, int threads);

}  // namespace attn
