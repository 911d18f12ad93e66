// SPDX-License-Identifier: GPL-3.0-or-later
#include "session.h"

#include "attentionworker.h"
#include "labjob.h"
#include "labrequests.h"
#include "headparams.h"
#include "presentation.h"
#include "reaper.h"
#include "resultcells.h"
#include "resultpool.h"
#include "scalinglabrun.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace attnlab {

Session::Session(QObject* parent)
    : QObject(parent),
      resultPool_(std::make_shared<ResultPool>()),
      current_(std::make_shared<const LabResult>()),
      requests_(std::make_unique<LabRequests>(resultPool_)),
      scalingLab_(std::make_unique<ScalingLabRun>(requests_->worker()))
{
    // First of resultChanged's slots: a result in, its preview is done with
    // before any view looks.
    connect(this, &Session::resultChanged, requests_.get(), &LabRequests::forgetPreview);
    connect(requests_.get(), &LabRequests::delivered, this, &Session::deliver);
    connect(requests_.get(), &LabRequests::dropped, this, &Session::resultDropped);
    connect(requests_.get(), &LabRequests::previewChanged, this, &Session::previewChanged);
    // The head still selected, over the same tokens.
    requests_->setPreviewFilter([this](int head, const attn::AttentionResult& result) {
        return current_->heads() && head == in_.selectedHead && result.tokens() == current_->tokenCount();
    });
    requests_->setLookAheadSource([this](std::uint64_t seed) -> std::unique_ptr<AttentionJob> {
        if (!current_->heads() || !problem_.isEmpty() || in_.borrowed.active()
            || multiHeadBytes(current_->headCount(), current_->tokenCount()) > kLookAheadBytes)
            return nullptr;
        std::unique_ptr<AttentionJob> next = job(in_, LabJobKind::RedrawKeeping);
        next->config.seed = seed;
        return next;
    });
    redraw(false);
}

Session::~Session() = default;

QList<QSize> Session::sampleSizes() const
{
    if (fixedSampleSizes_)
        return *fixedSampleSizes_;
    QList<QSize> sizes;
    for (const SampleGrid& g : current_->samples()->grids)
        sizes.append(QSize(int(g.colAt.size()), int(g.rowAt.size())));
    return sizes;
}

bool Session::largeWork(int tokens) const
{
    return isLargeLabWork(in_.config, in_.heads, tokens, kAsyncWork);
}

std::unique_ptr<AttentionJob> Session::job(const LabInputs& in, LabJobKind kind) const
{
    return makeLabJob(in, kind,
                      {comparisonWanted_, sampleSizes(), requests_->previewWanted(), current_->heads()});
}

std::shared_ptr<AttentionOutcome> Session::computeNow(AttentionJob& job) const
{
    const int tokens = job.redraw ? current_->tokenCount() : int(job.model.X.rows());
    return computeLabJob(job, tokens, kAsyncWork, *resultPool_);
}

bool Session::finish(AttentionOutcome& outcome)
{
    if (!outcome.error.isEmpty()) {
        if (outcome.redraw)
            in_.modelStale = true;
        setProblem(outcome.error);
        return false;
    }
    TakenOutcome taken = takeOutcome(outcome, in_, *current_, *requests_);
    publish(std::move(taken.result));
    setProblem(QString());
    const QString& notice = taken.notice;
    if (outcome.redraw)
        emit modelRedrawn();
    emit resultChanged();
    // A fresh draw leaves nothing of the user's; a kept one speaks when it has to.
    if (outcome.redraw && (!outcome.keep || !notice.isEmpty()))
        emit matrixNotice(notice);
    return true;
}

void Session::deliver(const std::shared_ptr<AttentionOutcome>& outcome)
{
    const bool heads = outcome->multi != nullptr;  // finish() takes it
    if (finish(*outcome) && heads)
        requests_->headsShown(outcome->generation);
}

void Session::waitForResult()
{
    if (!requests_->computing())
        return;
    // Supersede the worker's request with the same one done here.
    const bool redrawing = requests_->redrawing();
    const bool keep = requests_->keeps();
    requests_->supersede();
    if (redrawing)
        redrawNow(keep);
    else
        recomputeNow();
}

void Session::publish(LabResult next)
{
    next.shareLabelsWith(*current_);
    current_ = std::make_shared<const LabResult>(std::move(next));
}

void Session::setParameters(const attn::ModelConfig& config, const attn::AttentionOptions& options,
                            const attn::HeadsConfig& heads)
{
    in_.borrowed = BorrowedHead();
    in_.awaitingBorrow = false;
    in_.config = config;
    in_.options = options;
    in_.heads = heads;
    redraw(false);
    emit parametersChanged();
}

void Session::setSentence(const QString& sentence)
{
    const std::string utf8 = sentence.toStdString();
    if (utf8 == in_.config.sentence)
        return;
    in_.config.sentence = utf8;
    emit sentenceChanged();
    if (in_.borrowed.active() && followsModel_) {
        // The head stays on display until the model's pass over the new
        // sentence is borrowed in its place (or released).
        in_.awaitingBorrow = true;
        emit parametersChanged();
        emit matrixNotice(in_.borrowedNotice());
        return;
    }
    redraw();
    emit parametersChanged();
}

void Session::setSeed(quint64 seed)
{
    const std::uint64_t from = in_.config.seed;
    changeConfig(&attn::ModelConfig::seed, std::uint64_t(seed));
    const bool up = seed == from + 1 && seed != std::numeric_limits<std::uint64_t>::max();
    const bool down = seed + 1 == from && seed != 0;
    if (up || down)
        requests_->seedStep(up ? seed + 1 : seed - 1);
}

void Session::releaseBorrowed()
{
    if (!in_.borrowed.active())
        return;
    waitForResult();
    redraw(false);
    emit parametersChanged();
}

void Session::regenerate()
{
    redraw(false);
}

void Session::redraw(bool keep)
{
    if (in_.borrowed.active()) {
        in_.leaveBorrowed();
        keep = false;  // the user's cells were edits of the model's numbers
    }
    in_.config = headsModelConfig(in_.config, in_.heads);
    // The sentence's token count, roughly (words; the tokenizer may split
    // punctuation off): enough to tell a lesson from thousands of tokens.
    const int words = int(std::count(in_.config.sentence.begin(), in_.config.sentence.end(), ' ')) + 1;
    const LabJobKind kind = keep ? LabJobKind::RedrawKeeping : LabJobKind::Redraw;
    if (largeWork(std::max(words, current_->tokenCount()))) {
        requests_->start(job(in_, kind));
        return;
    }
    redrawNow(keep);
}

void Session::redrawNow(bool keep)
{
    requests_->supersede();  // a computation in flight
    finish(*computeNow(*job(in_, keep ? LabJobKind::RedrawKeeping : LabJobKind::Redraw)));
}

void Session::recompute()
{
    if (requests_->redrawing()) {
        // The matrices are being redrawn: redraw again with the new options.
        redraw(requests_->keeps());
        return;
    }
    if (!in_.modelStale && largeWork(current_->tokenCount())) {
        requests_->start(job(in_, LabJobKind::Recompute));
        return;
    }
    recomputeNow();
}

void Session::recomputeNow()
{
    requests_->supersede();
    if (in_.modelStale) {
        redraw();
        return;
    }
    finish(*computeNow(*job(in_, LabJobKind::Recompute)));
}

void Session::setProblem(const QString& problem)
{
    if (problem == problem_)
        return;
    problem_ = problem;
    if (!problem_.isEmpty())
        requests_->dropPreview();  // the request it previewed gives no result
    emit problemChanged();
}

}  // namespace attnlab
