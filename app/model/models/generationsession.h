// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Model tab's generation (issue 40) over a ModelSession: the prompt's
// ids (the sentence under the open model), its key/value cache and the
// steps taken, one token each (attn::generate's loop: a decode step, then
// attn::chooseToken on its logits, greedy or sampled with the seeded
// generator), run off the GUI thread on a Latest lane of its own
// (scheduler.h). Views read it and draw; they never compute.
//
// - generate(n, choice): a new generation of n tokens from the prompt (the
//   previous one dropped), each token reported as it comes (stepsChanged).
// - step(choice): one more token, continuing the generation shown (the
//   first step of a new one when there is none, with `choice`; an existing
//   one keeps the choice it started with, so n steps make what generate(n)
//   makes).
// - reset(): stops the work in flight and forgets every step.
//
// The generation runs with the session's what-ifs (divisors, mask, no
// QK-norm) and without the heads ablated in the head lab, in the session's
// mode (attn::GenerationOptions::ablated): its tokens are the ablated
// model's, as the next-token panel shows it. Zero ablation keeps the
// cache; mean ablation (the mean over the positions so far) runs a whole
// pass each step (attn::generationStep, generation.h says why).
//
// A new model, a new sentence (its ids differ from the prompt's), a new
// divisor table or mask, QK-norm or other heads ablated in the session
// stops and clears the generation as reset() does. The cache is only touched by the lane's thread while a job
// runs and handed from job to job; the GUI thread reads the steps delivered.
//
// Each step keeps its new row's attention (every layer and head) while the
// rows of all steps take at most kAttentionBudget bytes (8 x layers x heads
// x keys a step); beyond it the oldest steps' rows are dropped
// (hasAttention() false) and the table keeps their numbers.

#include "expected.h"
#include "generation.h"
#include "kv_cache.h"
#include "matrix.h"
#include "modelfolder.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

namespace attnlab {

class LaneGroup;
class ModelSession;

struct TokenChoiceOptions {
    bool sample = false;
    double temperature = 1.0;
    int topK = 0;  // with sample: 0 for the whole vocabulary
    std::uint64_t seed = 0;
};

class GenerationSession : public QObject {
    Q_OBJECT
public:
    static constexpr double kAttentionBudget = 64.0 * 1024 * 1024;

    explicit GenerationSession(ModelSession* session, QObject* parent = nullptr);
    ~GenerationSession() override;

    // Refused (an error, nothing changes) without a model or a sentence,
    // with options out of range or past the model's positions.
    attn::Status generate(int tokens, const TokenChoiceOptions& choice);
    attn::Status step(const TokenChoiceOptions& choice);
    void reset();

    bool isRunning() const { return running_; }
    // The prompt's ids and the tokens generated so far, in order.
    const std::vector<int>& promptIds() const { return promptIds_; }
    const std::vector<attn::GeneratedToken>& steps() const { return steps_; }
    std::vector<int> generatedIds() const;
    // The choice the generation shown started with.
    const TokenChoiceOptions& choice() const { return choice_; }
    // The heads the generation shown runs without, and how (the session's
    // when it started; without a generation, the session's now: what
    // Generate would use).
    std::vector<attn::HeadIndex> ablatedHeads() const;
    attn::HeadAblation ablation() const;
    // Those in one line, heads counted from 1 as the head lab names them:
    // "Generating with the intact model (no head ablated)." or "Generating
    // without L1 H2, L2 H1 (zero): …".
    QString ablationText() const;
    // The prompt and the generated tokens as text (the tokenizer's
    // decode of each); empty without a generation.
    QString promptText() const;
    QString continuation() const;
    // The display text of a vocabulary id ("␣cinema").
    QString tokenText(int id) const;
    // Step `step`'s keys as the views label them: the prompt's tokens then
    // the generated ones before it (cacheTokens of them).
    std::vector<QString> keyLabels(int step) const;

    bool hasAttention(int step) const;
    // Step `step`'s new row per head of `layer`: a (heads, cacheTokens)
    // table; empty without it.
    attn::Matrix attention(int step, int layer) const;

    // Step `step`'s cache in one layer: 2 x key/value heads x head_dim x 8
    // x its tokens bytes (the cache's bytes over its layers); 0 without it.
    std::int64_t cacheBytesPerLayer(int step) const;
    int layers() const;  // the generation's model's (0 without one)

signals:
    void stepsChanged();
    void runningChanged(bool running);
    // A step that failed (its message), or "" once a new one starts.
    void problemChanged(const QString& problem);

private:
    struct State;
    struct Delivery;
    attn::Status start(int tokens, bool fresh, const TokenChoiceOptions& choice);
    void deliver(const std::shared_ptr<Delivery>& delivery);
    void follow();  // the session changed: a new model, sentence, divisors, mask or QK-norm clear
    void clear();
    void setRunning(bool running);
    void keepWithinBudget();

    ModelSession* session_;
    std::shared_ptr<const ModelFolder> model_;  // the generation's
    std::vector<int> promptIds_;
    std::vector<double> divisors_;
    std::optional<attn::AttentionMask> mask_;  // the what-ifs it started with
    bool skipQkNorm_ = false;
    std::vector<attn::HeadIndex> ablated_;
    attn::HeadAblation ablation_ = attn::HeadAblation::Zero;
    TokenChoiceOptions choice_;
    std::vector<attn::GeneratedToken> steps_;
    std::shared_ptr<State> state_;  // the cache and the generator, handed to the jobs
    quint64 generation_ = 0;
    bool running_ = false;
    std::unique_ptr<LaneGroup> lane_;  // last: joined first
};

}  // namespace attnlab
