// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelsession.h"

#include "keyvaluesharing.h"

#include "attentionworker.h"
#include "modelfamilies.h"
#include "scheduler.h"

#include <QMetaObject>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace attnlab {

namespace {

QString fromStd(const std::string& text)
{
    return QString::fromStdString(text);
}

}  // namespace

struct ModelSession::Outcome {
    quint64 generation = 0;
    std::vector<ModelToken> tokens;
    std::optional<RepeatProbe> probe;
    ModelPassOutcome pass;
};

ModelSession::ModelSession(QObject* parent)
    : QObject(parent),
      loader_(std::make_unique<JobLane>(JobLane::Policy::Latest, "model-load")),
      runner_(std::make_unique<JobLane>(JobLane::Policy::Latest, "model-run"))
{
}

ModelSession::~ModelSession() = default;

void ModelSession::openModel(const QString& folder)
{
    const quint64 generation = ++loadGeneration_;
    loading_ = true;
    emit loadProgress(0, 1, tr("Reading %1: config.json, the weights and the tokenizer").arg(folder));
    loader_->post([this, folder, generation](const std::atomic<bool>&) {
        attn::Expected<ModelFolder> model = readModelFolder(folder);
        auto shared = std::make_shared<attn::Expected<ModelFolder>>(std::move(model));
        QMetaObject::invokeMethod(
            this,
            [this, generation, shared] {
                if (generation != loadGeneration_)
                    return;
                loading_ = false;
                if (!shared->ok()) {
                    emit loadFailed(fromStd(shared->error().message));
                    return;
                }
                installModel(std::make_shared<const ModelFolder>(std::move(shared->value())));
            },
            Qt::QueuedConnection);
    });
}

void ModelSession::adoptModel(std::shared_ptr<const ModelFolder> model)
{
    const quint64 generation = ++loadGeneration_;
    loading_ = true;
    // Queued, as a read's outcome is, so that the window sees the same order
    // of signals whichever way the folder came.
    QMetaObject::invokeMethod(
        this,
        [this, generation, model = std::move(model)]() mutable {
            if (generation != loadGeneration_)
                return;
            loading_ = false;
            installModel(std::move(model));
        },
        Qt::QueuedConnection);
}

void ModelSession::installModel(std::shared_ptr<const ModelFolder> model)
{
    model_ = std::move(model);
    emit loadProgress(1, 1, tr("Opened %1").arg(model_->folder));
    divisors_ = attn::HeadDivisors::standard(config());
    modes_.assign(divisors_.values.size(), attn::ScaleMode::SqrtDk);
    mask_.reset();
    skipQkNorm_ = false;
    layer_ = 0;
    head_ = 0;
    result_.reset();
    resultTokens_.clear();
    next_.clear();
    scores_ = attn::HeadScoreTable();
    ranges_ = attn::ScoreRangeTable();
    ablated_.clear();
    resultAblated_.clear();
    ablatedLogits_ = attn::RowVector();
    ablatedResult_.reset();
    changes_.clear();
    probe_.reset();
    resultProbe_.reset();
    probeLoss_.reset();
    ablatedProbeLoss_.reset();
    // The previous model's ids: no setter in a modelOpened slot runs a pass
    // over them; retokenize() below runs the first one.
    tokens_.clear();
    emit modelOpened();
    emit selectionChanged(layer_, head_);
    retokenize();
}

QString ModelSession::modelSummary() const
{
    if (!model_)
        return QString();
    const attn::DecoderConfig& c = config();
    return tr("%1: a causal decoder model with %2 layers of %3 heads (head_dim %4), width %5, "
              "%6 positions, %7")
               .arg(model_->familyName)
               .arg(c.layers)
               .arg(c.heads)
               .arg(c.headDim)
               .arg(c.width)
               .arg(c.maxPositions)
               .arg(QString::fromStdString(model_->dtype))
           + QStringLiteral("; ") + keyValueCacheText(c, model_->dtype);
}

void ModelSession::setSentence(const QString& sentence)
{
    sentence_ = sentence;
    // The probe runs instead of the sentence, which is kept for when it ends.
    if (!probe_)
        retokenize();
}

void ModelSession::retokenize()
{
    if (!model_)
        return;
    if (probe_) {
        attn::Expected<std::vector<ModelToken>> drawn = repeatProbeTokens(*model_, *probe_);
        if (!drawn) {
            setComputing(false);
            setProblem(fromStd(drawn.error().message));
            return;
        }
        tokens_ = std::move(drawn.value());
    } else {
        tokens_ = model_->tokenizer->encode(sentence_);
    }
    request();
}

attn::Status ModelSession::setProbe(std::optional<RepeatProbe> probe)
{
    if (!model_)
        return attn::Error{"no model is open"};
    if (probe)
        if (attn::Expected<std::vector<ModelToken>> drawn = repeatProbeTokens(*model_, *probe); !drawn)
            return drawn.error();
    if (probe == probe_)
        return attn::okStatus();
    probe_ = probe;
    retokenize();
    return attn::okStatus();
}

ModelSession::PassBatch::PassBatch(ModelSession& session) : session_(session)
{
    ++session_.batches_;
}

ModelSession::PassBatch::~PassBatch()
{
    if (--session_.batches_ == 0 && std::exchange(session_.heldRequest_, false))
        session_.request();
}

void ModelSession::request()
{
    if (batches_ > 0) {
        heldRequest_ = true;
        return;
    }
    const quint64 generation = ++generation_;
    const int n = int(tokens_.size());
    if (n == 0) {
        setComputing(false);
        setProblem(tr("Type a sentence: the model needs at least one token."));
        return;
    }
    const int limit = config().maxPositions;
    if (n > limit) {
        setComputing(false);
        setProblem(tr("The sentence is %1 %2 tokens; this model reads at most %3. "
                      "Shorten it to see its attention.")
                       .arg(n)
                       .arg(model_->familyName)
                       .arg(limit));
        return;
    }
    // With heads ablated a second pass keeps its maps too (the export's).
    if (const std::optional<QString> tooLarge = modelMapBudgetProblem(
            config(), model_->familyName, n, ablated_.empty() ? mapBudget_ : mapBudget_ / 2)) {
        setComputing(false);
        setProblem(*tooLarge);
        return;
    }
    ModelPassRequest job;
    job.model = model_;
    job.ids.reserve(tokens_.size());
    for (const ModelToken& t : tokens_)
        job.ids.push_back(t.id);
    job.options.divisors = divisors_;
    job.options.mask = mask_;
    job.options.skipQkNorm = skipQkNorm_;
    job.options.temperature = temperature_;
    job.options.topK = kNextTokens;
    job.options.threads = AttentionWorker::threads();
    job.ablated = ablated_;
    job.ablation = ablation_;
    job.probe = probe_;
    setComputing(true);
    // Posting supersedes the pass in flight: its flag stops it between layers.
    runner_->post([this, job = std::move(job), tokens = tokens_, generation,
                   hook = passHook_](const std::atomic<bool>& superseded) {
        if (hook)
            hook();
        auto outcome = std::make_shared<Outcome>();
        outcome->generation = generation;
        outcome->tokens = tokens;
        outcome->probe = job.probe;
        outcome->pass = runModelPass(job, superseded);
        QMetaObject::invokeMethod(
            this, [this, outcome] { deliver(outcome); }, Qt::QueuedConnection);
    });
}

void ModelSession::deliver(const std::shared_ptr<Outcome>& outcome)
{
    ModelPassOutcome& pass = outcome->pass;
    if (outcome->generation != generation_) {
        cancelled_ += pass.cancelled ? 1 : 0;
        return;  // superseded: a newer request is waiting or running
    }
    setComputing(false);
    if (!pass.result) {
        setProblem(fromStd(pass.result.error().message));
        return;
    }
    result_ = std::make_shared<const attn::DecoderResult>(std::move(pass.result.value()));
    resultTokens_ = std::move(outcome->tokens);
    next_ = attn::topTokens(result_->lastLogits, kNextTokens, temperature_);
    scores_ = std::move(pass.scores);
    ranges_ = std::move(pass.ranges);
    resultAblated_ = std::move(pass.ablated);
    resultAblation_ = pass.ablation;
    ablatedResult_ = std::move(pass.ablatedResult);
    ablatedLogits_ = ablatedResult_ ? ablatedResult_->lastLogits : attn::RowVector();
    resultProbe_ = outcome->probe;
    probeLoss_ = pass.probeLoss;
    ablatedProbeLoss_ = pass.ablatedProbeLoss;
    compareNext();
    setProblem(QString());
    emit resultChanged();
}

double ModelSession::mapBytes(int tokens) const
{
    return model_ ? modelMapBytes(config(), tokens) : 0.0;
}

const attn::AttentionResult* ModelSession::head(int layer, int head) const
{
    if (!result_ || layer < 0 || layer >= int(result_->layers.size()))
        return nullptr;
    const auto& heads = result_->layers[std::size_t(layer)].heads;
    if (head < 0 || head >= int(heads.size()))
        return nullptr;
    return &heads[std::size_t(head)];
}

attn::Matrix ModelSession::weightsFromLast(int key) const
{
    if (!result_ || key < 0 || key >= result_->tokens() || result_->layers.empty()
        || result_->layers.front().heads.empty())
        return attn::Matrix();
    const int layers = int(result_->layers.size());
    const int heads = int(result_->layers.front().heads.size());
    const int last = result_->tokens() - 1;
    attn::Matrix table(layers, heads);
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            table(l, h) = result_->layers[std::size_t(l)].heads[std::size_t(h)].weights(last, key);
    return table;
}

ModelToken ModelSession::vocabularyToken(int id) const
{
    return model_ ? model_->tokenizer->token(id) : ModelToken{};
}

void ModelSession::selectHead(int layer, int head)
{
    if (!model_ || layer < 0 || layer >= config().layers || head < 0 || head >= config().heads)
        return;
    if (layer == layer_ && head == head_)
        return;
    layer_ = layer;
    head_ = head;
    emit selectionChanged(layer_, head_);
}

double ModelSession::selectedDivisor() const
{
    return divisors_.empty() ? 0.0 : divisors_.at(layer_, head_);
}

attn::ScaleMode ModelSession::selectedScaleMode() const
{
    const std::size_t at = std::size_t(layer_) * std::size_t(divisors_.nHead) + std::size_t(head_);
    return at < modes_.size() ? modes_[at] : attn::ScaleMode::SqrtDk;
}

attn::Status ModelSession::setScale(attn::ScaleMode mode, double customDivisor, ScaleScope scope)
{
    if (!model_)
        return attn::Error{"no model is open"};
    attn::HeadDivisors edited = divisors_;
    const int layer = scope == ScaleScope::AllLayers ? -1 : layer_;
    const int head = scope == ScaleScope::ThisHead ? head_ : -1;
    const attn::Status set = edited.set(mode, customDivisor, config().headDim, layer, head);
    if (!set)
        return set;
    divisors_ = std::move(edited);
    for (int l = 0; l < divisors_.nLayer; ++l)
        for (int h = 0; h < divisors_.nHead; ++h)
            if ((layer < 0 || l == layer) && (head < 0 || h == head))
                modes_[std::size_t(l) * std::size_t(divisors_.nHead) + std::size_t(h)] = mode;
    if (!tokens_.empty())
        request();
    return attn::okStatus();
}

void ModelSession::resetScale()
{
    if (!model_)
        return;
    divisors_ = attn::HeadDivisors::standard(config());
    modes_.assign(divisors_.values.size(), attn::ScaleMode::SqrtDk);
    if (!tokens_.empty())
        request();
}

attn::Status ModelSession::setScales(const std::vector<attn::ScaleMode>& modes,
                                     const std::vector<double>& divisors)
{
    if (!model_)
        return attn::Error{"no model is open"};
    attn::HeadDivisors edited = attn::HeadDivisors::standard(config());
    if (modes.size() != edited.values.size() || divisors.size() != edited.values.size())
        return attn::Error{QStringLiteral("the divisors are a table of %1 layers x %2 heads for this model")
                               .arg(config().layers)
                               .arg(config().heads)
                               .toStdString()};
    for (int l = 0; l < edited.nLayer; ++l)
        for (int h = 0; h < edited.nHead; ++h) {
            const std::size_t at = std::size_t(l) * std::size_t(edited.nHead) + std::size_t(h);
            if (const attn::Status set = edited.set(modes[at], divisors[at], config().headDim, l, h); !set)
                return set;
        }
    divisors_ = std::move(edited);
    modes_ = modes;
    if (!tokens_.empty())
        request();
    return attn::okStatus();
}

attn::Status ModelSession::setMaskWhatIf(std::optional<attn::AttentionMask> mask)
{
    if (!model_)
        return attn::Error{"no model is open"};
    if (mask && mask->kind == attn::AttentionMask::Kind::None)
        return attn::Error{"a decoder's mask must hide the keys after each query"};
    if (mask)
        if (const attn::Status valid = attn::validateAttentionMask(*mask); !valid)
            return valid;
    if (mask == mask_)
        return attn::okStatus();
    mask_ = mask;
    if (!tokens_.empty())
        request();
    return attn::okStatus();
}

attn::Status ModelSession::setQkNormRemoved(bool removed)
{
    if (!model_)
        return attn::Error{"no model is open"};
    if (removed && !config().qkNorm)
        return attn::Error{"this model has no QK-norm (q_norm, k_norm) to remove"};
    if (removed == skipQkNorm_)
        return attn::okStatus();
    skipQkNorm_ = removed;
    if (!tokens_.empty())
        request();
    return attn::okStatus();
}

attn::Status ModelSession::setTemperature(double temperature)
{
    if (!(temperature >= attn::kMinTemperature && temperature <= attn::kMaxTemperature))
        return attn::Error{QStringLiteral("the temperature must be between %1 and %2")
                               .arg(attn::kMinTemperature)
                               .arg(attn::kMaxTemperature)
                               .toStdString()};
    temperature_ = temperature;
    if (result_) {
        next_ = attn::topTokens(result_->lastLogits, kNextTokens, temperature_);
        compareNext();
        emit resultChanged();
    }
    return attn::okStatus();
}

attn::Matrix ModelSession::headScoreMatrix(attn::HeadScoreKind kind) const
{
    if (scores_.values.empty())
        return attn::Matrix();
    attn::Matrix table(scores_.layers, scores_.heads);
    for (int l = 0; l < scores_.layers; ++l)
        for (int h = 0; h < scores_.heads; ++h) {
            const std::optional<double>& v = scores_.at(l, h)[kind];
            table(l, h) = v ? *v : std::numeric_limits<double>::quiet_NaN();
        }
    return table;
}

std::vector<attn::HeadIndex> ModelSession::rankedHeads(attn::HeadScoreKind kind) const
{
    return scores_.values.empty() ? std::vector<attn::HeadIndex>() : attn::rankHeads(scores_, kind);
}

attn::Matrix ModelSession::scoreRangeMatrix(attn::ScoreRangeKind kind) const
{
    return ranges_.empty() ? attn::Matrix() : ranges_.matrix(kind);
}

std::vector<attn::HeadIndex> ModelSession::rankedHeads(attn::ScoreRangeKind kind) const
{
    std::vector<attn::HeadIndex> order;
    for (int l = 0; l < ranges_.layers; ++l)
        for (int h = 0; h < ranges_.heads; ++h)
            order.push_back({l, h});
    // Largest first; ties: lower layer, then lower head (as attn::rankHeads).
    std::stable_sort(order.begin(), order.end(), [&](const attn::HeadIndex& a, const attn::HeadIndex& b) {
        return ranges_.at(a.layer, a.head)[kind] > ranges_.at(b.layer, b.head)[kind];
    });
    return order;
}

attn::Expected<ModelSession::LogitDifference> ModelSession::logitDifference(const QString& a,
                                                                            const QString& b) const
{
    if (!result_)
        return attn::Error{"no pass to read: open a model and type a sentence"};
    int id[2] = {0, 0};
    const QString text[2] = {a, b};
    for (int k = 0; k < 2; ++k) {
        const std::vector<int> ids = model_->tokenizer->encodeIds(text[k]);
        if (ids.size() != 1)
            return attn::Error{
                tr("“%1” is %2 of this model; the logit difference needs one token each "
                   "(a leading space is part of a word's token: “ film”).")
                    .arg(text[k], ids.empty() ? tr("no token") : tr("%1 tokens").arg(ids.size()))
                    .toStdString()};
        id[k] = ids.front();
    }
    LogitDifference out;
    out.a = id[0];
    out.b = id[1];
    const attn::Expected<double> intact = attn::logitDifference(result_->lastLogits, id[0], id[1]);
    if (!intact)
        return intact.error();
    out.intact = *intact;
    if (!resultAblated_.empty()) {
        const attn::Expected<double> ablated = attn::logitDifference(ablatedLogits_, id[0], id[1]);
        if (!ablated)
            return ablated.error();
        out.ablated = *ablated;
    }
    return out;
}

void ModelSession::compareNext()
{
    changes_.clear();
    if (result_ && !resultAblated_.empty() && ablatedLogits_.size() == result_->lastLogits.size())
        changes_ = attn::compareNextTokens(result_->lastLogits, ablatedLogits_, kNextTokens, temperature_);
}

attn::Status ModelSession::setAblation(std::vector<attn::HeadIndex> heads, attn::HeadAblation kind)
{
    if (!model_)
        return attn::Error{"no model is open"};
    for (const attn::HeadIndex& h : heads)
        if (h.layer < 0 || h.layer >= config().layers || h.head < 0 || h.head >= config().heads)
            return attn::Error{
                QStringLiteral("layer %1 head %2 is not a head of this model (%3 layers x %4 heads)")
                    .arg(h.layer + 1)
                    .arg(h.head + 1)
                    .arg(config().layers)
                    .arg(config().heads)
                    .toStdString()};
    // Layer-major, each head once: the order the hook and the files name them in.
    std::sort(heads.begin(), heads.end(), [](const attn::HeadIndex& a, const attn::HeadIndex& b) {
        return a.layer != b.layer ? a.layer < b.layer : a.head < b.head;
    });
    heads.erase(std::unique(heads.begin(), heads.end(),
                            [](const attn::HeadIndex& a, const attn::HeadIndex& b) {
                                return a.layer == b.layer && a.head == b.head;
                            }),
                heads.end());
    const bool same = heads.size() == ablated_.size()
                      && std::equal(heads.begin(), heads.end(), ablated_.begin(),
                                    [](const attn::HeadIndex& a, const attn::HeadIndex& b) {
                                        return a.layer == b.layer && a.head == b.head;
                                    });
    if (same && (kind == ablation_ || heads.empty()))
        return attn::okStatus();
    ablated_ = std::move(heads);
    ablation_ = kind;
    if (!tokens_.empty())
        request();
    emit ablationChanged();
    return attn::okStatus();
}

attn::Status ModelSession::toggleAblated(int layer, int head)
{
    std::vector<attn::HeadIndex> heads = ablated_;
    const auto at = std::find_if(heads.begin(), heads.end(), [&](const attn::HeadIndex& h) {
        return h.layer == layer && h.head == head;
    });
    if (at != heads.end())
        heads.erase(at);
    else
        heads.push_back({layer, head});
    return setAblation(std::move(heads), ablation_);
}

bool ModelSession::isAblated(int layer, int head) const
{
    return std::any_of(ablated_.begin(), ablated_.end(),
                       [&](const attn::HeadIndex& h) { return h.layer == layer && h.head == head; });
}

void ModelSession::setProblem(const QString& problem)
{
    if (problem == problem_)
        return;
    problem_ = problem;
    emit problemChanged(problem_);
}

void ModelSession::setComputing(bool computing)
{
    if (computing == computing_)
        return;
    computing_ = computing;
    emit computingChanged(computing_);
}

}  // namespace attnlab
