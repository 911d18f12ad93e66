#pragma once
// Everything one run of the model produced, as the exporters need it: the
// settings, the inputs (tokens, X, weights), the attention result and its
// statistics.

#include "attention.h"
#include "expected.h"
#include "model.h"
#include "statistics.h"

namespace attnlab {

struct AttentionSnapshot {
    attn::ModelConfig config;
    attn::AttentionOptions options;
    attn::Model model;  // tokens, X (n, d_model), W_q, W_k (d_model, d_k), W_v (d_model, d_v)
    attn::AttentionResult result;
    attn::AttentionStats stats;
};

// buildModel, computeAttention, computeStatistics; the first error stops it.
attn::Expected<AttentionSnapshot> computeSnapshot(const attn::ModelConfig& config,
                                                  const attn::AttentionOptions& options);

}  // namespace attnlab
