// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head lab's "Lens" page's numbers (issue 39), over a ModelSession:
// the logit lens (attn::logitLens: after each layer, the 5 most likely next
// tokens at every position, read from the residual stream through the
// final norm and the unembedding, at the session's temperature) and the
// attention rollout (attn::attentionRollout, n x n, rows the queries) of
// the pass the next-token panel reads: the ablated pass while heads are
// ablated, else the intact one, under every what-if (divisors, mask, no
// QK-norm) that pass ran with, and over the probe's tokens while the probe
// runs. They are the command line's --logit-lens and --rollout for the
// same options.
//
// The work runs off the GUI thread in a lane of its own, after the pass is
// shown (so the grid never waits for the lens); a newer pass or
// temperature supersedes it. Nothing is computed while not wanted (the
// page hidden); setWanted(true) computes the shown pass's at once.

#include "decoder_model.h"
#include "head_scores.h"
#include "lens_rollout.h"
#include "matrix.h"
#include "modelpass.h"
#include "modeltokenizer.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

class JobLane;
class ModelSession;

class ModelReadings : public QObject {
    Q_OBJECT
public:
    static constexpr int kLensTop = 5;

    explicit ModelReadings(ModelSession* session, QObject* parent = nullptr);
    ~ModelReadings() override;

    void setWanted(bool wanted);
    bool isWanted() const { return wanted_; }
    // A computation is in flight; the readings shown are the previous ones.
    bool isComputing() const { return computing_; }
    bool hasReadings() const { return lens_.layers > 0; }

    // The lens (layers x positions, each the kLensTop most likely) and the
    // rollout of the pass they read, its tokens, and the temperature of the lens.
    const attn::LogitLens& lens() const { return lens_; }
    const attn::Matrix& rollout() const { return rollout_; }
    const std::vector<ModelToken>& tokens() const { return tokens_; }
    double temperature() const { return temperature_; }
    // The heads the pass they read ran without (empty: the intact pass).
    // The pass itself is not kept once read (its maps may take a GiB).
    const std::vector<attn::HeadIndex>& ablatedHeads() const { return ablated_; }
    attn::HeadAblation ablation() const { return ablation_; }
    // What the pass ran under, in one line: "the intact pass, the model as
    // trained", or "without L1 H2 (zero); scores ÷ 1 in 8 of 8 heads;
    // mask sliding:8; no QK-norm; T 0.5", then "Over the probe's 40 random
    // tokens (R 20, seed 0)." while the probe runs.
    QString passText() const;
    // Why there are no readings (a failure), or empty.
    QString problem() const { return problem_; }

signals:
    void changed();
    void computingChanged(bool computing);

private:
    struct Outcome;
    void request();
    void deliver(const std::shared_ptr<Outcome>& outcome);
    void setComputing(bool computing);

    ModelSession* session_;
    bool wanted_ = false;
    bool computing_ = false;
    bool stale_ = true;  // the session's result changed since the readings
    quint64 generation_ = 0;
    attn::LogitLens lens_;
    attn::Matrix rollout_;
    std::vector<ModelToken> tokens_;
    double temperature_ = 1.0;
    // What the pass ran under, for passText.
    attn::HeadDivisors divisors_;
    attn::AttentionMask mask_;
    bool qkNormSkipped_ = false;
    std::optional<RepeatProbe> probe_;  // the pass ran over the probe's tokens
    std::vector<attn::HeadIndex> ablated_;
    attn::HeadAblation ablation_ = attn::HeadAblation::Zero;
    QString problem_;
    std::unique_ptr<JobLane> lane_;  // last: joined first on destruction
};

}  // namespace attnlab
