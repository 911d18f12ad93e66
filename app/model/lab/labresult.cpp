// SPDX-License-Identifier: GPL-3.0-or-later
#include "labresult.h"

#include "presentation.h"
#include "reaper.h"
#include "resultcells.h"
#include "resultpool.h"

#include <utility>

namespace attnlab {

QStringList tokensOf(const attn::Model& model)
{
    QStringList tokens;
    tokens.reserve(qsizetype(model.tokenization.tokens.size()));
    for (const std::string& token : model.tokenization.tokens)
        tokens.append(QString::fromStdString(token));
    return tokens;
}

QList<int> idsOf(const attn::Model& model)
{
    return QList<int>(model.tokenization.ids.begin(), model.tokenization.ids.end());
}

LabResult::LabResult() : shown_(std::make_shared<attn::AttentionResult>())
{
}

const QStringList& LabResult::labels() const
{
    if (!labels_)
        labels_ = positionedLabels(tokens_);
    return *labels_;
}

std::shared_ptr<const attn::AttentionResult> LabResult::head(int i) const
{
    if (!heads_)
        return shown_;
    return std::shared_ptr<const attn::AttentionResult>(heads_, &heads_->heads[std::size_t(i)]);
}

const std::shared_ptr<const attn::ScalingComparison>& LabResult::comparison() const
{
    if (!comparison_)
        comparison_ = shareLarge<const attn::ScalingComparison>(attn::compareScaling(*shown_),
                                                                2 * ResultPool::mapBytes(shown_->tokens()));
    return comparison_;
}

const std::shared_ptr<ResultSampleCache>& LabResult::samples() const
{
    if (!samples_)
        samples_ = std::make_shared<ResultSampleCache>();
    return samples_;
}

void LabResult::setSamples(std::shared_ptr<ResultSampleCache> samples, bool presampled)
{
    samples_ = std::move(samples);
    presampled_ = presampled && samples_;
}

std::optional<std::vector<int>> LabResult::headsChangedSince(const attn::MultiHeadResult* before) const
{
    if (before && before == heads_.get())
        return std::vector<int>();  // the same heads (another one shown)
    if (!before || !heads_ || before != recomputedFrom_.lock().get())
        return std::nullopt;
    return recomputedHeads_;
}

LabResult LabResult::single(QStringList tokens, QList<int> ids,
                            std::shared_ptr<const attn::AttentionResult> result, attn::AttentionStats stats,
                            const attn::AttentionOptions& options)
{
    LabResult r;
    r.computed_ = true;
    r.tokens_ = std::move(tokens);
    r.ids_ = std::move(ids);
    r.shown_ = std::move(result);
    r.stats_ = std::move(stats);
    r.options_ = options;
    return r;
}

LabResult LabResult::multi(QStringList tokens, QList<int> ids,
                           std::shared_ptr<const attn::MultiHeadResult> heads, int shown,
                           const attn::AttentionOptions& options)
{
    LabResult r;
    r.computed_ = true;
    r.tokens_ = std::move(tokens);
    r.ids_ = std::move(ids);
    r.heads_ = std::move(heads);
    r.options_ = options;
    r.shownHead_ = shown;
    r.shown_ = std::shared_ptr<const attn::AttentionResult>(r.heads_, &r.heads_->heads[std::size_t(shown)]);
    r.stats_ = r.heads_->stats[std::size_t(shown)];
    return r;
}

LabResult LabResult::showing(int head) const
{
    LabResult r = multi(tokens_, ids_, heads_, head, options_);
    r.labels_ = labels_;
    r.recomputedFrom_ = recomputedFrom_;
    r.recomputedHeads_ = recomputedHeads_;
    return r;
}

void LabResult::setRecomputedFrom(const std::shared_ptr<const attn::MultiHeadResult>& base,
                                  std::vector<int> heads)
{
    recomputedFrom_ = base;
    recomputedHeads_ = std::move(heads);
}

void LabResult::shareLabelsWith(const LabResult& previous)
{
    // QList compares shared data first: one pointer check while the tokens stay.
    if (!labels_ && previous.labels_ && previous.tokens_ == tokens_)
        labels_ = previous.labels_;
}

}  // namespace attnlab
