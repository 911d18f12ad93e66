// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One computed state of the lab, published whole by Session and never
// changed after: the tokens it was computed over, every head's result (the
// lesson's single head is h = 1: headCount() 1, head(0) its result), the
// head shown and its statistics, and the options it was computed with.
// Views keep the object they drew (a shared pointer) and compare it with
// the session's newest to know what changed.
//
// Two caches are filled on first use, on the GUI thread, from the numbers
// the object holds (they never change what it says): the unscaled vs scaled
// comparison and the maps' samples.

#include "attention.h"
#include "model.h"
#include "multihead.h"
#include "scaling_lab.h"
#include "statistics.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

struct ResultSampleCache;

class LabResult {
public:
    // No result yet: no tokens, an empty head.
    LabResult();

    bool computed() const { return computed_; }

    // The tokens in sentence order, their vocabulary ids, and the labels the
    // views draw ("to#4" for a repeated word: positionedLabels).
    const QStringList& tokens() const { return tokens_; }
    const QList<int>& ids() const { return ids_; }
    const QStringList& labels() const;
    int tokenCount() const { return int(tokens_.size()); }

    // Every head: 1 for the single head. The multi-head pass (null for the
    // single head, whose one result is head(0)).
    int headCount() const { return heads_ ? heads_->headCount() : 1; }
    const std::shared_ptr<const attn::MultiHeadResult>& heads() const { return heads_; }
    // Head i's result, 0 <= i < headCount(): for the single head, head(0) is shown().
    std::shared_ptr<const attn::AttentionResult> head(int i) const;
    // The head the single-head views show (the selected one) and its statistics.
    int shownHead() const { return shownHead_; }
    const std::shared_ptr<const attn::AttentionResult>& shown() const { return shown_; }
    const attn::AttentionStats& stats() const { return stats_; }
    // The d_k of the numbers: the width of the shown head's Q. Every view of
    // a result labels and scales with this one.
    int dK() const { return int(shown_->Q.cols()); }
    const attn::AttentionOptions& options() const { return options_; }

    // Unscaled vs scaled softmax of shown(): computed on first use unless it
    // came with the result.
    const std::shared_ptr<const attn::ScalingComparison>& comparison() const;
    // The cache the maps sample shown() into: the worker's samples, or one
    // kept for the maps to fill.
    const std::shared_ptr<ResultSampleCache>& samples() const;
    bool presampled() const { return presampled_; }

    // When this result replaced `before` by recomputing some heads alone (an
    // edit of one head's weights): those heads; an empty list when `before`
    // has this result's heads (another head shown); nullopt otherwise (take
    // every head as changed).
    std::optional<std::vector<int>> headsChangedSince(const attn::MultiHeadResult* before) const;

    // Makers. The single head over `tokens`:
    static LabResult single(QStringList tokens, QList<int> ids,
                            std::shared_ptr<const attn::AttentionResult> result, attn::AttentionStats stats,
                            const attn::AttentionOptions& options);
    // Every head, head `shown` on display (its result and statistics those of `heads`).
    static LabResult multi(QStringList tokens, QList<int> ids,
                           std::shared_ptr<const attn::MultiHeadResult> heads, int shown,
                           const attn::AttentionOptions& options);
    // The same heads with another one shown (nothing computed).
    LabResult showing(int head) const;

    // Set while building, before the result is published.
    void setComparison(std::shared_ptr<const attn::ScalingComparison> comparison)
    {
        comparison_ = std::move(comparison);
    }
    void setSamples(std::shared_ptr<ResultSampleCache> samples, bool presampled);
    // The shown head's result object itself, when it holds the same numbers
    // (a preview the maps already keep): the maps then keep their samples too.
    void setShownObject(std::shared_ptr<const attn::AttentionResult> sameNumbers)
    {
        shown_ = std::move(sameNumbers);
    }
    // This result recomputed `heads` over `base`, keeping its other heads.
    void setRecomputedFrom(const std::shared_ptr<const attn::MultiHeadResult>& base, std::vector<int> heads);
    // Labels are made once per tokenisation: taken from `previous` when it
    // has the same tokens.
    void shareLabelsWith(const LabResult& previous);

private:
    bool computed_ = false;
    QStringList tokens_;
    QList<int> ids_;
    mutable std::optional<QStringList> labels_;
    std::shared_ptr<const attn::MultiHeadResult> heads_;
    int shownHead_ = 0;
    std::shared_ptr<const attn::AttentionResult> shown_;
    attn::AttentionStats stats_;
    attn::AttentionOptions options_;
    mutable std::shared_ptr<const attn::ScalingComparison> comparison_;
    mutable std::shared_ptr<ResultSampleCache> samples_;
    bool presampled_ = false;
    std::weak_ptr<const attn::MultiHeadResult> recomputedFrom_;
    std::vector<int> recomputedHeads_;
};

// A model's tokens and their vocabulary ids, as a result holds them.
QStringList tokensOf(const attn::Model& model);
QList<int> idsOf(const attn::Model& model);

}  // namespace attnlab
