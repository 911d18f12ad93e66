// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head lab's measurements (issue 39) over any DecoderModel: what a head
// does, scored from its weights, and what a prediction loses without it.
//
// Head-type scores. A is a head's weights (n x n, causal), t the token ids,
// rows and positions from 0:
//   previous_token  = mean over i >= 1 of A[i, i-1]
//   duplicate_token = mean, over the rows i that have some j < i with
//                     t_j = t_i, of the sum of those A[i, j]
//   induction       = mean, over the rows i that have some j in 1..i-1 with
//                     t_(j-1) = t_i, of the sum of those A[i, j]
//   first_token     = mean over i >= 1 of A[i, 0] (the attention sink)
// A score no row defines (one token; no repeated token) is std::nullopt.
// Means are the sum over the rows, in row order, divided by their count.
//
// The induction probe: a span of R random token ids repeated twice, and the
// model's loss (cross-entropy of the next token) on each repeat.
//
// Ablation: ablationHook (decoder_model.h) runs the pass without chosen
// heads; compareNextTokens and logitDifference set the two passes' last
// logits side by side.

#include "decoder_model.h"
#include "expected.h"
#include "matrix.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace attn {

enum class HeadScoreKind { PreviousToken, DuplicateToken, Induction, FirstToken };
inline constexpr int kHeadScoreKinds = 4;
inline constexpr std::array<HeadScoreKind, kHeadScoreKinds> kAllHeadScoreKinds = {
    HeadScoreKind::PreviousToken, HeadScoreKind::DuplicateToken, HeadScoreKind::Induction,
    HeadScoreKind::FirstToken};

// The score's name in files: "previous_token", "duplicate_token",
// "induction", "first_token".
const char* headScoreName(HeadScoreKind kind);

struct HeadTypeScores {
    std::optional<double> previousToken;
    std::optional<double> duplicateToken;
    std::optional<double> induction;
    std::optional<double> firstToken;

    const std::optional<double>& operator[](HeadScoreKind kind) const;
};

// Which keys each row's duplicate-token and induction sums read, found once
// for a sentence and shared by all its heads: row i's keys are
// keys[start[i]] .. keys[start[i + 1] - 1], ascending.
struct HeadScoreKeys {
    int tokens = 0;
    std::vector<int> duplicateStart, duplicateKeys;  // j < i with t_j = t_i
    std::vector<int> inductionStart, inductionKeys;  // j in 1..i-1 with t_(j-1) = t_i
};
HeadScoreKeys headScoreKeys(const std::vector<int>& tokenIds);

// The four scores of one head from its weights: an (n x n) matrix (only the
// entries the definitions name are read), or a kept AttentionResult (read
// entry by entry, bit for bit its weights()). `keys` must be of the same n.
HeadTypeScores headTypeScores(const Matrix& weights, const HeadScoreKeys& keys);
HeadTypeScores headTypeScores(const AttentionResult& head, const HeadScoreKeys& keys);

// Every head's scores, layer-major.
struct HeadScoreTable {
    int layers = 0;
    int heads = 0;
    std::vector<HeadTypeScores> values;  // values[layer * heads + head]

    const HeadTypeScores& at(int layer, int head) const { return values[std::size_t(layer) * heads + head]; }
};

// The scores of every head of `result`: from its kept maps, or, for a pass
// run without keepMaps, each head recomputed through model.head (the same
// weights bit for bit). Errors: a result of another model, a recomputation's.
Expected<HeadScoreTable> headScores(const DecoderModel& model, const DecoderResult& result);

// The heads that have `kind`'s score, largest first (ties: lower layer, then
// lower head).
std::vector<HeadIndex> rankHeads(const HeadScoreTable& table, HeadScoreKind kind);

// --- The induction probe ---

inline constexpr int kDefaultRepeatSpan = 20;
inline constexpr std::uint64_t kDefaultRepeatSeed = 0;

// The ids a probe draws from, [low, high): the middle of the vocabulary,
// away from both ends, where tokenizers keep their special tokens (GPT-2's
// <|endoftext|> is its last id, Llama's <s> and </s> its first):
// low = min(1000, V / 4), high = min(20000, V - V / 4) for V = vocabSize.
// GPT-2's 50257 give 1000..19999, ordinary words and word pieces.
struct TokenIdRange {
    int low = 0;
    int high = 0;  // one past the last
    int size() const { return high - low; }
};
TokenIdRange repeatProbeIdRange(int vocabSize);

// SplitMix64 (Steele, Lea and Flood 2014; the seeding generator of
// xoshiro): state += 0x9E3779B97F4A7C15, then z = state;
// z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) *
// 0x94D049BB133111EB; return z ^ (z >> 31) (arithmetic modulo 2^64). The
// first state is the seed.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next();

private:
    std::uint64_t state_;
};

// 2 * span ids: `span` distinct ids drawn from `range`, then the same span
// again. Each draw takes u = (next() >> 11) * 2^-53 and the id
// range.low + floor(u * range.size()), skipping an id the span already
// has. Errors: span < 2, or more than range.size() (too few distinct ids).
Expected<std::vector<int>> repeatedSpanIds(int span, std::uint64_t seed, TokenIdRange range);

// Each position's loss on the next token, -ln softmax(logits_i)[t_(i+1)]
// for i = 0..n-2 (natural log, temperature 1, every logit of the
// vocabulary), from `result`'s logits (allLogits) or, without them, the
// last layer's residual stream read out (keepHidden; the same logits bit
// for bit), 64 rows at a time. Errors: neither kept, fewer than 2 tokens.
Expected<std::vector<double>> nextTokenLosses(const DecoderModel& model, const DecoderResult& result,
                                              int threads = 1);

// The mean loss on each repeat of a 2 * span probe, over the tokens at
// offsets 1..span-1 of that repeat (the first token of a repeat is left
// out: nothing before it predicts it), so both means are over span - 1
// tokens at the same offsets. `losses` as nextTokenLosses gives them.
struct RepeatLoss {
    double first = 0.0;
    double second = 0.0;
};
Expected<RepeatLoss> repeatLoss(const std::vector<double>& losses, int span);

// --- Ablation ---

// One token's next-token logit and probability (softmax(logits /
// temperature) over the whole vocabulary) in the intact and ablated passes.
struct NextTokenChange {
    int id = 0;
    double intactLogit = 0.0;
    double intactProbability = 0.0;
    double ablatedLogit = 0.0;
    double ablatedProbability = 0.0;
    double change() const { return ablatedProbability - intactProbability; }
};

// The tokens among either pass's k most likely, ordered by the intact
// probability (largest first; ties: smaller id); the two logit rows must be
// of one length.
std::vector<NextTokenChange> compareNextTokens(const RowVector& intact, const RowVector& ablated, int k,
                                               double temperature);

// softmax(logits / temperature)[id] over the whole row (id within it).
double tokenProbability(const RowVector& logits, int id, double temperature);

// logits[a] - logits[b]; an error for an id outside the logits.
Expected<double> logitDifference(const RowVector& logits, int a, int b);

}  // namespace attn
