// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// From a sentence to the model's inputs: embeddings X and projection weights.
//
// Initialisations:
//  - Article (default): exactly Raschka's draws. manual_seed(seed);
//    Embedding(vocab_size, d_model); manual_seed(seed) again;
//    W_query = rand(d_k, d_model); W_key = rand(d_k, d_model);
//    W_value = rand(d_v, d_model). We keep W_q = W_query^T (d_model, d_k) so
//    that Q = X W_q. Every number changes when a dimension changes, as in
//    PyTorch.
//  - StandardNormal: every entry of X and of the weights N(0, 1).
//  - UnitVariance: X entries N(0, 1), weight entries N(0, 1/d_model), so the
//    entries of q and k have variance about 1 (the textbook assumption behind
//    the 1/sqrt(d_k) argument).
//  The last two are built to be stable under edits: a token's embedding
//  depends only on (seed, token text), and column j of a weight matrix only on
//  (seed, matrix, j, d_model). Their vocabulary is numbered in order of first
//  appearance (not sorted as the article's): a new word takes the next id,
//  and the words before its first appearance keep theirs. Growing d_k keeps the existing dimensions and
//  adds new ones, so the picture changes because of d_k alone.

#include "expected.h"
#include "matrix.h"
#include "tokenizer.h"

#include <cstdint>
#include <string>

namespace attn {

inline constexpr const char* kArticleSentence = "Life is short, eat dessert first";

enum class InitMode { Article, StandardNormal, UnitVariance };

const char* initModeName(InitMode mode);  // "article", "normal", "unit-variance"
bool parseInitMode(std::string_view name, InitMode* mode);

struct ModelConfig {
    std::string sentence = kArticleSentence;
    TokenizerMode tokenizer = TokenizerMode::Article;
    std::uint64_t seed = 123;
    int dModel = 16;
    int dK = 24;
    int dV = 28;
    InitMode init = InitMode::Article;
    bool operator==(const ModelConfig& o) const
    {
        return sentence == o.sentence && tokenizer == o.tokenizer && seed == o.seed && dModel == o.dModel
               && dK == o.dK && dV == o.dV && init == o.init;
    }
    bool operator!=(const ModelConfig& o) const { return !(*this == o); }
};

struct Model {
    Tokenization tokenization;
    Matrix X;   // (n, d_model)
    Matrix Wq;  // (d_model, d_k)
    Matrix Wk;  // (d_model, d_k)
    Matrix Wv;  // (d_model, d_v)
};

// Each dimension within 1..its limit and W_q, W_k, W_v within their entry
// budget (validateWeightEntries), or an error naming it.
Status validateDimensions(int dModel, int dK, int dV);

Expected<Model> buildModel(const ModelConfig& config);
// The sentence's tokens as buildModel numbers them for config.init.
Expected<Tokenization> tokenizeFor(const ModelConfig& config);

// The weights alone (the embeddings are not redrawn); used when only d_k or
// d_v changes. In every mode they do not depend on the sentence (the Article
// mode reseeds before drawing them).
struct Weights {
    Matrix Wq;  // (d_model, d_k)
    Matrix Wk;  // (d_model, d_k)
    Matrix Wv;  // (d_model, d_v)
};
Weights drawWeights(const ModelConfig& config);
// A (d_model, width) weight of the stable modes (normal, unit-variance:
// scaled by 1/sqrt(d_model)) from stream `which` (1..255; 1, 2, 3 are
// drawWeights' W_q, W_k, W_v): column j depends only on (seed, which, j,
// d_model). Not for the Article mode.
Matrix drawStableWeight(const ModelConfig& config, int which, int width);
// The stable modes keep their draws of the last few seeds (a slice or an
// extension of a kept draw equals a fresh draw); this drops them, for a
// test that must compare with a fresh draw.
void clearDrawCache();
// X for the given tokenization (rows in sentence order).
Matrix drawEmbeddings(const ModelConfig& config, const Tokenization& tokens);

}  // namespace attn
