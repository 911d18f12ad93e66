// SPDX-License-Identifier: GPL-3.0-or-later
#include "session.h"

#include "attentionworker.h"
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
      worker_(std::make_unique<AttentionWorker>(resultPool_)),
      scalingLab_(std::make_unique<ScalingLabRun>(worker_.get()))
{
    // First of resultChanged's slots: a result in, its preview is done with
    // before any view looks.
    connect(this, &Session::resultChanged, this, [this] {
        preview_.reset();
        previewSamples_.reset();
    });
    connect(worker_.get(), &AttentionWorker::finished, this, &Session::deliver, Qt::QueuedConnection);
    connect(worker_.get(), &AttentionWorker::previewed, this, &Session::deliverPreview, Qt::QueuedConnection);
    redraw(false);
}

Session::~Session() = default;

bool Session::isLargeWork(int tokens) const
{
    const double n = tokens;
    const double work = n * n * (in_.config.dK + in_.config.dV)
                        + n * in_.config.dModel * (2.0 * in_.config.dK + in_.config.dV);
    return work * (multiHead() ? in_.heads.heads : 1) > kAsyncWork;
}

std::unique_ptr<AttentionWorker::Job> Session::makeJob(bool redraw, bool keep, bool headsOnly) const
{
    auto job = std::make_unique<AttentionWorker::Job>();
    job->redraw = redraw;
    job->keep = redraw && keep;
    job->config = in_.config;
    job->options = in_.options;
    job->comparison = comparisonWanted_;
    job->sampleSizes = sampleSizes();
    if (!redraw || job->keep)
        job->model = in_.model;  // X (n, d_model) and the weights: small next to the maps
    if (job->keep)
        job->cells = in_.userCells;
    if (multiHead()) {
        job->heads = in_.heads;
        job->selectedHead = in_.selectedHead;
        // A preview needs the tokens the maps label it with.
        job->preview = previewWanted_
                       && (!redraw
                           || (in_.config.sentence == in_.modelConfig.sentence
                               && in_.config.tokenizer == in_.modelConfig.tokenizer && !in_.modelStale
                               && !isBorrowed()));
        if (!redraw)
            job->params = in_.multiHead;
        if (headsOnly && !redraw) {
            job->recomputeHeads = in_.staleHeads;
            job->recomputeParts = in_.staleParts;
            job->base = current_->heads();
        }
    }
    return job;
}

void Session::startJob(bool redraw, bool keep)
{
    std::unique_ptr<AttentionWorker::Job> job = makeJob(redraw, keep);
    computingHeadsOnly_ = false;
    job->generation = ++generation_;
    computing_ = true;
    computingRedraw_ = redraw;
    computingKeep_ = job->keep;
    worker_->request(std::move(job));  // supersedes the request in flight
}

QList<QSize> Session::sampleSizes() const
{
    if (fixedSampleSizes_)
        return *fixedSampleSizes_;
    QList<QSize> sizes;
    for (const SampleGrid& g : sampleCache()->grids)
        sizes.append(QSize(int(g.colAt.size()), int(g.rowAt.size())));
    return sizes;
}

void Session::supersede()
{
    worker_->dropLookAhead();
    ++generation_;
    if (computing_)
        worker_->cancel();
    computing_ = false;
}

void Session::deliverPreview(quint64 generation, int head,
                             const std::shared_ptr<const attn::AttentionResult>& result)
{
    // For the request in flight and the head still selected, over the same tokens.
    if (generation != generation_ || !computing_ || !current_->heads() || head != in_.selectedHead
        || result->tokens() != tokenCount()) {
        worker_->previewShown(generation);  // nothing to paint
        return;
    }
    preview_ = result;
    previewSamples_.reset();
    emit previewChanged();
    if (!awaitsPaint_)
        previewPainted(generation);  // nothing paints it
}

void Session::previewPainted(quint64 generation)
{
    worker_->previewShown(generation);
}

void Session::resultPainted(quint64 generation)
{
    // The next seed step's work, once the views have painted this one:
    // started while they take it, it slowed their paint more than it gained.
    if (generation == 0 || generation != lookAheadDue_)
        return;
    lookAheadDue_ = 0;
    if (lookAheadWanted_)
        lookAhead(generation);
}

void Session::setLookAheadWanted(bool wanted)
{
    lookAheadWanted_ = wanted;
    if (!wanted)
        worker_->dropLookAhead();
}

void Session::lookAhead(quint64 generation)
{
    // Nothing changed since that result, which is the session's.
    if (!lookAheadWanted_ || generation != generation_ || computing_ || !current_->heads()
        || !problem_.isEmpty() || isBorrowed() || multiHeadBytes(headCount(), tokenCount()) > kLookAheadBytes)
        return;
    std::unique_ptr<AttentionWorker::Job> job = makeJob(true, true);
    job->config.seed = seedAhead_;
    job->preview = false;
    worker_->lookAhead(std::move(job));
}

void Session::dropPreview()
{
    if (!preview_)
        return;
    preview_.reset();
    previewSamples_.reset();
    emit previewChanged();
}

std::shared_ptr<ResultSampleCache> Session::shownSampleCache() const
{
    if (!preview_)
        return sampleCache();
    if (!previewSamples_)
        previewSamples_ = std::make_shared<ResultSampleCache>();
    return previewSamples_;
}

void Session::deliver(const std::shared_ptr<AttentionWorker::Outcome>& outcome)
{
    if (outcome->cancelled || outcome->generation != generation_ || !computing_) {
        emit resultDropped();  // superseded by a newer request
        return;
    }
    computing_ = false;
    if (!outcome->error.isEmpty()) {
        if (outcome->redraw)
            in_.modelStale = true;
        setProblem(outcome->error);
        return;
    }
    if (outcome->multi) {
        const QString notice = installHeads(*outcome);
        if (outcome->redraw)
            emit modelRedrawn();
        if (outcome->generation == seedStepGeneration_)
            lookAheadDue_ = outcome->generation;
        emit resultChanged();
        if (!awaitsPaint_)
            resultPainted(outcome->generation);  // nothing paints it
        if (outcome->redraw && (!outcome->keep || !notice.isEmpty()))
            emit matrixNotice(notice);
        return;
    }
    in_.clearHeads();
    const attn::Model& over = outcome->redraw ? outcome->model : in_.model;
    LabResult next = LabResult::single(tokensOf(over), idsOf(over), std::move(outcome->result),
                                       std::move(outcome->stats), in_.options);
    next.setComparison(std::move(outcome->comparison));
    next.setSamples(std::move(outcome->samples), true);
    QString notice;
    if (outcome->redraw)
        notice = in_.installModel(std::move(outcome->model), outcome->config, std::move(outcome->cells),
                                  outcome->report);
    publish(std::move(next));
    setProblem(QString());
    if (outcome->redraw)
        emit modelRedrawn();
    emit resultChanged();
    // A fresh draw leaves nothing of the user's; a kept one speaks when it has to.
    if (outcome->redraw && (!outcome->keep || !notice.isEmpty()))
        emit matrixNotice(notice);
}

void Session::waitForResult()
{
    if (!computing_)
        return;
    // Supersede the worker's request with the same one done here.
    supersede();
    if (computingRedraw_)
        redrawNow(computingKeep_);
    else
        recomputeNow();
}

void Session::publish(LabResult next)
{
    next.shareLabelsWith(*current_);
    current_ = std::make_shared<const LabResult>(std::move(next));
}

int Session::vocabularySize() const
{
    return int(in_.model.tokenization.vocab.size());
}

double Session::weightSum(int query) const
{
    const std::shared_ptr<const attn::AttentionResult> shown = shownResult();
    const int n = shown->tokens();
    if (query < 0 || query >= n)
        return 0.0;
    Eigen::VectorXd row(n);
    shown->weightsRow(query, row.data());
    return row.sum();
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
        emit matrixNotice(borrowedNotice());
        return;
    }
    redraw();
    emit parametersChanged();
}

void Session::setTokenizer(attn::TokenizerMode mode)
{
    changeConfig(&attn::ModelConfig::tokenizer, mode);
}

void Session::setSeed(quint64 seed)
{
    const std::uint64_t from = in_.config.seed;
    changeConfig(&attn::ModelConfig::seed, std::uint64_t(seed));
    const bool up = seed == from + 1 && seed != std::numeric_limits<std::uint64_t>::max();
    const bool down = seed + 1 == from && seed != 0;
    if ((up || down) && computing_ && computingRedraw_) {
        seedStepGeneration_ = generation_;
        seedAhead_ = up ? seed + 1 : seed - 1;
    }
}

void Session::setInit(attn::InitMode mode)
{
    changeConfig(&attn::ModelConfig::init, mode);
}

void Session::setDModel(int dModel)
{
    changeConfig(&attn::ModelConfig::dModel, dModel);
}

void Session::setDK(int dK)
{
    changeConfig(&attn::ModelConfig::dK, dK);
}

void Session::setDV(int dV)
{
    changeConfig(&attn::ModelConfig::dV, dV);
}

void Session::setScaleMode(attn::ScaleMode mode)
{
    changeOption(&attn::AttentionOptions::scale, mode);
}

void Session::setCustomDivisor(double divisor)
{
    changeOption(&attn::AttentionOptions::customDivisor, divisor);
}

void Session::setCausal(bool causal)
{
    changeOption(&attn::AttentionOptions::causal, causal);
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
    if (isLargeWork(std::max(words, tokenCount()))) {
        startJob(true, keep);
        return;
    }
    redrawNow(keep);
}

void Session::redrawNow(bool keep)
{
    supersede();  // a computation in flight
    if (multiHead()) {
        QString notice;
        const attn::Status computed = computeHeadsNow(true, keep, &notice);
        if (!computed) {
            in_.modelStale = true;
            setProblem(problemOf(computed));
            return;
        }
        emit modelRedrawn();
        emit resultChanged();
        if (!keep || !notice.isEmpty())
            emit matrixNotice(notice);
        return;
    }
    attn::Expected<attn::Model> built = attn::buildModel(in_.config);
    if (!built) {
        in_.modelStale = true;
        setProblem(QString::fromStdString(built.error().message));
        return;
    }
    attn::Model& m = built.value();
    KeptReport report;
    UserCells cells = keep ? keepUserCells(in_.model, in_.userCells, &m, &report) : UserCells::none(m);
    LabResult next;
    const attn::Status computed = computeFrom(m, in_.options, &next);
    if (!computed) {
        in_.modelStale = true;
        setProblem(problemOf(computed));
        return;
    }
    in_.clearHeads();
    const QString notice = in_.installModel(std::move(m), in_.config, std::move(cells), report);
    publish(std::move(next));
    setProblem(QString());
    emit modelRedrawn();
    emit resultChanged();
    if (!keep || !notice.isEmpty())
        emit matrixNotice(notice);
}

void Session::recompute()
{
    if (computing_ && computingRedraw_) {
        // The matrices are being redrawn: redraw again with the new options.
        redraw(computingKeep_);
        return;
    }
    if (!in_.modelStale && isLargeWork(tokenCount())) {
        startJob(false);
        return;
    }
    recomputeNow();
}

void Session::recomputeNow()
{
    supersede();
    if (in_.modelStale) {
        redraw();
        return;
    }
    attn::Status computed = attn::okStatus();
    if (multiHead()) {
        computed = computeHeadsNow(false, false, nullptr);
    } else {
        LabResult next;
        computed = computeFrom(in_.model, in_.options, &next);
        if (computed) {
            in_.clearHeads();
            publish(std::move(next));
        }
    }
    setProblem(problemOf(computed));
    if (computed)
        emit resultChanged();
}

attn::Status Session::computeInputs(const LabInputs& in, LabResult* next) const
{
    if (!in.multiHeadLab())
        return computeFrom(in.model, in.options, next);
    const int n = int(in.model.X.rows());
    const int h = in.multiHead.headCount();
    auto multi = shareLarge(attn::MultiHeadResult(), multiHeadBytes(h, n));
    const attn::Status status = computeHeads(in.model.X, in.multiHead, in.options, multi.get(),
                                             isLargeWork(n) ? AttentionWorker::threads() : 1);
    if (!status)
        return status;
    *next =
        LabResult::multi(tokensOf(in.model), idsOf(in.model), std::move(multi), in.selectedHead, in.options);
    return attn::okStatus();
}

attn::Status Session::computeFrom(const attn::Model& model, const attn::AttentionOptions& options,
                                  LabResult* next) const
{
    // A new object each time: views may still hold the previous one.
    auto result = resultPool_->take(model.X.rows());
    attn::AttentionStats stats;
    // Large work done here (a lab opened, an undo step) uses every core.
    const attn::Status status = attn::computeAttentionWithStatistics(
        model.X, model.Wq, model.Wk, model.Wv, options, result.get(), &stats,
        isLargeWork(int(model.X.rows())) ? AttentionWorker::threads() : 1);
    if (!status)
        return status;
    *next =
        LabResult::single(tokensOf(model), idsOf(model), std::move(result), std::move(stats), in_.options);
    if (comparisonWanted_)
        next->comparison();  // computed with the result, as the worker does
    return attn::okStatus();
}

QString Session::problemOf(const attn::Status& status)
{
    return status ? QString() : QString::fromStdString(status.error().message);
}

void Session::setProblem(const QString& problem)
{
    if (problem == problem_)
        return;
    problem_ = problem;
    if (!problem_.isEmpty())
        dropPreview();  // the request it previewed gives no result
    emit problemChanged();
}

}  // namespace attnlab
