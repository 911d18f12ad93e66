// SPDX-License-Identifier: GPL-3.0-or-later
#include "session.h"

#include "attentionworker.h"
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
        std::unique_ptr<AttentionJob> job = makeJob(in_, true, true);
        job->config.seed = seed;
        return job;
    });
    redraw(false);
}

Session::~Session() = default;

bool Session::isLargeWork(const attn::ModelConfig& config, const attn::HeadsConfig& heads, int tokens)
{
    const double n = tokens;
    const double work = n * n * (config.dK + config.dV) + n * config.dModel * (2.0 * config.dK + config.dV);
    return work * (heads.multiHead() ? heads.heads : 1) > kAsyncWork;
}

std::unique_ptr<AttentionJob> Session::makeJob(const LabInputs& in, bool redraw, bool keep,
                                               bool headsOnly) const
{
    auto job = std::make_unique<AttentionJob>();
    job->redraw = redraw;
    job->keep = redraw && keep;
    job->config = in.config;
    job->options = in.options;
    job->comparison = comparisonWanted_;
    job->sampleSizes = sampleSizes();
    if (!redraw || job->keep)
        job->model = in.model;  // X (n, d_model) and the weights: small next to the maps
    if (job->keep)
        job->cells = in.userCells;
    if (in.heads.multiHead()) {
        job->heads = in.heads;
        job->selectedHead = in.selectedHead;
        // A preview needs the tokens the maps label it with.
        job->preview = requests_->previewWanted()
                       && (!redraw
                           || (in.config.sentence == in.modelConfig.sentence
                               && in.config.tokenizer == in.modelConfig.tokenizer && !in.modelStale
                               && !in.borrowed.active()));
        if (!redraw)
            job->params = in.multiHead;
        if (headsOnly && !redraw) {
            job->recomputeHeads = in.staleHeads;
            job->recomputeParts = in.staleParts;
            job->base = current_->heads();
        }
    }
    return job;
}

QList<QSize> Session::sampleSizes() const
{
    if (fixedSampleSizes_)
        return *fixedSampleSizes_;
    QList<QSize> sizes;
    for (const SampleGrid& g : current_->samples()->grids)
        sizes.append(QSize(int(g.colAt.size()), int(g.rowAt.size())));
    return sizes;
}

std::shared_ptr<AttentionOutcome> Session::computeNow(AttentionJob& job) const
{
    auto outcome = std::make_shared<AttentionOutcome>();
    outcome->redraw = job.redraw;
    outcome->keep = job.keep;
    // Large work done here (a lab opened, an undo step) uses every core.
    const int tokens = job.redraw ? current_->tokenCount() : int(job.model.X.rows());
    const int threads = isLargeWork(job.config, job.heads, tokens) ? AttentionWorker::threads() : 1;
    if (job.heads.multiHead())
        computeHeadsJob(job, outcome.get(), threads, nullptr);
    else
        computeSingleHeadJob(job, outcome.get(), *resultPool_, threads, nullptr);
    return outcome;
}

bool Session::finish(AttentionOutcome& outcome)
{
    if (!outcome.error.isEmpty()) {
        if (outcome.redraw)
            in_.modelStale = true;
        setProblem(outcome.error);
        return false;
    }
    const QString notice = outcome.multi ? installHeads(outcome) : installSingle(outcome);
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

LabResult Session::singleResult(AttentionOutcome& outcome, const attn::Model& over) const
{
    LabResult next = LabResult::single(tokensOf(over), idsOf(over), std::move(outcome.result),
                                       std::move(outcome.stats), in_.options);
    next.setComparison(std::move(outcome.comparison));
    next.setSamples(std::move(outcome.samples), true);
    return next;
}

QString Session::installSingle(AttentionOutcome& outcome)
{
    in_.clearHeads();
    LabResult next = singleResult(outcome, outcome.redraw ? outcome.model : in_.model);
    QString notice;
    if (outcome.redraw)
        notice = in_.installModel(std::move(outcome.model), outcome.config, std::move(outcome.cells),
                                  outcome.report);
    publish(std::move(next));
    setProblem(QString());
    return notice;
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
        emit matrixNotice(in_.borrowedNotice());
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
    if (up || down)
        requests_->seedStep(up ? seed + 1 : seed - 1);
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
    if (isLargeWork(in_.config, in_.heads, std::max(words, current_->tokenCount()))) {
        requests_->start(makeJob(in_, true, keep));
        return;
    }
    redrawNow(keep);
}

void Session::redrawNow(bool keep)
{
    requests_->supersede();  // a computation in flight
    const std::unique_ptr<AttentionJob> job = makeJob(in_, true, keep);
    finish(*computeNow(*job));
}

void Session::recompute()
{
    if (requests_->redrawing()) {
        // The matrices are being redrawn: redraw again with the new options.
        redraw(requests_->keeps());
        return;
    }
    if (!in_.modelStale && isLargeWork(in_.config, in_.heads, current_->tokenCount())) {
        requests_->start(makeJob(in_, false, false));
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
    const std::unique_ptr<AttentionJob> job = makeJob(in_, false, false);
    finish(*computeNow(*job));
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
