// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a lab's matrices come from when they are one head of an opened
// GPT-2 ("borrowed"): the pipeline shows that head with its own engine,
// X = [LN1(h) | 1] (n, E + 1) and W = [W_slice ; b_slice] ((E + 1), head_dim),
// so that X W = LN1(h) W_slice + b_slice is the head's q, k or v.
// Tokens are GPT-2's pieces, which no tokenizer of the lab reproduces from
// the sentence, so the model's numbers (and the lab's own parameters from
// before the borrowing, to go back to) travel with the state.

#include "attention.h"
#include "model.h"
#include "multihead.h"

#include <QString>

#include <memory>

namespace attnlab {

struct BorrowedHead {
    QString model;     // the model folder's name, for the user
    QString identity;  // which model (ModelFolder::identity), for comparisons
    int layer = -1;    // 0-based; -1: the lab's own matrices
    int head = -1;     // 0-based
    // The head as the model gives it: GPT-2's pieces (display text and
    // vocabulary ids) and X, W_q, W_k, W_v; cells that differ are the user's.
    std::shared_ptr<const attn::Model> original;
    // The lab's parameters before the head was borrowed: a redraw (another
    // seed, d_k, tokenizer, ...) goes back to them with that change.
    attn::ModelConfig ownConfig;
    attn::AttentionOptions ownOptions;
    attn::HeadsConfig ownHeads;

    bool active() const { return layer >= 0 && original != nullptr; }
    bool sameHead(const BorrowedHead& o) const
    {
        return layer == o.layer && head == o.head && identity == o.identity && original == o.original;
    }
};

}  // namespace attnlab
