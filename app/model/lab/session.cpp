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
    const double work =
        n * n * (config_.dK + config_.dV) + n * config_.dModel * (2.0 * config_.dK + config_.dV);
    return work * (multiHead() ? heads_.heads : 1) > kAsyncWork;
}

std::unique_ptr<AttentionWorker::Job> Session::makeJob(bool redraw, bool keep, bool headsOnly) const
{
    auto job = std::make_unique<AttentionWorker::Job>();
    job->redraw = redraw;
    job->keep = redraw && keep;
    job->config = config_;
    job->options = options_;
    job->comparison = comparisonWanted_;
    job->sampleSizes = sampleSizes();
    if (!redraw || job->keep)
        job->model = model_;  // X (n, d_model) and the weights: small next to the maps
    if (job->keep)
        job->cells = userCells_;
    if (multiHead()) {
        job->heads = heads_;
        job->selectedHead = selectedHead_;
        // A preview needs the tokens the maps label it with.
        job->preview =
            previewWanted_
            && (!redraw
                || (config_.sentence == modelConfig_.sentence && config_.tokenizer == modelConfig_.tokenizer
                    && !modelStale_ && !isBorrowed()));
        if (!redraw)
            job->params = multiHead_;
        if (headsOnly && !redraw) {
            job->recomputeHeads = staleHeads_;
            job->recomputeParts = staleParts_;
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
    if (generation != generation_ || !computing_ || !current_->heads() || head != selectedHead_
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
            modelStale_ = true;
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
    clearHeads();
    const attn::Model& over = outcome->redraw ? outcome->model : model_;
    LabResult next = LabResult::single(tokensOf(over), idsOf(over), std::move(outcome->result),
                                       std::move(outcome->stats), options_);
    next.setComparison(std::move(outcome->comparison));
    next.setSamples(std::move(outcome->samples), true);
    QString notice;
    if (outcome->redraw)
        notice = installModel(std::move(outcome->model), outcome->config, std::move(outcome->cells),
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

QString Session::installModel(attn::Model&& model, const attn::ModelConfig& drawnFrom, UserCells cells,
                              const KeptReport& report)
{
    const attn::ModelConfig before = modelConfig_;
    model_ = std::move(model);
    modelConfig_ = drawnFrom;
    modelStale_ = false;
    userCells_ = std::move(cells);
    editedCells_ = userCells_.count();
    return describeKept(report, before, drawnFrom);
}

void Session::publish(LabResult next)
{
    next.shareLabelsWith(*current_);
    current_ = std::make_shared<const LabResult>(std::move(next));
}

const attn::Matrix& Session::matrix(MatrixId which) const
{
    switch (which) {
    case MatrixId::X: return model_.X;
    case MatrixId::Wq: return model_.Wq;
    case MatrixId::Wk: return model_.Wk;
    case MatrixId::Wv: return model_.Wv;
    }
    return model_.X;
}

attn::Matrix& Session::mutableMatrix(MatrixId which)
{
    return mutableMatrixOf(model_, which);
}

attn::Matrix& Session::mutableMatrixOf(attn::Model& model, MatrixId which)
{
    switch (which) {
    case MatrixId::X: return model.X;
    case MatrixId::Wq: return model.Wq;
    case MatrixId::Wk: return model.Wk;
    case MatrixId::Wv: return model.Wv;
    }
    return model.X;
}

int Session::vocabularySize() const
{
    return int(model_.tokenization.vocab.size());
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

QString Session::matrixName(MatrixId which)
{
    switch (which) {
    case MatrixId::X: return QStringLiteral("X");
    case MatrixId::Wq: return QStringLiteral("W_q");
    case MatrixId::Wk: return QStringLiteral("W_k");
    case MatrixId::Wv: return QStringLiteral("W_v");
    }
    return {};
}

void Session::setParameters(const attn::ModelConfig& config, const attn::AttentionOptions& options,
                            const attn::HeadsConfig& heads)
{
    borrowed_ = BorrowedHead();
    awaitingBorrow_ = false;
    config_ = config;
    options_ = options;
    heads_ = heads;
    redraw(false);
    emit parametersChanged();
}

void Session::setSentence(const QString& sentence)
{
    const std::string utf8 = sentence.toStdString();
    if (utf8 == config_.sentence)
        return;
    config_.sentence = utf8;
    emit sentenceChanged();
    if (borrowed_.active() && followsModel_) {
        // The head stays on display until the model's pass over the new
        // sentence is borrowed in its place (or released).
        awaitingBorrow_ = true;
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
    const std::uint64_t from = config_.seed;
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

void Session::regenerate()
{
    redraw(false);
}

void Session::redraw(bool keep)
{
    if (borrowed_.active()) {
        leaveBorrowed();
        keep = false;  // the user's cells were edits of the model's numbers
    }
    config_ = headsModelConfig(config_, heads_);
    // The sentence's token count, roughly (words; the tokenizer may split
    // punctuation off): enough to tell a lesson from thousands of tokens.
    const int words = int(std::count(config_.sentence.begin(), config_.sentence.end(), ' ')) + 1;
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
            modelStale_ = true;
            setProblem(problemOf(computed));
            return;
        }
        emit modelRedrawn();
        emit resultChanged();
        if (!keep || !notice.isEmpty())
            emit matrixNotice(notice);
        return;
    }
    attn::Expected<attn::Model> built = attn::buildModel(config_);
    if (!built) {
        modelStale_ = true;
        setProblem(QString::fromStdString(built.error().message));
        return;
    }
    attn::Model& m = built.value();
    KeptReport report;
    UserCells cells = keep ? keepUserCells(model_, userCells_, &m, &report) : UserCells::none(m);
    LabResult next;
    const attn::Status computed = computeFrom(m, &next);
    if (!computed) {
        modelStale_ = true;
        setProblem(problemOf(computed));
        return;
    }
    clearHeads();
    const QString notice = installModel(std::move(m), config_, std::move(cells), report);
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
    if (!modelStale_ && isLargeWork(tokenCount())) {
        startJob(false);
        return;
    }
    recomputeNow();
}

void Session::recomputeNow()
{
    supersede();
    if (modelStale_) {
        redraw();
        return;
    }
    attn::Status computed = attn::okStatus();
    if (multiHead()) {
        computed = computeHeadsNow(false, false, nullptr);
    } else {
        LabResult next;
        computed = computeFrom(model_, &next);
        if (computed) {
            clearHeads();
            publish(std::move(next));
        }
    }
    setProblem(problemOf(computed));
    if (computed)
        emit resultChanged();
}

attn::Status Session::computeFrom(const attn::Model& model, LabResult* next) const
{
    // A new object each time: views may still hold the previous one.
    auto result = resultPool_->take(model.X.rows());
    attn::AttentionStats stats;
    // Large work done here (a lab opened, an undo step) uses every core.
    const attn::Status status = attn::computeAttentionWithStatistics(
        model.X, model.Wq, model.Wk, model.Wv, options_, result.get(), &stats,
        isLargeWork(int(model.X.rows())) ? AttentionWorker::threads() : 1);
    if (!status)
        return status;
    *next = LabResult::single(tokensOf(model), idsOf(model), std::move(result), std::move(stats), options_);
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
